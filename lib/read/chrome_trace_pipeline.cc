#include "lib/read/chrome_trace_pipeline.h"

#include <simdjson.h>

#include <algorithm>
#include <cassert>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "lib/model/errors.h"
#include "lib/read/chrome_trace_decoder.h"

namespace tfprof {
namespace {

using simdjson::error_code;

// Replaces bytes that are not valid UTF-8 with '?', in place. Returns the
// number replaced.
size_t RepairUtf8(char* data, size_t size) {
  size_t fixed = 0;
  auto* p = reinterpret_cast<unsigned char*>(data);
  for (size_t i = 0; i < size;) {
    unsigned char c = p[i];
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = len > 0 && i + len <= size && !(c == 0xC0 || c == 0xC1 || c > 0xF4);
    for (size_t k = 1; ok && k < len; ++k) ok = (p[i + k] & 0xC0) == 0x80;
    if (ok && len == 3) {
      unsigned cp = ((c & 0x0Fu) << 12) | ((p[i + 1] & 0x3Fu) << 6);
      ok = cp >= 0x800 && (cp < 0xD800 || cp > 0xDFFF);  // No overlongs or surrogates.
    } else if (ok && len == 4) {
      unsigned cp = ((c & 0x07u) << 18) | ((p[i + 1] & 0x3Fu) << 12);
      ok = cp >= 0x10000 && cp <= 0x10FFFF;
    }
    if (ok) {
      i += len;
    } else {
      p[i++] = '?';
      ++fixed;
    }
  }
  return fixed;
}

// Byte offsets of the depth-0 commas in a run of traceEvents elements, so a
// run that simdjson rejects can be retried one element at a time.
std::vector<size_t> ElementStarts(std::string_view elements) {
  std::vector<size_t> starts{0};
  int64_t depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < elements.size(); ++i) {
    char c = elements[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      --depth;
    } else if (c == ',' && depth == 0) {
      starts.push_back(i + 1);
    }
  }
  return starts;
}

// One run of elements, from the scanner through a parser to the builder:
// its JSON (which the events' views point into), what the parser made of
// it, and the parse error that ended it, if one did.
struct ParsedRun final : TraceEventSink {
  // The text: the scanner's buffer handed over with the run (Adopt), or a
  // copy (Fill). json[0, elements + 2) is "[" elements "]", and simdjson's
  // padding follows within the buffer.
  TraceScanConsumer::Buffer buffer;
  char* json = nullptr;
  size_t json_capacity = 0;  // Bytes from json to the buffer's end.
  size_t elements = 0;       // Bytes of elements.
  uint64_t offset = 0;       // Of the first element byte in the (inflated) file.
  std::deque<std::string> strings;
  std::vector<RawTraceEvent> events;  // [0, used): reused run after run.
  size_t used = 0;
  struct Note {
    TraceDiag kind;
    std::string example;
    uint64_t n;
    size_t events_before;  // Where the parser counted it among the events.
  };
  std::vector<Note> notes;
  // An element was an object, whatever became of it (an empty one too): a
  // bare array with none is not a trace. Noted where the parser takes a
  // slot for it, so that the parser's loop pays nothing more.
  bool any_object = false;
  std::exception_ptr error;
  bool parsed = false;

  // Slots are reused run after run, with their vectors' capacity.
  RawTraceEvent& NextEvent() override {
    any_object = true;
    if (used == events.size()) events.emplace_back();
    return events[used];
  }
  void Commit() override { ++used; }
  void Count(TraceDiag kind, std::string_view example, uint64_t n) override {
    notes.push_back({kind, std::string(example), n, used});
  }
  std::deque<std::string>& Strings() override { return strings; }

  // A copy of text[0, size).
  void Fill(const char* text, size_t size, uint64_t at) {
    const size_t needed = size + 2 + simdjson::SIMDJSON_PADDING;
    if (buffer.capacity < needed) buffer = {std::make_unique_for_overwrite<char[]>(needed), needed};
    json = buffer.data.get();
    json_capacity = buffer.capacity;
    std::memcpy(json + 1, text, size);
    Frame(size, at);
  }
  // The scanner's buffer, holding the elements where they were read.
  void Adopt(TraceScanConsumer::Buffer b, char* text, size_t size, uint64_t at) {
    buffer = std::move(b);
    json = text - 1;  // The scanner's contract: elements[-1] is in the buffer.
    json_capacity = static_cast<size_t>(buffer.data.get() + buffer.capacity - json);
    Frame(size, at);
  }
  // Empties the run, keeping its slots, for the elements at json + 1.
  void Frame(size_t size, uint64_t at) {
    static_assert(TraceScanConsumer::kPaddingAfter >= 1 + simdjson::SIMDJSON_PADDING);
    elements = size;
    offset = at;
    json[0] = '[';
    json[size + 1] = ']';
    std::memset(json + size + 2, ' ', simdjson::SIMDJSON_PADDING);
    used = 0;
    any_object = false;
    notes.clear();
    strings.clear();
    error = nullptr;
    parsed = false;
  }

