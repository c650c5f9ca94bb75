#!/usr/bin/env bash
# Command 2 of the README (and what CI runs): build, then run every test
# through ctest. The corpus tests read ../shared/corpus (or $TFPROF_CORPUS)
# and report "Skipped" when it is absent. Warnings are errors (TFPROF_WERROR).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh -DTFPROF_WERROR=ON
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j"$(nproc)" "$@"
