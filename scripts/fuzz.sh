#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with clang (ASan + UBSan) in
# build-fuzz/ and runs each for SECONDS_PER_TARGET (default 60), seeded from
# testdata/captures/, testdata/bad/ and a few real captures of the shared
# corpus. Corpora and findings go to $FUZZ_WORK (default /tmp/tfprof-fuzz),
# outside the repository. Prints, per target, the executions run and the
# findings (crash-*, leak-*, timeout-*, oom-* files).
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#
# A finding is kept as a regression case by copying it (minimized with
# `build-fuzz/<target> -minimize_crash=1 -runs=10000 FILE`) into
# testdata/bad/fuzz/<target>-<name>; tests/read/bad_inputs_test.cc reads
# every file there through its reader.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(xplane_fuzzer chrome_json_fuzzer chrome_json_gzip_fuzzer discovery_fuzzer analyses_fuzzer rules_fuzzer)

bash scripts/setup.sh
need=()
command -v clang++ >/dev/null || need+=(clang)
compgen -G "/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" >/dev/null || need+=(libclang-rt-14-dev)
if [ ${#need[@]} -gt 0 ]; then
  echo "fuzz: installing ${need[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

BUILD_DIR=${FUZZ_BUILD_DIR:-build-fuzz}
# Each target links only the layers it reaches (CMakeLists.txt): building the
# reader targets alone compiles lib/model and lib/read alone.
CC=clang CXX=clang++ cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTFPROF_FUZZ=ON -DBUILD_TESTING=OFF >/dev/null
ninja -C "$BUILD_DIR" -j"${JOBS:-$(nproc)}" "${targets[@]}"

work=${FUZZ_WORK:-/tmp/tfprof-fuzz}
corpus_root=${TFPROF_CORPUS:-../shared/corpus}
mkdir -p "$work"

# put DIR: copies the files named on stdin into DIR, named by their path
# (real captures are all called tfprof-capture.*).
put() { while read -r f; do cp "$f" "$1/$(seed_name "$f")"; done; }
# A seed's file name: its path, folders joined by '_', without a leading
# "../" (which would make it a hidden file).
seed_name() { echo "$1" | sed 's#^\(\.\./\)*##' | tr '/' '_'; }

# A few small TensorFlow GPU captures of the corpus grouped when taken
# (group_id stats) with allocator events: no capture of testdata/ is, and
# only such a plane takes the reader's leave-out by groups.
grouped_captures() {
  local found=0
  while read -r f; do
    [ "$found" -lt 3 ] || break
    if grep -qa group_id "$f" && grep -qa MemoryAllocation "$f"; then
      echo "$f"
      found=$((found + 1))
    fi
  done < <(find "$corpus_root" -name '*.xplane.pb' -size -200k 2>/dev/null | sort)
}

seed() {  # seed TARGET DIR: fills DIR with the target's seed inputs.
  local target=$1 dir=$2
  mkdir -p "$dir"
  case $target in
    xplane_fuzzer)
      find testdata/captures -name '*.xplane.pb' -size -2M 2>/dev/null | put "$dir" || true
      for f in xprof_test_xplanes/tpu_inference_2.xplane.pb; do
        [ -f "$corpus_root/$f" ] && [ "$(stat -c %s "$corpus_root/$f")" -lt 4000000 ] && cp "$corpus_root/$f" "$dir/" || true
      done
      find testdata/bad -name '*xplane*' -type f -size -1M 2>/dev/null | put "$dir" || true
      grouped_captures | put "$dir" || true ;;
    chrome_json_fuzzer)
      find testdata/captures -name '*.json' -size -2M 2>/dev/null | put "$dir" || true
      find "$corpus_root/tf1_timelines" "$corpus_root/kineto" -name '*.json' -size -300k 2>/dev/null | head -5 | put "$dir" || true
      find testdata/bad -name '*.json' -type f -size -1M 2>/dev/null | put "$dir" || true ;;
    chrome_json_gzip_fuzzer)
      find testdata/captures -name '*.json.gz' -size -2M 2>/dev/null | put "$dir" || true
      find testdata/captures -name '*.xplane.pb' -size -300k | head -2 | while read -r f; do gzip -c "$f" >"$dir/$(basename "$f").gz"; done
      find testdata/bad -name '*.gz' -type f -size -1M 2>/dev/null | put "$dir" || true ;;
    discovery_fuzzer)
      # The input describes a tree (FuzzDiscovery in fuzz/fuzz_inputs.h):
      # [entries-1] then per entry [folder][name][kind][length:2][bytes].
      # Seeds: one real capture as plugins/profile/<run>/h.xplane.pb, and a
      # run folder with an xplane, a trace JSON and a dangling symlink.
      find testdata/captures -name '*.xplane.pb' -size -64k | head -2 | while read -r f; do
        { printf '\x00\x03\x00\x00\xff\xff'; cat "$f"; } >"$dir/$(seed_name "$f")"; done
      printf '\x02\x06\x00\x00\x00\x04\x0a\x02\x12\x00\x06\x02\x00\x00\x10{"traceEvents":[]}\x06\x06\x02\x00' >"$dir/run_folder" ;;
    analyses_fuzzer)
      # One mode byte (FuzzAnalyses in fuzz/fuzz_analyses.h), then a small
      # real capture: XSpace (even modes) or trace JSON (odd), with the
      # default, xprof and TF-legacy breakdowns and --whole-trace.
      find testdata/captures -name '*.xplane.pb' -size -400k | while read -r f; do
        for m in '\x00' '\x02' '\x04' '\x08'; do { printf "$m"; cat "$f"; } >"$dir/$(seed_name "$f")_$(printf "$m" | od -An -tx1 | tr -d ' ')"; done
      done
      find testdata/captures -name '*.json' -size -400k | while read -r f; do
        for m in '\x01' '\x11'; do { printf "$m"; cat "$f"; } >"$dir/$(seed_name "$f")_$(printf "$m" | od -An -tx1 | tr -d ' ')"; done
      done
      # Captures grouped when taken, read as `memory` alone reads them (the
      # host's other events left out by their group ids, the kept ones
      # reached by offsets): mode bytes 0x26, 0x66, 0xa6 and 0xe6 are
      # XSpace, the memory profile alone, the analysed stats, each compat
      # mode, chunks of 1 to 4 events.
      grouped_captures | while read -r f; do
        for m in '\x26' '\x66' '\xa6' '\xe6'; do { printf "$m"; cat "$f"; } >"$dir/$(seed_name "$f")_$(printf "$m" | od -An -tx1 | tr -d ' ')"; done
      done || true
      # Small PyTorch GPU traces (Kineto planes, correlations, ROCm launches).
      find "$corpus_root/hta" "$corpus_root/kineto" -name '*.json.gz' -size -30k 2>/dev/null | head -12 | while read -r f; do
        { printf '\x01'; gzip -dc "$f"; } >"$dir/$(seed_name "$f")_01" || true
      done ;;
    rules_fuzzer)
      # One mode byte (FuzzRules in fuzz/fuzz_rules.h), then: a rules file
      # (0), --max/--min arguments (1, 2), a --fail-if condition (3), or a
      # regex and a name, each a 2-byte length then bytes (4).
      printf '\x00# CI gate\noverview.input_percent <= 20\noptional kernels.tensor_core_time_percent >= 30 # GPU\nmemory.GPU_0_bfc.peak_heap_bytes < 6GiB\n' >"$dir/rules_file"
      printf '\x01overview.step_time_ms.avg=120' >"$dir/max_flag"
      printf '\x02overview.device_compute_percent=50%%' >"$dir/min_flag"
      printf '\x03overview.step_time_ms.avg>+5%%' >"$dir/fail_if_relative"
      printf '\x03overview.input_percent >= -2.5' >"$dir/fail_if_absolute"
      printf '\x04\x00\x10ProfilerStep#\\d+\x00\x0fProfilerStep#12' >"$dir/regex_step"
      printf '\x04\x00\x0bgemm.*float\x00\x1dvolta_sgemm_128x64_nn_float32' >"$dir/regex_kernel"
      printf '\x04\x00\x06(a+)+$\x00\x1baaaaaaaaaaaaaaaaaaaaaaaaaab' >"$dir/regex_nested" ;;
  esac
  # Earlier findings are seeds too.
  find testdata/bad/fuzz -name "${target}-*" -type f 2>/dev/null | put "$dir" || true
}

summary=()
for target in "${targets[@]}"; do
  corpus="$work/corpus/$target"
  findings="$work/findings/$target"
  seed "$target" "$corpus"
  mkdir -p "$findings"
  log="$work/$target.log"
  echo "fuzz: $target for ${seconds}s (corpus $corpus, log $log)"
  set +e
  "$BUILD_DIR/$target" "$corpus" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
    -max_len=262144 -artifact_prefix="$findings/" -print_final_stats=1 -fork=0 >"$log" 2>&1
  rc=$?
  set -e
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  found=$(find "$findings" -type f | wc -l)
  summary+=("$(printf '%-26s %5ss  %10s execs  %3s findings  (exit %s)' "$target" "$seconds" "${execs:-?}" "$found" "$rc")")
done
echo
printf '%s\n' "${summary[@]}"
echo "findings: $work/findings/<target>/ (minimize, then copy to testdata/bad/fuzz/<target>-<name>)"
