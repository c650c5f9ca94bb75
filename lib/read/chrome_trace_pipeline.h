// The Chrome trace reader's three stages on their own threads:
//
//   scanner (one thread)   cuts the traceEvents array into runs of whole
//                          elements (chrome_trace_scanner.h), copying each
//                          run out of its buffer;
//   parsers (a few)        decode a run each into RawTraceEvents with
//                          simdjson (chrome_trace_decoder.h), keeping the
//                          events, the problems counted and their text;
//   the calling thread     hands the runs' events to the ChromeTraceBuilder
//                          in file order, then recycles the runs.
//
// The builder sees exactly the calls a single thread would make, in the
// same order (events and counts interleaved as the parser met them), so
// the model and its diagnostics do not depend on the number of threads or
// on their timing. So does the error: a run's parse error is raised where
// the run's events end, a scanner error after every run before it, and a
// builder error (the memory budget) stops the other threads first.
// At most a few runs (a few hundred KB of JSON each) are in flight.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "lib/read/byte_source.h"
#include "lib/read/chrome_trace_builder.h"
#include "lib/read/chrome_trace_scanner.h"

namespace tfprof {

// The top-level values besides traceEvents that the reader wants (called
// on the scanner's thread, one at a time, before the read returns).
class TopLevelValueSink {
 public:
  virtual bool WantsTopLevelValue(std::string_view key) = 0;
  virtual void OnTopLevelValue(std::string_view key, std::string_view raw_json) = 0;

 protected:
  ~TopLevelValueSink() = default;
};

// Reads `input` (named `path` in errors) into `builder` and the top-level
// values into `top`. `parsers`: decoding threads (0: one per core, at most
// three); `block_bytes`: the scanner's read size, about a run's (tests cut
// small inputs into many runs with it). Throws InputError as a
// single-threaded read would.
TraceScanResult ReadTraceEvents(const std::string& path, ChunkReader& input, TopLevelValueSink& top,
                                ChromeTraceBuilder& builder, unsigned parsers = 0,
                                size_t block_bytes = TraceJsonScanner::kDefaultBlockBytes);

}  // namespace tfprof
