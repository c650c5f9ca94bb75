#!/usr/bin/env bash
# Two builds of tfprof-analyze timed against each other on one capture, run
# by turns (A, B, A, B, ...): wall time on these shared 2-vCPU machines
# varies 2x over minutes, so only runs alternated in one sitting compare.
# The instruction count (callgrind_overview.sh) is the stable figure; this
# is the wall-clock check beside it.
#
#   scripts/bench/ab_wall.sh A_BINARY B_BINARY FILE ROUNDS COMMAND...
#
# e.g. scripts/bench/ab_wall.sh /tmp/old build/tfprof-analyze \
#        /tmp/tfprof-bench/big_1024.xplane.pb 5 overview memory
#
# Each run is `BINARY COMMAND FILE -o /dev/null` under /usr/bin/time. Prints,
# per command and binary, the median wall time with its range, the median
# user and system CPU (the kernel's share: page faults, zeroing, unmapping)
# and the largest peak RSS.
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
for command in "$@"; do
  for ((r = 1; r <= rounds; ++r)); do
    for side in A B; do
      bin=$a
      [ "$side" = B ] && bin=$b
      # %e wall s, %U user s, %M peak KB, %S system s; the command's own
      # output goes away.
      /usr/bin/time -f "$command $side %e %U %M %S" -o "$results.one" "$bin" "$command" "$file" -o /dev/null \
        >/dev/null 2>&1 || { echo "ab_wall: $bin $command $file failed" >&2; exit 1; }
      cat "$results.one" >> "$results"
    done
  done
done
rm -f "$results.one"
echo "A: $a" >&2
echo "B: $b" >&2
# Median of each column per (command, side), in the order the commands were given.
awk -v order="$*" '
  { key = $1 " " $2; n[key]++; wall[key, n[key]] = $3; user[key, n[key]] = $4; sys[key, n[key]] = $6
    if ($5 > rss[key]) rss[key] = $5 }
  function median(arr, key, count,   i, j, t, v) {
    for (i = 1; i <= count; i++) v[i] = arr[key, i]
    for (i = 2; i <= count; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    lo = v[1]; hi = v[count]
    return count % 2 ? v[(count + 1) / 2] : (v[count / 2] + v[count / 2 + 1]) / 2
  }
  END {
    split(order, commands, " ")
    printf "%-16s %-4s %-24s %-12s %-14s %s\n", "command", "side", "wall median (min-max)", "user median", \
      "system median", "peak RSS"
    for (c = 1; c in commands; c++) for (s = 0; s < 2; s++) {
      key = commands[c] " " (s ? "B" : "A")
      w = median(wall, key, n[key]); wlo = lo; whi = hi
      u = median(user, key, n[key])
      y = median(sys, key, n[key])
      printf "%-16s %-4s %.2f s (%.2f-%.2f)%8s %.2f s%6s %.2f s%9s %d MiB\n", commands[c], (s ? "B" : "A"), w, wlo, whi, "", u, "",
        y, "", rss[key] / 1024
    }
  }' "$results"
