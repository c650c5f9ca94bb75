#!/bin/sh
# Builds scripts/bench/chrome_trace_bench.cc against just the files the Chrome
# trace reader needs, optimised like the Release build, into $OUT (default
# /tmp/chrome_trace_bench).
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-/tmp/chrome_trace_bench}
g++ -std=c++20 -O2 -g -DNDEBUG -I"$ROOT" \
  "$ROOT/scripts/bench/chrome_trace_bench.cc" \
  "$ROOT"/lib/read/chrome_trace_*.cc "$ROOT/lib/read/byte_source.cc" \
  "$ROOT/lib/model/model.cc" "$ROOT/lib/model/diagnostics.cc" \
  -o "$OUT" -lsimdjson -lisal -labsl_hash -labsl_city -labsl_low_level_hash -labsl_raw_hash_set
echo "$OUT"
