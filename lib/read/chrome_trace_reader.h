// Reads Chrome trace event JSON (plain or gzip) into a Host: TensorFlow's
// `<host>.trace.json.gz`, TF1 `timeline.json`, PyTorch/Kineto and JAX traces.
//
// Mapping onto the model:
//   pid -> Plane (named by its process_name metadata, else "pid <pid>"),
//   tid -> Line (named by thread_name, else "tid <tid>"), X / B+E / i / I -> events,
//   args -> event stats (numbers as int64 or double, strings interned, nested
//   values kept as their JSON text), ts/dur (microseconds) -> picoseconds.
// Counter (C) samples go on a per-plane line named "_counters_"; async (b/e)
// pairs on per-category lines "async <cat>". Everything the reader cannot
// place (unmatched E, a B never ended, malformed events, unknown phases) is
// counted in the diagnostics.
#pragma once

#include <string>
#include <string_view>

#include "lib/model/diagnostics.h"
#include "lib/model/model.h"
#include "lib/read/read_options.h"

namespace tfprof {

// Throws InputError naming `path` when the file is unreadable, not JSON, or
// not a trace (no traceEvents array and not a bare event array).
Host ReadChromeTraceFile(const std::string& path, Diagnostics& diagnostics, const ReadOptions& options = {});

// The same from JSON text already in memory; `path` is used in messages.
Host ReadChromeTraceText(std::string_view json, const std::string& path, Diagnostics& diagnostics,
                         const ReadOptions& options = {});

}  // namespace tfprof
