#!/usr/bin/env bash
# Times tfprof-analyze on the inputs that used to take quadratic (or worse)
# time, at 1x, 2x and 4x their size (scripts/bench/make_hostile_inputs.py
# says what each is). Linear work doubles the time per step; quadratic
# quadruples it.
#   scripts/bench/bench_quadratic.sh [TOOL] [SCALES...]
# TOOL defaults to build/tfprof-analyze (pass an older build to compare).
# Inputs go to $BENCH_DIR (default /tmp/tfprof-bench-quadratic), never into
# the repository. Each command is cut off after $BENCH_TIMEOUT s (300).
# $CASES (a regex, default all) picks cases by name.
set -euo pipefail
cd "$(dirname "$0")/../.."
TOOL=${1:-build/tfprof-analyze}
shift || true
SCALES=("${@:-1 2 4}")
BENCH_DIR=${BENCH_DIR:-/tmp/tfprof-bench-quadratic}
BENCH_TIMEOUT=${BENCH_TIMEOUT:-300}
CASES=${CASES:-.}
for s in ${SCALES[@]}; do
  [ -d "$BENCH_DIR/${s}x" ] || python3 scripts/bench/make_hostile_inputs.py "$BENCH_DIR" "$s"
done

# name | command arguments after the tool, with @ for the scale's folder |
# size, with % for the scale
cases=(
  "errors/warnings dedup|info @/errors.xplane.pb|40000x% distinct errors + warnings"
  "duplicate-host check|info @/hosts|100x% same-size hosts"
  "tf.data producer loop|tf-data @/tf_data.xplane.pb|100x% root calls"
  "self-symlink logdir|info --list-runs @/symlinks|6x% self-symlinks"
  "one worker's spans|info --list-runs @/spans|2000x% span files"
)
printf "%-24s %6s %10s %8s  %s\n" case scale wall_s exit size
for c in "${cases[@]}"; do
  IFS='|' read -r name args size <<< "$c"
  [[ "$name" =~ $CASES ]] || continue
  for s in ${SCALES[@]}; do
    dir="$BENCH_DIR/${s}x"
    start=$(date +%s.%N)
    set +e
    timeout "$BENCH_TIMEOUT" "$TOOL" ${args//@/$dir} > /dev/null 2> "$BENCH_DIR/stderr.txt"
    rc=$?
    set -e
    end=$(date +%s.%N)
    wall=$(python3 -c "print(f'{$end - $start:.2f}')")
    [ "$rc" = 124 ] && wall=">$BENCH_TIMEOUT"
    printf "%-24s %5sx %10s %8s  %s\n" "$name" "$s" "$wall" "$rc" "${size//%/$s}"
  done
done
