#!/usr/bin/env bash
# The scale-out benchmark (docs/scale-out.md): a run of N synthetic hosts,
# each the corpus' T4 Keras capture (215 KB, 1 GPU) with its own host name
# (an XSpace `hostnames` entry appended, so no two files are alike), read
#   1. in one process:        tfprof-analyze metrics RUN
#   2. on Dask (2 workers):   scripts/scale_out/dask_run.py RUN -o run.tfsum
#   3. combine alone:         tfprof-analyze combine SUMMARIES/ -o run.tfsum
#      (the per-host summaries made beforehand by `summarize`, 2 at a time)
# and prints wall time and peak RSS of each (GNU time: the largest process
# of the step), the size of one summary against its capture, and checks that
# `metrics` of both summaries equals `metrics` of the run.
#
# Usage: scripts/bench/bench_scale_out.sh [N ...]     (default: 256 1024)
# Needs: build/tfprof-analyze, .venv-scale-out (scripts/scale_out/setup_venv.sh),
# the corpus (TFPROF_CORPUS, default ../shared/corpus). Files go under
# $BENCH_DIR (default /tmp/tfprof-bench/scale_out), never in the repository.
set -euo pipefail
cd "$(dirname "$0")/../.."
tool="$PWD/build/tfprof-analyze"
py="$PWD/.venv-scale-out/bin/python"
corpus="${TFPROF_CORPUS:-../shared/corpus}"
capture="$corpus/e4040-2023fall-assign2-hd2551/logs/fit/20231107-184716/train/plugins/profile/2023_11_07_18_47_18/instance-2.xplane.pb"
bench="${BENCH_DIR:-/tmp/tfprof-bench/scale_out}"
[ -x "$tool" ] || { echo "bench_scale_out: build first (scripts/build.sh)" >&2; exit 1; }
[ -x "$py" ] || { echo "bench_scale_out: run scripts/scale_out/setup_venv.sh first" >&2; exit 1; }
[ -f "$capture" ] || { echo "bench_scale_out: corpus capture missing: $capture" >&2; exit 77; }
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(256 1024)

# "wall_s peak_MiB" of a command (its output to /dev/null).
measure() {
  /usr/bin/time -f "%e %M" -o "$bench/time.txt" "$@" >/dev/null 2>"$bench/err.txt" ||
    { cat "$bench/err.txt" >&2; exit 1; }
  awk '{printf "%.2f %.0f", $1, $2 / 1024}' "$bench/time.txt"
}

printf "| hosts | capture total | one process: metrics | Dask, 2 workers: dask_run.py | combine alone | summary / capture |\n"
printf "|---|---|---|---|---|---|\n"
for n in "${sizes[@]}"; do
  run="$bench/run_$n/plugins/profile/run"
  sums="$bench/summaries_$n"
  if [ ! -d "$run" ] || [ "$(ls "$run" | wc -l)" != "$n" ]; then
    rm -rf "$bench/run_$n"
    mkdir -p "$run"
    python3 - "$capture" "$run" "$n" <<'EOF'
import sys
capture, run, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(capture, "rb").read()
for i in range(n):
    name = f"host-{i:05d}".encode()
    # XSpace field 4 (hostnames), length-delimited: appended, it adds one entry.
    with open(f"{run}/host-{i:05d}.xplane.pb", "wb") as f:
        f.write(data + bytes([0x22, len(name)]) + name)
EOF
  fi
  rm -rf "$sums"; mkdir -p "$sums"
  ls "$run" | xargs -P 2 -I{} "$tool" summarize "$run/{}" -o "$sums/{}.tfsum"
  total_mb=$(du -sm "$run" | cut -f1)
  one=$(measure "$tool" metrics "$run")
  dask_start=$(date +%s.%N)
  dask=$(measure "$py" scripts/scale_out/dask_run.py --workers 2 --tool "$tool" "$run" -o "$bench/dask_$n.tfsum")
  combine=$(measure "$tool" combine "$sums" -o "$bench/combined_$n.tfsum")
  cmp "$bench/dask_$n.tfsum" "$bench/combined_$n.tfsum"
  diff <("$tool" metrics "$run") <("$tool" metrics "$bench/dask_$n.tfsum") >/dev/null ||
    { echo "bench_scale_out: metrics of the Dask summary differ from the run's" >&2; exit 1; }
  one_size=$(stat -c %s "$sums/host-00000.xplane.pb.tfsum")
  cap_size=$(stat -c %s "$run/host-00000.xplane.pb")
  run_size=$(stat -c %s "$bench/dask_$n.tfsum")
  read -r ow om <<<"$one"; read -r dw dm <<<"$dask"; read -r cw cm <<<"$combine"
  printf "| %d | %d MB | %s s, %s MiB | %s s, %s MiB | %s s, %s MiB (run summary %.1f MB) | %d / %d B (%.1f%%) |\n" \
    "$n" "$total_mb" "$ow" "$om" "$dw" "$dm" "$cw" "$cm" "$(echo "$run_size / 1000000" | bc -l)" \
    "$one_size" "$cap_size" "$(echo "100 * $one_size / $cap_size" | bc -l)"
done
echo "(metrics of each Dask summary = metrics of its run; the Dask summary = combine of the per-host summaries, byte for byte)"
