#!/usr/bin/env bash
# Command 2 of the README (and what CI runs): build, then run every test
# through ctest. The corpus tests read ../shared/corpus (or $TFPROF_CORPUS)
# and report "Skipped" when it is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j"$(nproc)" "$@"
