#!/usr/bin/env bash
# Reading speed and memory of `tfprof-analyze info` on large XSpace captures
# made from a real one (its lines' events repeated with shifted times).
#   scripts/bench/bench_xplane.sh [SOURCE.xplane.pb] [SIZES_MIB...]
# Writes the captures to $BENCH_DIR (default /tmp/tfprof-bench), never into
# the repository. Prints MB/s, user/system CPU and peak memory per size.
set -euo pipefail
cd "$(dirname "$0")/../.."
SRC=${1:-../shared/corpus/e4040-2023fall-assign2-hd2551/logs/fit/20231107-184716/train/plugins/profile/2023_11_07_18_47_18/instance-2.xplane.pb}
shift || true
SIZES=("${@:-1024 2300}")
BENCH_DIR=${BENCH_DIR:-/tmp/tfprof-bench}
BUILD_DIR=${BUILD_DIR:-build}
mkdir -p "$BENCH_DIR"
bash scripts/build.sh >/dev/null
ninja -C "$BUILD_DIR" make_big_xplane >/dev/null
printf "%-10s %10s %8s %8s %8s %10s %10s %8s\n" size_MiB events wall_s user_s sys_s MB_per_s peak_MiB peak/file
for mib in ${SIZES[@]}; do
  out="$BENCH_DIR/big_${mib}.xplane.pb"
  [ -f "$out" ] || "$BUILD_DIR/make_big_xplane" "$SRC" "$mib" "$out" 2>/dev/null
  bytes=$(stat -c %s "$out")
  cat "$out" > /dev/null  # Warm the page cache: measure parsing, not the disk.
  /usr/bin/time -v "$BUILD_DIR/tfprof-analyze" info "$out" -f json -o "$BENCH_DIR/info.json" 2> "$BENCH_DIR/time.txt"
  wall=$(awk -F': ' '/Elapsed/ {split($2,a,":"); print a[1]*60+a[2]}' "$BENCH_DIR/time.txt")
  user=$(awk -F': ' '/User time/ {print $2}' "$BENCH_DIR/time.txt")
  sys=$(awk -F': ' '/System time/ {print $2}' "$BENCH_DIR/time.txt")
  rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$BENCH_DIR/time.txt")
  events=$(python3 -c "import json;d=json.load(open('$BENCH_DIR/info.json'));print(sum(h['events'] for h in d['tables']['hosts']))")
  python3 - "$mib" "$events" "$wall" "$user" "$sys" "$bytes" "$rss" <<'PY'
import sys
mib, events, wall, user, sys_, size, rss = sys.argv[1:]
wall = float(wall); size = int(size); rss = int(rss) * 1024
print(f"{int(size/2**20):<10} {int(events):>10} {wall:>8.2f} {float(user):>8.2f} {float(sys_):>8.2f} "
      f"{size/1e6/wall:>10.0f} {rss/2**20:>10.0f} {rss/size:>8.2f}")
PY
done
