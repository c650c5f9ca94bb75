#!/bin/sh
# Builds scripts/bench/chrome_trace_bench.cc against just the files the Chrome
# trace reader needs, into $OUT (default /tmp/chrome_trace_bench), with the
# flags in $OPT (default "-O2 -g", as RelWithDebInfo; "-O3" as Release).
#
#   scripts/bench/build_json_bench.sh
#   scripts/bench/make_big_json.py TRACE.json.gz /tmp/big_trace.json --size-mb 1024
#   /usr/bin/time -v /tmp/chrome_trace_bench /tmp/big_trace.json
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-/tmp/chrome_trace_bench}
OPT=${OPT:-"-O2 -g"}
# shellcheck disable=SC2086
g++ -std=c++20 $OPT -DNDEBUG -I"$ROOT" \
  "$ROOT/scripts/bench/chrome_trace_bench.cc" \
  "$ROOT"/lib/read/chrome_trace_*.cc "$ROOT/lib/read/byte_source.cc" "$ROOT/lib/read/memory_budget.cc" \
  "$ROOT/lib/model/model.cc" "$ROOT/lib/model/diagnostics.cc" \
  -o "$OUT" -lsimdjson -lisal -labsl_hash -labsl_city -labsl_low_level_hash -labsl_raw_hash_set
echo "$OUT"
