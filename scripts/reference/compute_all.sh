#!/usr/bin/env bash
# Computes xprof reference outputs for every run folder of
#   * our own captures:  testdata/captures/**/plugins/profile/<run>/
#       -> testdata/reference/captures/<run folder path relative to testdata/captures>/
#   * the shared corpus: ../shared/corpus/*/logs/fit/*/train/plugins/profile/<run>/
#     and ../shared/corpus/tfprofiler_demo/plugins/profile/<run>/ (when it holds
#     an xplane)
#       -> testdata/reference/corpus/<run folder path relative to the corpus>/
# Each output folder gets overview_page, input_pipeline_analyzer,
# framework_op_stats, kernel_stats, memory_profile (xprof, .venv/) and
# tf_data_bottleneck_analysis (tensorboard-plugin-profile 2.19.0,
# .venv-tfdata/) as <tool>.json, or <tool>.error.txt when xprof fails, plus
# versions.json.  Corpus files are only read (through a temporary copy) and
# never copied into the repo.
#
# Usage: scripts/reference/compute_all.sh [captures|corpus|all]   (default all)
# Environment: CORPUS=path to the corpus (default ../shared/corpus next to the repo)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
corpus="${CORPUS:-$root/../shared/corpus}"
which="${1:-all}"
main_py="$root/.venv/bin/python"
tfdata_py="$root/.venv-tfdata/bin/python"
for py in "$main_py" "$tfdata_py"; do
  [ -x "$py" ] || { echo "compute_all: $py missing; run scripts/reference/setup_venv.sh" >&2; exit 1; }
done
log="${TMPDIR:-/tmp}/compute_all.log"
: > "$log"

failures=0
convert() {  # convert RUN_FOLDER OUT_DIR LABEL
  local run="$1" out="$2" label="$3"
  mkdir -p "$out"
  echo "--- $label" | tee -a "$log"
  # xprof's C++ code logs at INFO level to stderr: keep that in the log file.
  "$main_py" "$here/compute_reference.py" "$run" "$out" --label "$label" >>"$log" 2>&1 ||
    { echo "compute_all: xprof tools failed for $label (see $log)" >&2; failures=$((failures+1)); }
  "$tfdata_py" "$here/compute_reference.py" "$run" "$out" --label "$label" \
      --tool tf_data_bottleneck_analysis >>"$log" 2>&1 ||
    { echo "compute_all: tf_data_bottleneck_analysis failed for $label (see $log)" >&2; failures=$((failures+1)); }
  # Report conversions that failed (their <tool>.error.txt files).
  local f
  for f in "$out"/*.error.txt; do
    [ -e "$f" ] || continue
    echo "    ERROR $(basename "${f%.error.txt}"): $(head -c 200 "$f")"
  done
}

# run_folders BASE FIND_ARGS... : prints the distinct folders (relative to
# BASE) that directly hold *.xplane.pb files matching the find expression.
run_folders() {
  local base="$1"; shift
  ( cd "$base" && find . "$@" -name '*.xplane.pb' -printf '%h\n' | sed 's|^\./||' | sort -u )
}

if [ "$which" = "captures" ] || [ "$which" = "all" ]; then
  rm -rf "$root/testdata/reference/captures"
  while IFS= read -r rel; do
    convert "$root/testdata/captures/$rel" "$root/testdata/reference/captures/$rel" "captures/$rel"
  done < <(run_folders "$root/testdata/captures" -path '*/plugins/profile/*')
fi

if [ "$which" = "corpus" ] || [ "$which" = "all" ]; then
  if [ ! -d "$corpus" ]; then
    echo "compute_all: corpus $corpus not found, skipping" >&2
  else
    corpus="$(cd "$corpus" && pwd)"
    rm -rf "$root/testdata/reference/corpus"
    while IFS= read -r rel; do
      convert "$corpus/$rel" "$root/testdata/reference/corpus/$rel" "corpus/$rel"
    done < <(run_folders "$corpus" \( -path './*/logs/fit/*/train/plugins/profile/*' \
                                       -o -path './tfprofiler_demo/*' \))
  fi
fi

echo "compute_all: done, $failures failed invocation(s); full log in $log"