  // What the parser made, in its order; then the error that stopped it.
  void Replay(ChromeTraceBuilder& builder) const {
    if (any_object) builder.ObjectElementsMet();
    size_t e = 0;
    for (const Note& note : notes) {
      for (; e < note.events_before; ++e) builder.Add(events[e]);
      builder.Count(note.kind, note.example, note.n);
    }
    for (; e < used; ++e) builder.Add(events[e]);
    if (error) std::rethrow_exception(error);
  }
};

// Parses one element alone, from a padded copy of its own: to tell a bad
// element (too deep, bad UTF-8: counted) from broken JSON (an error naming
// its byte).
void ParseAlone(const std::string& path, TraceEventParser& parser, ParsedRun& run, std::string_view element,
                uint64_t offset) {
  // The copy holds the element's event's text: it goes with the run.
  std::string& json = run.strings.emplace_back();
  json.reserve(element.size() + 2 + simdjson::SIMDJSON_PADDING);
  json.append(1, '[').append(element).append(1, ']');
  size_t length = json.size();
  json.append(simdjson::SIMDJSON_PADDING, ' ');
  size_t done = 0;
  error_code error = parser.ParseArray(run, json.data(), length, json.size(), &done);
  if (error == simdjson::UTF8_ERROR) {
    run.Count(TraceDiag::kInvalidUtf8, {}, RepairUtf8(json.data(), length));
    error = parser.ParseArray(run, json.data(), length, json.size(), &done);
  }
  if (error == simdjson::SUCCESS) return;
  if (error == simdjson::DEPTH_ERROR) {
    run.Count(TraceDiag::kTooDeep, element.substr(0, 60), 1);
    // An object too deep to read is still an object (ParsedRun::any_object).
    const size_t first = element.find_first_not_of(" \t\r\n");
    if (first != element.npos && element[first] == '{') run.any_object = true;
    return;
  }
  size_t leading = element.find_first_not_of(" \t\r\n");
  throw InputError(path, "invalid JSON at byte " + std::to_string(offset + (leading == element.npos ? 0 : leading)) +
                             ": " + simdjson::error_message(error) + " (in the trace event starting there)");
}

// Parses a run at once; when something in it is wrong, the rest of it one
// element at a time.
void ParseRun(const std::string& path, TraceEventParser& parser, ParsedRun& run) {
  size_t done = 0;
  if (parser.ParseArray(run, run.json, run.elements + 2, run.json_capacity, &done) == simdjson::SUCCESS) return;
  const std::string_view elements(run.json + 1, run.elements);
  const std::vector<size_t> starts = ElementStarts(elements);
  for (size_t k = done; k < starts.size(); ++k) {
    size_t begin = starts[k], end = k + 1 < starts.size() ? starts[k + 1] - 1 : elements.size();
    ParseAlone(path, parser, run, elements.substr(begin, end - begin), run.offset + begin);
  }
}

// Thrown on the scanner's thread to stop it when the read has failed.
struct Stopped {};

class Pipeline final : public TraceScanConsumer {
 public:
  Pipeline(const std::string& path, TopLevelValueSink& top, unsigned parsers, size_t block_bytes,
           const TraceArgFilter* args)
      : path_(path), top_(top), pool_size_(parsers + 2), block_bytes_(block_bytes) {
    for (unsigned i = 0; i < parsers; ++i) parsers_.push_back(std::make_unique<TraceEventParser>(args));
  }

  TraceScanResult Run(ChunkReader& input, ChromeTraceBuilder& builder) {
    TraceJsonScanner scanner(path_, input, *this, block_bytes_);
    TraceScanResult result;
    std::vector<std::thread> threads;
    try {
      threads.emplace_back([&] { Scan(scanner, result); });
      for (auto& parser : parsers_) threads.emplace_back([this, &parser] { Parse(*parser); });
      Build(builder);
    } catch (...) {
      Stop();
      for (std::thread& t : threads) t.join();
      throw;
    }
    for (std::thread& t : threads) t.join();
    if (scan_error_) std::rethrow_exception(scan_error_);
    return result;
  }

