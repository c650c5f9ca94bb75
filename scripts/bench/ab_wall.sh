#!/usr/bin/env bash
# Two builds of tfprof-analyze timed against each other on one capture, run
# by turns (A, B, then B, A, and so on, so that neither side always runs
# second): wall time on these shared 2-vCPU machines varies 2x over
# minutes, so only runs alternated in one sitting compare.
# The instruction count (callgrind_overview.sh) is the stable figure; this
# is the wall-clock check beside it.
#
#   scripts/bench/ab_wall.sh A_BINARY B_BINARY FILE ROUNDS COMMAND...
#
# e.g. scripts/bench/ab_wall.sh /tmp/old build/tfprof-analyze \
#        /tmp/tfprof-bench/big_1024.xplane.pb 5 overview memory
#
# Each run is `BINARY COMMAND FILE -o /dev/null` under /usr/bin/time. Prints,
# per command and binary, the median wall time in milliseconds with its
# range (from the clock's nanoseconds around each run: /usr/bin/time's own
# wall figure is in hundredths of a second, too coarse for the 40-110 ms
# runs at 100 MB), the median user and system CPU (the kernel's share: page
# faults, zeroing, unmapping; hundredths of a second), the largest peak
# RSS, and B's median wall over A's.
set -euo pipefail
if [ $# -lt 5 ]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
a=$1 b=$2 file=$3 rounds=$4
shift 4
for bin in "$a" "$b"; do
  [ -x "$bin" ] || { echo "ab_wall: $bin is not an executable" >&2; exit 2; }
done
[ -f "$file" ] || { echo "ab_wall: $file missing" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "ab_wall: /usr/bin/time missing (apt-get install time)" >&2; exit 2; }
case $rounds in '' | *[!0-9]* | 0) echo "ab_wall: ROUNDS must be a positive number" >&2; exit 2 ;; esac

results=$(mktemp)
trap 'rm -f "$results"' EXIT
echo "ab_wall: $file, $rounds rounds; load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
# The file into the page cache first: a cold first run reads it from disk
# (these VMs page cold file cache out within minutes).
cat "$file" > /dev/null
for command in "$@"; do
  for ((r = 1; r <= rounds; ++r)); do
    sides="A B"
    ((r % 2 == 0)) && sides="B A"
    for side in $sides; do
      bin=$a
      [ "$side" = B ] && bin=$b
      # %U user s, %M peak KB, %S system s; the command's own output goes
      # away. The wall is taken around /usr/bin/time, whose start costs
      # both sides the same.
      start=$(date +%s%N)
      /usr/bin/time -f "%U %M %S" -o "$results.one" "$bin" "$command" "$file" -o /dev/null \
        >/dev/null 2>&1 || { echo "ab_wall: $bin $command $file failed" >&2; exit 1; }
      end=$(date +%s%N)
      echo "$command $side $(((end - start) / 1000)) $(cat "$results.one")" >> "$results"
    done
  done
done
rm -f "$results.one"
echo "A: $a" >&2
echo "B: $b" >&2
# Median of each column per (command, side), in the order the commands were
# given; the wall is in microseconds in $results.
awk -v order="$*" '
  { key = $1 " " $2; n[key]++; wall[key, n[key]] = $3 / 1000; user[key, n[key]] = $4; sys[key, n[key]] = $6
    if ($5 > rss[key]) rss[key] = $5 }
  function median(arr, key, count,   i, j, t, v) {
    for (i = 1; i <= count; i++) v[i] = arr[key, i]
    for (i = 2; i <= count; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    lo = v[1]; hi = v[count]
    return count % 2 ? v[(count + 1) / 2] : (v[count / 2] + v[count / 2 + 1]) / 2
  }
  END {
    split(order, commands, " ")
    printf "%-16s %-4s %-28s %-12s %-14s %-10s %s\n", "command", "side", "wall median (min-max)", "user median", \
      "system median", "peak RSS", "B/A wall"
    for (c = 1; c in commands; c++) {
      for (s = 0; s < 2; s++) {
        key = commands[c] " " (s ? "B" : "A")
        w = median(wall, key, n[key]); wlo = lo; whi = hi
        if (s == 0) wa = w
        u = median(user, key, n[key])
        y = median(sys, key, n[key])
        printf "%-16s %-4s %8.1f ms (%.1f-%.1f)%4s %.2f s%6s %.2f s%9s %4d MiB", commands[c], (s ? "B" : "A"), w, wlo, \
          whi, "", u, "", y, "", rss[key] / 1024
        if (s == 1 && wa > 0) printf "   %.3f", w / wa
        printf "\n"
      }
    }
  }' "$results"
