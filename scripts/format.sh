#!/usr/bin/env bash
# Formats the C++ sources of lib/, tools/, tests/, fuzz/ and bench/ with
# clang-format and the repository's .clang-format, in place.
#
#   scripts/format.sh           format every file in place
#   scripts/format.sh --check   change nothing; list the files that differ
#                               and exit 1 if there is any (for CI)
#
# $CLANG_FORMAT names the binary (default: clang-format, else clang-format-14;
# Debian: apt-get install clang-format).
set -euo pipefail
cd "$(dirname "$0")/.."
check=0
case "${1:-}" in
  --check) check=1 ;;
  "") ;;
  *) echo "usage: scripts/format.sh [--check]" >&2; exit 2 ;;
esac
cf=${CLANG_FORMAT:-}
if [ -z "$cf" ]; then
  for c in clang-format clang-format-14; do command -v "$c" >/dev/null && { cf=$c; break; }; done
fi
if [ -z "$cf" ]; then
  echo "format: clang-format not found (apt-get install clang-format; scripts/setup.sh installs it)" >&2
  # As a ctest (--check) an absent tool is a skip (77), not a failure.
  [ "$check" -eq 1 ] && exit 77
  exit 1
fi

mapfile -t files < <(git ls-files -co --exclude-standard -- 'lib/*.h' 'lib/*.cc' 'tools/*.h' 'tools/*.cc' \
  'tests/*.h' 'tests/*.cc' 'fuzz/*.h' 'fuzz/*.cc' 'bench/*.cc' | sort)
if [ "$check" -eq 0 ]; then
  "$cf" -i --style=file "${files[@]}"
  exit 0
fi
differ=0
for f in "${files[@]}"; do
  if ! "$cf" --style=file "$f" | cmp -s - "$f"; then
    echo "$f"
    differ=$((differ + 1))
  fi
done
if [ "$differ" -gt 0 ]; then
  echo "format: $differ file(s) differ from .clang-format; run scripts/format.sh" >&2
  exit 1
fi
echo "format: ${#files[@]} files follow .clang-format"
