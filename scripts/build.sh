#!/usr/bin/env bash
# Installs dependencies (scripts/setup.sh) and builds into build/ (or $BUILD_DIR).
# Extra arguments go to cmake's configure step, e.g. -DTFPROF_SANITIZE=ON.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} "$@" >/dev/null
ninja -C "$BUILD_DIR" -j"$(nproc)"
