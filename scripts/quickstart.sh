#!/usr/bin/env bash
# Command 1 of the README: install, build, and analyse a capture bundled in
# testdata/ (a real TensorFlow training run made by scripts/capture/).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
capture=testdata/captures/tf_input_bound
echo
echo "\$ build/tfprof-analyze overview $capture"
build/tfprof-analyze overview "$capture"
