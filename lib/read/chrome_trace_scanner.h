// The streaming front half of the Chrome trace reader: walks the top level of
// a trace JSON document (`{"traceEvents": [...], ...}` or a bare `[...]`)
// block by block, and hands the traceEvents array to its consumer in batches
// of complete elements, so that no more than a few MB of JSON is ever held.
//
// It only tracks what is needed to find element boundaries (string and
// escape state, bracket depth): the elements themselves are parsed and
// validated by simdjson in the consumer. Nesting is tracked with counters and
// a heap stack, never recursion, so any depth is safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lib/read/byte_source.h"

namespace tfprof {

class TraceScanConsumer {
 public:
  virtual ~TraceScanConsumer() = default;
  // `elements[0, size)` is a run of one or more complete traceEvents
  // elements with their separating commas; `content_offset` is the offset of
  // its first byte in the (inflated) file, for messages. So that it can be
  // parsed where it lies, the consumer may overwrite elements[-1] and the
  // kPaddingAfter bytes from elements[size] on, provided it restores
  // elements[-1] and elements[size] before returning.
  // 128: room for a consumer that parses a run where it lies to write ']'
  // and simdjson's 64 bytes of padding after it (chrome_trace_pipeline.cc).
  static constexpr size_t kPaddingAfter = 128;
  virtual void OnElements(char* elements, size_t size, uint64_t content_offset) = 0;

  // Runs handed over with the buffer that holds them, rather than copied
  // out of it (optional: for a consumer whose TakesBuffers() is true). A
  // run read into a buffer is the buffer's whole but for the unfinished
  // element at its end, so its copy was the read's one avoidable pass
  // over every byte. The scanner asks for a buffer to read on into
  // (NewBuffer, with at least `min_capacity` bytes), copies the unfinished
  // element there, then hands the old buffer over with the run's place in
  // it (OnElementsInBuffer). The consumer may then write anywhere in it;
  // elements[size] is followed by at least kPaddingAfter bytes of it.
  struct Buffer {
    std::unique_ptr<char[]> data;
    size_t capacity = 0;
  };
  virtual bool TakesBuffers() const { return false; }
  virtual Buffer NewBuffer(size_t min_capacity) { return {}; }
  virtual void OnElementsInBuffer(Buffer buffer, char* elements, size_t size, uint64_t content_offset) {}
  // A top-level key other than traceEvents, with its value's raw JSON text,
  // for keys the consumer asked for (WantsTopLevelValue) and values under
  // the capture limit.
  virtual bool WantsTopLevelValue(std::string_view key) = 0;
  virtual void OnTopLevelValue(std::string_view key, std::string_view raw_json) = 0;
};

struct TraceScanResult {
  bool bare_array = false;          // The document is a bare array of events.
  bool unterminated_array = false;  // A bare array cut off between elements (allowed by the format).
  uint64_t content_bytes = 0;       // Bytes of (inflated) JSON read.
  int trace_event_arrays = 0;       // traceEvents keys met (normally 1).
};

class TraceJsonScanner {
 public:
  // Top-level values larger than this are skipped rather than captured.
  static constexpr size_t kMaxCapturedValue = size_t{64} << 20;

  static constexpr size_t kDefaultBlockBytes = 256 << 10;
  TraceJsonScanner(std::string path, ChunkReader& input, TraceScanConsumer& consumer,
                   size_t block_bytes = kDefaultBlockBytes);
  // Throws InputError for invalid JSON, JSON that is not a trace, or a read
  // error.
  TraceScanResult Run();

 private:
  // Buffer: bytes [0, end_) hold content from offset base_; bytes before
  // keep_ may be discarded on the next refill.
  bool Fill();         // Reads more; false at end of input.
  int Peek();          // The next byte without consuming, or -1 at the end.
  int NextNonSpace();  // Skips whitespace, then Peek().
  void Expect(char c, const char* what);
  std::string ReadKey();
  // Skips one JSON value starting at pos_; appends its text to `capture`
  // when given (until it exceeds kMaxCapturedValue, then sets *overflow).
  void SkipValue(std::string* capture, bool* overflow);
  void ScanEventArray(bool bare);
  // Hands the pending run over with the buffer (TakesBuffers), reading on
  // into a new one that starts with the bytes from keep_.
  void HandOver();
  // The indices once the bytes from keep_ have moved to the buffer's front
  // (in it, or into a new one by HandOver).
  void KeptAtFront();
  void ExpectSeparator(size_t element);

  [[noreturn]] void Invalid(uint64_t offset, const std::string& what) const;
  [[noreturn]] void NotATrace(const std::string& what) const;
  uint64_t Offset(size_t index) const { return base_ + index; }

  std::string path_;
  ChunkReader& input_;
  TraceScanConsumer& consumer_;
  size_t block_bytes_;
  std::unique_ptr<char[]> buf_;
  size_t cap_ = 0;
  size_t keep_ = 0, pos_ = 0, end_ = 0;
  uint64_t base_ = 0;
  bool eof_ = false;
  // A run to hand over with the buffer once the bytes after it are saved
  // (the next Fill); null data: none.
  struct PendingRun {
    char* elements = nullptr;
    size_t size = 0;
    uint64_t offset = 0;
  } pending_;
  TraceScanResult result_;
};

}  // namespace tfprof
