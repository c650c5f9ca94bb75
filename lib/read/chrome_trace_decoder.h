// Decodes runs of trace event objects with simdjson On-Demand into
// RawTraceEvents and hands each to a TraceEventSink (a run that keeps them
// for the ChromeTraceBuilder: chrome_trace_pipeline.h). This is the reader's
// hottest code: values are dispatched on their first byte and strings and
// numbers are taken from the JSON text where they lie (simdjson has already
// validated the structure, strings and UTF-8), so most values cost no copy.
#pragma once

#include <simdjson.h>

#include <cstddef>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "lib/read/chrome_trace_builder.h"

namespace tfprof {

// Where the parser puts what it decodes, in document order: events, and
// the problems it counts (ChromeTraceBuilder::Count's arguments).
class TraceEventSink {
 public:
  // The slot the next event is decoded into (its previous content left
  // as it was: the parser clears it), and its addition: a slot not
  // committed is handed out again.
  virtual RawTraceEvent& NextEvent() = 0;
  virtual void Commit() = 0;
  virtual void Count(TraceDiag kind, std::string_view example = {}, uint64_t n = 1) = 0;
  // Where text the events' views point into is kept (strings with escapes,
  // unescaped): as long as the events themselves.
  virtual std::deque<std::string>& Strings() = 0;

 protected:
  ~TraceEventSink() = default;
};

class TraceEventParser {
 public:
  // `args`: which args to keep (null: all); it outlives the parser.
  explicit TraceEventParser(const TraceArgFilter* args = nullptr) : arg_filter_(args) {}

  // Parses json[0, length), a JSON array of trace events, with at least
  // simdjson::SIMDJSON_PADDING readable bytes after it (`capacity` counts
  // them), handing each event to `sink`. `*done` counts the elements fully
  // handled, so that a caller can retry the rest after an error.
  simdjson::error_code ParseArray(TraceEventSink& sink, const char* json, size_t length, size_t capacity, size_t* done);

 private:
  using od_value = simdjson::ondemand::value;
  simdjson::error_code DecodeElement(od_value& value);
  simdjson::error_code DecodeField(const char* key, od_value& value);  // key: just past its opening quote
  simdjson::error_code DecodeText(od_value& value, std::string_view* out);
  simdjson::error_code DecodeId(od_value& value, TraceId* out);
  simdjson::error_code DecodeTime(od_value& value, TraceField* out);
  simdjson::error_code DecodeEventId(od_value& value);
  simdjson::error_code DecodeBindId(od_value& value);
  simdjson::error_code DecodeFlag(od_value& value, bool* out);
  simdjson::error_code DecodeArgs(od_value& value);
  simdjson::error_code DecodeValue(od_value& value, TraceArg* arg);
  simdjson::error_code DecodeEntries(od_value& value);
  simdjson::error_code RawContainer(od_value& value, std::string_view* out);
  simdjson::error_code Token(od_value& value, std::string_view* out) const;

  // A key (from its first byte after the quote) or a string token (with its
  // quotes) as text: a view of the JSON when it has no escapes, else
  // unescaped into storage that lives as long as the document.
  std::string_view KeyText(const char* start);
  std::string_view StringToken(std::string_view token);
  std::string_view Unescape(std::string_view raw);
  std::string_view ValueName(size_t column);

  const TraceArgFilter* const arg_filter_;
  TraceEventSink* sink_ = nullptr;  // Of the document being parsed.
  simdjson::ondemand::parser parser_;
  const char* json_begin_ = nullptr;  // The document being parsed.
  const char* json_end_ = nullptr;
  RawTraceEvent* event_ = nullptr;  // The sink's slot being decoded.
  // "value", "value2", ... (packed counters): as long as the parser.
  std::deque<std::string> value_names_;
  std::vector<char> validation_stack_;
};

}  // namespace tfprof
