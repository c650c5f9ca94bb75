#!/usr/bin/env bash
# ctest `scale_out_dask`: the Dask recipe on a real 4-rank run gives the bytes
# `summarize` gives for the run folder (a LocalCluster of 2 workers, fan-in 2
# so the combine tree has two levels). Skipped (exit 77) when the recipe's
# venv is absent: make it with scripts/scale_out/setup_venv.sh (needs PyPI).
# Usage: scripts/scale_out/test_dask_run.sh TOOL
set -euo pipefail
tool="$1"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
py="$root/.venv-scale-out/bin/python"
if [ ! -x "$py" ]; then
  echo "SKIPPED: no .venv-scale-out (run scripts/scale_out/setup_venv.sh to test the Dask recipe)"
  exit 77
fi
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
run="$root/testdata/captures/torch_gpu_ddp"
"$py" "$root/scripts/scale_out/dask_run.py" --workers 2 --fan-in 2 --tool "$tool" "$run" -o "$work/dask.tfsum"
"$tool" summarize "$run" -o "$work/whole.tfsum"
cmp "$work/dask.tfsum" "$work/whole.tfsum"
# A host that fails to summarise stops the run with its one line, exit 1.
if "$py" "$root/scripts/scale_out/dask_run.py" --workers 1 --retries 0 --tool "$tool" \
    "$run/capture_info.json" -o "$work/bad.tfsum" 2>"$work/err"; then
  echo "dask_run.py succeeded on a file that is no capture" >&2; exit 1
fi
grep -q "^dask_run: .*capture_info.json: JSON but not a Chrome trace" "$work/err"
[ ! -e "$work/bad.tfsum" ]
echo "scale_out_dask: ok"
