// TraceJsonScanner on its own: element boundaries must not depend on how
// the input arrives, and each run of elements must be complete.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "lib/model/errors.h"
#include "lib/read/chrome_trace_scanner.h"

using namespace tfprof;

namespace {

// Serves a string in pieces of 1, 2, ... `max_piece` bytes, cycling.
class DribbleReader : public ChunkReader {
 public:
  DribbleReader(std::string data, size_t max_piece) : data_(std::move(data)), max_piece_(max_piece) {
    file_size_ = data_.size();
  }
  size_t Read(char* out, size_t capacity) override {
    size_t n = std::min({capacity, data_.size() - offset_, next_});
    std::memcpy(out, data_.data() + offset_, n);
    offset_ += n;
    next_ = next_ % max_piece_ + 1;
    return n;
  }
  bool gzipped() const override { return false; }
  uint64_t file_offset() const override { return offset_; }

 private:
  std::string data_;
  size_t max_piece_;
  size_t offset_ = 0, next_ = 1;
};

// Collects the elements of each run by splitting it at its top-level commas
// (a test-only splitter, deliberately naive about nothing: the test data
// below keeps commas out of nested values).
class Collector : public TraceScanConsumer {
 public:
  void OnElements(char* elements, size_t size, uint64_t offset) override {
    // The contract: elements[-1] and elements[size] may be overwritten.
    char before = elements[-1], after = elements[size];
    elements[-1] = '[';
    elements[size] = ']';
    elements[-1] = before;
    elements[size] = after;
    runs.emplace_back(elements, size);
    offsets.push_back(offset);
  }
  bool WantsTopLevelValue(std::string_view key) override { return key == "keep"; }
  void OnTopLevelValue(std::string_view key, std::string_view raw) override { kept = std::string(raw); }

  std::vector<std::string> runs;
  std::vector<uint64_t> offsets;
  std::string kept;
};

std::string Joined(const std::vector<std::string>& runs) {
  std::string all;
  for (const std::string& r : runs) all += (all.empty() ? "" : ",") + r;
  return all;
}

}  // namespace

TEST_CASE("Scanner cuts runs at element boundaries however the input is chunked", "[json]") {
  std::string elements;
  for (int i = 0; i < 300; ++i) {
    if (i) elements += ", ";
    elements += R"({"name":"e)" + std::to_string(i) + R"( \"q\" {[]}","args":{"a":[1]},"x":"\\"})";
  }
  const std::string json = R"({"skip":{"a":[{"}":"]"}]},"traceEvents":[)" + elements + R"(],"keep":{"k":[1,2]}})";
  for (size_t piece : {1, 3, 7, 64, 1000}) {
    for (size_t block : {64, 256, 4096}) {
      INFO("piece " << piece << " block " << block);
      DribbleReader reader(json, piece);
      Collector collector;
      TraceJsonScanner scanner("t.json", reader, collector, block);
      TraceScanResult result = scanner.Run();
      CHECK_FALSE(result.bare_array);
      CHECK(result.content_bytes == json.size());
      CHECK(result.trace_event_arrays == 1);
      // Runs hold whole elements: they join back into the array's content,
      // modulo the whitespace after the commas.
      std::string joined = Joined(collector.runs), expected = elements;
      joined.erase(std::remove(joined.begin(), joined.end(), ' '), joined.end());
      expected.erase(std::remove(expected.begin(), expected.end(), ' '), expected.end());
      CHECK(joined == expected);
      for (const std::string& run : collector.runs) {
        CHECK(run.front() == '{');
        CHECK(run.back() == '}');
      }
      CHECK(json.substr(collector.offsets[0], 9) == R"({"name":")");
      CHECK(collector.kept == R"({"k":[1,2]})");
      if (block == 64) CHECK(collector.runs.size() > 10);
    }
  }
}

// Takes the scanner's buffers with its runs (TakesBuffers), as the
// pipeline does, and scribbles over everything in a buffer it was handed
// but the run: what the scanner reads on with must already be its own.
class BufferTaker : public Collector {
 public:
  bool TakesBuffers() const override { return true; }
  Buffer NewBuffer(size_t min_capacity) override {
    ++new_buffers;
    const size_t capacity = min_capacity + 3;  // More than asked: the scanner must cope.
    return {std::make_unique<char[]>(capacity), capacity};
  }
  void OnElementsInBuffer(Buffer buffer, char* elements, size_t size, uint64_t offset) override {
    REQUIRE(elements > buffer.data.get());  // elements[-1] is the consumer's.
    REQUIRE(elements + size + kPaddingAfter <= buffer.data.get() + buffer.capacity);
    runs.emplace_back(elements, size);
    offsets.push_back(offset);
    std::memset(buffer.data.get(), '#', buffer.capacity);
    ++handed;
  }
  size_t new_buffers = 0, handed = 0;
};

TEST_CASE("Scanner hands runs over with their buffers to a consumer that takes them", "[json]") {
  std::string elements;
  for (int i = 0; i < 300; ++i) {
    if (i) elements += ", ";
    elements += R"({"name":"e)" + std::to_string(i) + R"( \"q\" {[]}","args":{"a":[1]},"x":"\\"})";
  }
  const std::string json = R"({"traceEvents":[)" + elements + R"(],"keep":{"k":[1,2]}})";
  for (size_t piece : {1, 7, 1000}) {
    for (size_t block : {64, 256, 4096}) {
      INFO("piece " << piece << " block " << block);
      DribbleReader copied_reader(json, piece), handed_reader(json, piece);
      Collector copied;
      BufferTaker handed;
      TraceJsonScanner("t.json", copied_reader, copied, block).Run();
      TraceJsonScanner("t.json", handed_reader, handed, block).Run();
      // The same elements (the buffers, larger than asked, cut runs
      // elsewhere), each run the input's text at its offset.
      auto spaceless = [](std::string s) {
        s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
        return s;
      };
      CHECK(spaceless(Joined(handed.runs)) == spaceless(Joined(copied.runs)));
      for (size_t r = 0; r < handed.runs.size(); ++r)
        CHECK(json.substr(handed.offsets[r], handed.runs[r].size()) == handed.runs[r]);
      CHECK(handed.kept == R"({"k":[1,2]})");
      CHECK(handed.handed == handed.new_buffers);
      // All but the runs cut where the array ends came with their buffers:
      // the whole elements read before the ']' and those after, two at most.
      CHECK(handed.runs.size() - handed.handed <= 2);
      CHECK(handed.runs.size() - handed.handed >= 1);
      if (block == 64) CHECK(handed.handed > 10);
    }
  }
}

TEST_CASE("Scanner errors name the byte", "[json]") {
  auto error = [](const std::string& json) -> std::string {
    DribbleReader reader(json, 5);
    Collector collector;
    TraceJsonScanner scanner("t.json", reader, collector, 64);
    try {
      scanner.Run();
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  };
  CHECK(error(R"([{"a":1}, {"b":[}])") ==
        "t.json: invalid JSON at byte 16: mismatched '}' in traceEvents, expected ']'");
  CHECK(error(R"({"traceEvents":[], "x": [1, 2})") == "t.json: invalid JSON at byte 29: mismatched '}', expected ']'");
  CHECK(error(R"({"traceEvents" [])") == "t.json: invalid JSON at byte 15: expected ':' after a key, found '['");
  CHECK(error(R"({traceEvents: []})") == "t.json: invalid JSON at byte 1: expected a key string, found 't'");
  CHECK(error(R"({"a":1})") == "t.json: JSON but not a Chrome trace: no traceEvents array");
}
