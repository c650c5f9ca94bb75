#!/usr/bin/env bash
# Runs clang-tidy with the checks of .clang-tidy over the sources of lib/ and
# tools/ (or the files named), with the compile commands of the build in
# build/ (or $BUILD_DIR; scripts/build.sh writes them). Any finding is an
# error: exits 1 after printing them all. $JOBS files at a time (default:
# all cores); $CLANG_TIDY names the binary (default clang-tidy, else
# clang-tidy-14; Debian: apt-get install clang-tidy).
#
#   scripts/tidy.sh [FILE.cc...]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
ct=${CLANG_TIDY:-}
if [ -z "$ct" ]; then
  for c in clang-tidy clang-tidy-14; do command -v "$c" >/dev/null && { ct=$c; break; }; done
fi
[ -n "$ct" ] || { echo "tidy: clang-tidy not found (apt-get install clang-tidy)" >&2; exit 1; }
[ -f "$BUILD_DIR/compile_commands.json" ] || bash scripts/build.sh >/dev/null

if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files -co --exclude-standard -- 'lib/*.cc' 'tools/*.cc' | sort)
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
printf '%s\n' "${files[@]}" |
  xargs -P "${JOBS:-$(nproc)}" -n 1 "$ct" -p "$BUILD_DIR" --quiet >"$log" 2>/dev/null || status=$?
grep -E ': (warning|error): ' "$log" | sort -u || true
if [ "$status" -ne 0 ]; then
  echo "tidy: findings above (checks: .clang-tidy)" >&2
  exit 1
fi
echo "tidy: ${#files[@]} files pass the checks of .clang-tidy"