  // The scanner's thread.
  void OnElements(char* elements, size_t size, uint64_t offset) override {
    ParsedRun* run = TakeFreeRun();
    run->Fill(elements, size, offset);
    Queue(run);
  }
  bool TakesBuffers() const override { return true; }
  // A free run's buffer for the scanner to read into; the run waits for
  // the buffer the scanner hands back (OnElementsInBuffer).
  Buffer NewBuffer(size_t min_capacity) override {
    assert(reserved_ == nullptr);
    reserved_ = TakeFreeRun();
    Buffer b = std::move(reserved_->buffer);
    reserved_->buffer = {};
    if (b.capacity < min_capacity) b = {std::make_unique_for_overwrite<char[]>(min_capacity), min_capacity};
    return b;
  }
  void OnElementsInBuffer(Buffer buffer, char* elements, size_t size, uint64_t offset) override {
    ParsedRun* run = std::exchange(reserved_, nullptr);
    assert(run != nullptr);
    run->Adopt(std::move(buffer), elements, size, offset);
    Queue(run);
  }
  bool WantsTopLevelValue(std::string_view key) override { return top_.WantsTopLevelValue(key); }
  void OnTopLevelValue(std::string_view key, std::string_view raw_json) override {
    top_.OnTopLevelValue(key, raw_json);
  }

 private:
  // A filled run, to the parsers and to the builder's queue.
  void Queue(ParsedRun* run) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      in_order_.push_back(run);
      to_parse_.push_back(run);
    }
    to_parse_changed_.notify_one();
  }

  void Scan(TraceJsonScanner& scanner, TraceScanResult& result) {
    try {
      result = scanner.Run();
    } catch (const Stopped&) {
    } catch (...) {
      scan_error_ = std::current_exception();  // Raised once the runs before it are built.
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      scan_done_ = true;
    }
    to_parse_changed_.notify_all();
    parsed_changed_.notify_all();
  }

  ParsedRun* TakeFreeRun() {
    std::unique_lock<std::mutex> lock(mutex_);
    free_changed_.wait(lock, [&] { return stop_ || !free_.empty() || runs_.size() < pool_size_; });
    if (stop_) throw Stopped{};
    if (free_.empty()) {
      runs_.push_back(std::make_unique<ParsedRun>());
      return runs_.back().get();
    }
    ParsedRun* run = free_.back();
    free_.pop_back();
    return run;
  }

  // A parser's thread.
  void Parse(TraceEventParser& parser) {
    for (;;) {
      ParsedRun* run;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        to_parse_changed_.wait(lock, [&] { return stop_ || !to_parse_.empty() || scan_done_; });
        if (stop_ || to_parse_.empty()) return;
        run = to_parse_.front();
        to_parse_.pop_front();
      }
      try {
        ParseRun(path_, parser, *run);
      } catch (...) {
        run->error = std::current_exception();
      }
      bool first;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        run->parsed = true;
        first = in_order_.front() == run;
      }
      // The builder waits for the oldest run only.
      if (first) parsed_changed_.notify_one();
    }
  }

  // The calling thread: runs in file order, each once parsed.
  void Build(ChromeTraceBuilder& builder) {
    for (;;) {
      ParsedRun* run;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        parsed_changed_.wait(lock, [&] {
          return (!in_order_.empty() && in_order_.front()->parsed) || (in_order_.empty() && scan_done_);
        });
        if (in_order_.empty()) return;
        run = in_order_.front();
        in_order_.pop_front();
      }
      run->Replay(builder);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        free_.push_back(run);
      }
      free_changed_.notify_one();
    }
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    free_changed_.notify_all();
    to_parse_changed_.notify_all();
    parsed_changed_.notify_all();
  }

  const std::string& path_;
  TopLevelValueSink& top_;
  const size_t pool_size_;  // Runs in flight at most.
  // The parsers, one per thread. They outlive their threads: events may
  // point into a parser's own strings (packed counters' column names) until
  // the builder has taken them.
  std::vector<std::unique_ptr<TraceEventParser>> parsers_;
  const size_t block_bytes_;

  std::mutex mutex_;
  // Each waiter has its own, so a change wakes only who can go on: the
  // scanner waits for a free run, the parsers for a run to parse, the
  // builder for the oldest run to be parsed.
  std::condition_variable free_changed_;
  std::condition_variable to_parse_changed_;
  std::condition_variable parsed_changed_;
  std::vector<std::unique_ptr<ParsedRun>> runs_;
  std::vector<ParsedRun*> free_;
  std::deque<ParsedRun*> in_order_;  // Scanned, not yet built: file order.
  std::deque<ParsedRun*> to_parse_;
  ParsedRun* reserved_ = nullptr;  // The scanner's thread: taken by NewBuffer, filled next.
  bool scan_done_ = false;
  bool stop_ = false;
  std::exception_ptr scan_error_;
};

}  // namespace

TraceScanResult ReadTraceEvents(const std::string& path, ChunkReader& input, TopLevelValueSink& top,
                                ChromeTraceBuilder& builder, unsigned parsers, size_t block_bytes) {
  if (parsers == 0) parsers = std::clamp(std::thread::hardware_concurrency(), 1u, 3u);
  Pipeline pipeline(path, top, parsers, block_bytes, builder.arg_filter());
  return pipeline.Run(input, builder);
}

}  // namespace tfprof
