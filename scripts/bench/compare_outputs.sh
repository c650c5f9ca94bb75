#!/usr/bin/env bash
# Runs two builds of tfprof-analyze over the same captures and reports every
# command output that differs: how a speed change shows it changed no
# number. Each input (testdata/captures/*, testdata/bad/*, every capture file
# of the corpus,
# and any extra paths given) is read by every analysis command as JSON; the
# output, stderr and exit code of both binaries are compared byte for byte.
#
#   scripts/bench/compare_outputs.sh BASE_BINARY NEW_BINARY [EXTRA_INPUT...]
#
# COMPARE_OPTIONS adds options to every run (e.g. "--compat xprof").
#
# Prints "N runs, M differ" and the first lines of each difference; exits 1
# when any differ. Work files go to a temporary folder that is removed.
set -uo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 2 ] || { echo "usage: compare_outputs.sh BASE_BINARY NEW_BINARY [EXTRA_INPUT...]" >&2; exit 2; }
base=$1 new=$2
shift 2
corpus=${TFPROF_CORPUS:-../shared/corpus}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

inputs=()
for d in testdata/captures/*/; do inputs+=("$d"); done
for f in testdata/bad/*; do [ "${f##*/}" = README.md ] || inputs+=("$f"); done
if [ -d "$corpus" ]; then
  while IFS= read -r f; do inputs+=("$f"); done < <(find "$corpus" -type f \( -name '*.pb' -o -name '*.pb.gz' \
    -o -name '*.json' -o -name '*.json.gz' \) | sort)
fi
inputs+=("$@")

commands=(info overview op-stats placement kernel-stats steps input-pipeline memory tf-data metrics)
runs=0 differ=0
for input in "${inputs[@]}"; do
  for c in "${commands[@]}"; do
    for side in base new; do
      bin=$base
      [ "$side" = new ] && bin=$new
      "$bin" "$c" "$input" -f json ${COMPARE_OPTIONS:-} > "$work/$side.out" 2> "$work/$side.err"
      echo "exit $?" >> "$work/$side.err"
    done
    runs=$((runs + 1))
    if ! cmp -s "$work/base.out" "$work/new.out" || ! cmp -s "$work/base.err" "$work/new.err"; then
      differ=$((differ + 1))
      echo "DIFFERS: $c $input"
      { diff "$work/base.out" "$work/new.out"; diff "$work/base.err" "$work/new.err"; } | head -6
    fi
  done
done
echo "$runs runs, $differ differ"
[ "$differ" -eq 0 ]
