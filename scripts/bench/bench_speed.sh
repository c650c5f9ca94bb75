#!/usr/bin/env bash
# Issue #16's benchmark: tfprof-analyze against the reference analysers on the
# same large captures, back to back in one run.
#
#   scripts/bench/bench_speed.sh [options]      (options: bench_speed.py --help)
#
#   --sizes 100,1024        MiB of each input (default both)
#   --inputs xplane,tfcpu,kineto,tfjson     (jax too when named)
#   --commands overview,kernel-stats,...        (default: all that apply)
#   --reps 3                best of N for ours, and for the references of
#                           inputs up to 256 MiB (--ref-reps-max-mib; one above)
#   --ref-reps N            best of N for every reference instead
#   --skip-ref xprof,hta|all
#
# Inputs (made when missing, under $BENCH_DIR, default /tmp/tfprof-bench, never
# in the repository): big_<MiB>.xplane.pb (build/make_big_xplane from the T4
# Keras capture of the corpus, grouped when taken), tfcpu_<MiB>.xplane.pb (the
# same from testdata/captures/tf_memory, a current TF CPU capture that every
# grouping command groups itself; its link ids renumbered per copy),
# jax_<MiB>.xplane.pb (the same from the corpus's MI300X JAX attention
# capture: no step names, XLA's allocator events; only with --inputs jax),
# kineto_<MiB>.json (make_big_json.py from an A100
# Kineto trace of the corpus), tfjson_<MiB>.json (the same from the T4 run's
# TensorFlow trace.json.gz).
# Per input it runs ours (`build/tfprof-analyze CMD FILE -f json -o /dev/null`:
# info, overview, op-stats, kernel-stats, input-pipeline, memory on the xplane
# (no kernel-stats on the CPU one);
# info, overview, op-stats (+ kernel-stats on Kineto) on the JSON), then the
# reference: xprof 2.24.2 (overview_page, framework_op_stats, kernel_stats,
# input_pipeline_analyzer, memory_profile) on the xplane, HolisticTraceAnalysis
# (temporal and kernel breakdown) on the Kineto trace; the TF trace.json has no
# reference. Prints the table and writes $BENCH_DIR/speed.md and speed.json.
#
# A reference runs only when MemAvailable is at least 16x the file + 2 GiB
# (xprof took 14.6 GiB on 1 GiB); otherwise its cell says "skipped".
# Quick run: scripts/bench/bench_speed.sh --sizes 100 --inputs xplane --reps 1
set -euo pipefail
cd "$(dirname "$0")/../.."

[ -x build/tfprof-analyze ] || {
  echo "bench_speed: build/tfprof-analyze missing: run scripts/build.sh (or ninja -C build tfprof-analyze)" >&2
  exit 2
}
[ -x /usr/bin/time ] || { echo "bench_speed: /usr/bin/time missing (apt-get install time)" >&2; exit 2; }

skip_all=false
prev=""
for arg in "$@"; do
  if { [ "$prev" = "--skip-ref" ] && [ "$arg" = "all" ]; } || [ "$arg" = "--skip-ref=all" ]; then
    skip_all=true
  fi
  prev="$arg"
done
if ! $skip_all; then
  # Idempotent: a second run only compares a hash.
  bash scripts/bench/setup_bench_venv.sh >&2
fi
exec python3 scripts/bench/bench_speed.py "$@"
