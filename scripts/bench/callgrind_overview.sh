#!/usr/bin/env bash
# Instructions executed by one command under callgrind: the stable figure to
# compare commits by: wall time varies 2x between runs on a shared machine,
# the instruction count does not depend on the load (valgrind runs the
# program's threads one at a time; see docs/performance.md for its spread).
#
#   scripts/bench/callgrind_overview.sh [FILE] [COMMAND] [BINARY]
#
# Defaults: $BENCH_DIR/big_100.xplane.pb (BENCH_DIR defaults to
# /tmp/tfprof-bench; bench_speed.sh --sizes 100 makes it), overview,
# build/tfprof-analyze.  Runs `BINARY COMMAND FILE -f json -o /dev/null`
# under valgrind --tool=callgrind (~100x slower than native: 3 minutes at
# 100 MiB), then prints the total instruction count (Ir) on one line and the
# 15 functions with the most instructions of their own (callgrind_annotate).
# The callgrind output stays in $BENCH_DIR/callgrind/ for callgrind_annotate
# or kcachegrind.
set -euo pipefail
cd "$(dirname "$0")/../.."
bench_dir=${BENCH_DIR:-/tmp/tfprof-bench}
file=${1:-$bench_dir/big_100.xplane.pb}
command=${2:-overview}
binary=${3:-build/tfprof-analyze}

for tool in valgrind callgrind_annotate; do
  command -v "$tool" >/dev/null || { echo "callgrind_overview: $tool missing (apt-get install valgrind)" >&2; exit 2; }
done
[ -x "$binary" ] || { echo "callgrind_overview: $binary missing: ninja -C build tfprof-analyze" >&2; exit 2; }
[ -f "$file" ] || { echo "callgrind_overview: $file missing: scripts/bench/bench_speed.sh --sizes 100 --inputs xplane makes it" >&2; exit 2; }

mkdir -p "$bench_dir/callgrind"
out="$bench_dir/callgrind/$(basename "$file").$command.$(date -u +%Y%m%dT%H%M%S).out"
# callgrind's defaults: no cache simulation, counts per function only.
valgrind --tool=callgrind --callgrind-out-file="$out" \
  "$binary" "$command" "$file" -f json -o /dev/null 2> "$out.log" || {
  echo "callgrind_overview: valgrind failed, see $out.log" >&2; exit 1; }

total=$(awk '/^summary:/ {print $2}' "$out")
grouped=$(echo "$total" | sed -E ':a; s/([0-9])([0-9]{3})($|,)/\1,\2\3/; ta')
printf 'Ir %s  (%s; %s %s %s; %s)\n' "$total" "$grouped" "$(basename "$binary")" "$command" "$file" "$out"
# Own (exclusive) cost per function, top 15: "Ir (share) function", without
# the source file and object (the function names say enough), cut to 200.
callgrind_annotate --threshold=100 "$out" 2>/dev/null |
  grep -E '^ *[0-9,]+ \( *[0-9.]+%\) ' | grep -v 'PROGRAM TOTALS' | awk 'NR <= 15' |
  sed -E 's/^( *[0-9,]+ \( *[0-9.]+%\))  [^:]*:/\1  /; s/ \[[^]]*\]$//' | cut -c1-200
