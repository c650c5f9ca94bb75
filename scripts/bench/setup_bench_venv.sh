#!/usr/bin/env bash
# Creates .venv-bench/ at the repo root: the reference analysers the speed
# benchmark runs against ours (xprof 2.24.2, HolisticTraceAnalysis), from
# scripts/bench/requirements-bench.txt (every package pinned, installed with
# --no-deps; the file says why that set is enough).
#
# Usage: scripts/bench/setup_bench_venv.sh
#
# Idempotent: the venv stores the SHA-256 of the requirement file it was
# built from; when that is unchanged the venv is left alone.  Set PYTHON to
# choose the interpreter (default python3, 3.11 for these pins).  Needs PyPI
# the first time (~40 MB download, ~390 MB installed).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
python="${PYTHON:-python3}"
venv="$root/.venv-bench"
req="$here/requirements-bench.txt"

want="$(sha256sum "$req" | cut -d' ' -f1)"
if [ -x "$venv/bin/python" ] && [ -f "$venv/.requirements.sha256" ] &&
   [ "$(cat "$venv/.requirements.sha256")" = "$want" ]; then
  echo "setup_bench_venv: $venv is up to date"
  exit 0
fi

ver="$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
if [ "$ver" != "3.11" ]; then
  echo "setup_bench_venv: warning: $python is Python $ver; the pins were made for 3.11" >&2
fi

echo "setup_bench_venv: building $venv"
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
rm -f "$venv/.requirements.sha256"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet --no-deps -r "$req"
# Fail here, not in the middle of a benchmark, if an import is missing.
"$venv/bin/python" -c 'import xprof.convert.raw_to_tool_data, hta.trace_analysis'
echo "$want" > "$venv/.requirements.sha256"
echo "setup_bench_venv: $venv ready"
