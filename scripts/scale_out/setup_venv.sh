#!/usr/bin/env bash
# Creates .venv-scale-out/ at the repo root with the pinned Dask of
# scripts/scale_out/requirements.txt, for scripts/scale_out/dask_run.py.
#
# Usage: scripts/scale_out/setup_venv.sh
#
# Idempotent: the venv stores the SHA-256 of the requirement file it was
# built from and is left alone while that is unchanged. PYTHON picks the
# interpreter (default python3; the pins were resolved on 3.11). Needs PyPI
# the first time (~10 MB).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
python="${PYTHON:-python3}"
venv="$root/.venv-scale-out"
req="$here/requirements.txt"
want="$(sha256sum "$req" | cut -d' ' -f1)"
if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.requirements.sha256" 2>/dev/null)" = "$want" ]; then
  echo "setup_venv: $venv is up to date"
  exit 0
fi
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check -r "$req"
echo "$want" > "$venv/.requirements.sha256"
echo "setup_venv: made $venv"
