#!/usr/bin/env bash
# Creates the Python environments used by scripts/capture/ and
# scripts/reference/, at the repo root:
#   .venv/         tensorflow-cpu, tensorboard, tf-keras, xprof, jax[cpu], torch
#                  (requirements.txt + requirements-nodeps.txt)
#   .venv-tfdata/  tensorboard-plugin-profile 2.19.0 for tf_data_bottleneck_analysis
#                  (requirements-tfdata.txt)
#
# Usage: scripts/reference/setup_venv.sh [main|tfdata|all]   (default: all)
#
# Idempotent: each venv stores the SHA-256 of the requirement files it was
# built from; when they are unchanged the venv is left alone (a second run
# takes a second).  Set PYTHON to choose the interpreter (default python3,
# which must be 3.11 for these pins).  Needs PyPI access; the main venv is
# ~7.5 GB because PyPI's Linux torch wheel brings CUDA libraries.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
python="${PYTHON:-python3}"
which="${1:-all}"

# make_venv DIR STAMP_INPUTS... -- INSTALL_COMMANDS run with $pip
make_venv() {
  local dir="$1"; shift
  local files=()
  while [ "$1" != "--" ]; do files+=("$1"); shift; done
  shift
  local want
  want="$(cat "${files[@]}" | sha256sum | cut -d' ' -f1)"
  if [ -x "$dir/bin/python" ] && [ -f "$dir/.requirements.sha256" ] &&
     [ "$(cat "$dir/.requirements.sha256")" = "$want" ]; then
    echo "setup_venv: $dir is up to date"
    return 0
  fi
  echo "setup_venv: building $dir"
  [ -x "$dir/bin/python" ] || "$python" -m venv "$dir"
  rm -f "$dir/.requirements.sha256"
  "$dir/bin/python" -m pip install --quiet --upgrade pip
  local pip="$dir/bin/python -m pip"
  for cmd in "$@"; do
    eval "$pip $cmd"
  done
  echo "$want" > "$dir/.requirements.sha256"
  echo "setup_venv: $dir ready"
}

ver="$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
if [ "$ver" != "3.11" ]; then
  echo "setup_venv: warning: $python is Python $ver; the pins were made for 3.11" >&2
fi

if [ "$which" = "main" ] || [ "$which" = "all" ]; then
  make_venv "$root/.venv" "$here/requirements.txt" "$here/requirements-nodeps.txt" -- \
    "install --quiet -r '$here/requirements.txt'" \
    "install --quiet --no-deps -r '$here/requirements-nodeps.txt'"
fi
if [ "$which" = "tfdata" ] || [ "$which" = "all" ]; then
  make_venv "$root/.venv-tfdata" "$here/requirements-tfdata.txt" -- \
    "install --quiet -r '$here/requirements-tfdata.txt'"
fi
