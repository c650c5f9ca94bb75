// The Chrome trace reader's pipeline (lib/read/chrome_trace_pipeline.h): the
// model, its diagnostics (counts and first examples) and the error of a bad
// file are the same whatever the number of parsing threads and wherever the
// scanner cuts the runs (from a run per 64 bytes to one run per file).
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "lib/analyze/host_to_text_dump.h"
#include "lib/model/errors.h"
#include "lib/read/byte_source.h"
#include "lib/read/chrome_trace_builder.h"
#include "lib/read/chrome_trace_pipeline.h"
#include "lib/read/chrome_trace_reader.h"
#include "tests/support/corpus.h"
#include "tests/support/xspace_builder.h"

namespace tfprof {
namespace {

struct NoTopLevel final : TopLevelValueSink {
  bool WantsTopLevelValue(std::string_view) override { return false; }
  void OnTopLevelValue(std::string_view, std::string_view) override {}
};

std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// The model as text (every event) and the diagnostics, or the error.
std::string ReadAsText(const std::string& path, unsigned parsers, size_t block_bytes, ReadOptions options = {}) {
  std::ostringstream out;
  try {
    Host host;
    Diagnostics diag;
    {
      ChromeTraceBuilder builder(host, diag, options);
      NoTopLevel top;
      std::unique_ptr<ChunkReader> input = ChunkReader::Open(path);
      ReadTraceEvents(path, *input, top, builder, parsers, block_bytes);
      builder.Finish();
    }
    HostToTextDump(host, TextDumpLimits{0, 0}, out);
    for (const DiagnosticEntry& e : diag.Entries()) out << e.kind << " x" << e.count << " " << e.example << "\n";
  } catch (const InputError& e) {
    out << "error: " << e.what();
  }
  return out.str();
}

// Every way of cutting and parsing gives what one parser on whole blocks does.
void CheckSameEveryWay(const std::string& path, ReadOptions options = {}) {
  const std::string expected = ReadAsText(path, 1, TraceJsonScanner::kDefaultBlockBytes, options);
  for (unsigned parsers : {1u, 2u, 3u})
    for (size_t block : {size_t{64}, size_t{100}, size_t{4096}, TraceJsonScanner::kDefaultBlockBytes}) {
      INFO(path << ": " << parsers << " parsers, " << block << "-byte blocks");
      CHECK(ReadAsText(path, parsers, block, options) == expected);
    }
}

// A trace with something of each kind the parser and the builder count,
// spread over many elements, so that small blocks cut it into many runs
// with problems in several of them.
std::string MixedTrace() {
  std::string t = R"({"traceEvents":[)";
  t += R"({"ph":"M","pid":1,"tid":0,"name":"thread_name","args":{"name":"main \"thread\""}})";
  for (int i = 0; i < 300; ++i) {
    const std::string ts = std::to_string(10 * i) + "." + std::to_string(i % 1000);
    t += R"(,{"ph":"X","pid":1,"tid":)" + std::to_string(i % 3) + R"(,"ts":)" + ts +
         R"(,"dur":3,"name":"kernel\u00e9 )" + std::to_string(i % 7) + R"(","args":{"correlation":)" +
         std::to_string(i) + R"(,"grid":[1,2,3],"esc":"a\nb"}})";
    if (i % 50 == 7) t += R"(,{"ph":"X","pid":1,"tid":1,"ts":"soon","dur":1,"name":"bad ts"})";
    if (i % 60 == 11) t += R"(,42,"text")";
    if (i % 70 == 13) t += R"(,{"ph":"B","pid":2,"tid":1,"ts":)" + ts + R"(,"name":"open"})";
    if (i % 70 == 14) t += R"(,{"ph":"E","pid":2,"tid":1,"ts":)" + ts + "}";
    if (i % 80 == 15) t += R"(,{"ph":"E","pid":3,"tid":1,"ts":)" + ts + "}";  // Unmatched.
    if (i % 90 == 16) t += ",{\"ph\":\"X\",\"pid\":1,\"tid\":9,\"ts\":1,\"dur\":1,\"name\":\"caf\xE9\"}";
    if (i % 90 == 17)
      t += R"(,{"ph":"C","pid":1,"name":"mem","ts":)" + ts + R"(,"args":{"bytes":)" + std::to_string(i * 1000) + "}}";
    if (i % 100 == 18) t += R"(,{"ph":"Z","pid":1,"tid":1,"ts":3,"name":"unknown"})";
    // Packed counters name their columns from the parser's own strings,
    // which must outlive the parser's thread.
    if (i % 40 == 21)
      t += R"(,{"ph":"C","pid":1,"name":"packed","event_stats":"mem","entries":[[)" + ts + R"(,1,2],[)" + ts +
           R"(1,3,4]]})";
    if (i % 100 == 19) t += R"(,{"ph":"X","pid":1,"tid":1,"ts":1,"dur":-3,"name":"negative"})";
  }
  t += R"(,{}]})";
  return t;
}

TEST_CASE("The pipeline gives one model and one diagnostics list, however it cuts and parses", "[json][pipeline]") {
  const std::string path = WriteTemp("mixed.trace.json", MixedTrace());
  const std::string text = ReadAsText(path, 2, 64);
  // It has what it should: events on several lines and every count.
  CHECK(text.find("json.bad_field_type x6") != std::string::npos);
  CHECK(text.find("json.non_object_event x10") != std::string::npos);
  CHECK(text.find("json.invalid_utf8 x4") != std::string::npos);
  CHECK(text.find("json.unmatched_end x4") != std::string::npos);
  CHECK(text.find("kernelé 3") != std::string::npos);
  CHECK(text.find("value2") != std::string::npos);  // A packed counter's second column.
  CheckSameEveryWay(path);
  // --max-events stops at the same event.
  ReadOptions capped;
  capped.max_events = 123;
  CheckSameEveryWay(path, capped);
  CHECK(ReadAsText(path, 3, 64, capped).find("read.max_events_reached") != std::string::npos);
  // So do the args a command leaves out (chrome_trace_arg_filter.h): the
  // same skipped at every cut, on the runs retried element by element too.
  ReadOptions filtered;
  filtered.event_stats = EventStatFilter::Only({"grid"});
  CheckSameEveryWay(path, filtered);
  CHECK(ReadAsText(path, 2, 64, filtered) != text);
}

TEST_CASE("The pipeline reads the test captures' traces alike every way", "[json][pipeline]") {
  for (const char* capture : {"testdata/captures/torch_gpu_amp", "testdata/captures/tf1_timeline/timeline_01.json",
                              "testdata/captures/jax_gpu_cublas"}) {
    std::vector<std::string> files;
    const std::string root = testing::SourcePath(capture);
    if (root.ends_with(".json")) {
      files.push_back(root);
    } else {
      for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
        const std::string name = e.path().filename().string();
        if (name.ends_with(".trace.json.gz") && name.find("perfetto") == std::string::npos)
          files.push_back(e.path().string());
      }
    }
    REQUIRE_FALSE(files.empty());
    for (const std::string& f : files) {
      const std::string expected = ReadAsText(f, 1, TraceJsonScanner::kDefaultBlockBytes);
      CHECK(expected.find("error:") == std::string::npos);
      for (unsigned parsers : {2u, 3u}) {
        INFO(f << ": " << parsers << " parsers");
        CHECK(ReadAsText(f, parsers, 4096) == expected);
        CHECK(ReadAsText(f, parsers, TraceJsonScanner::kDefaultBlockBytes) == expected);
      }
    }
  }
}

TEST_CASE("The pipeline raises the first error in file order", "[json][pipeline]") {
  // A broken element early (a parser finds it) and broken structure later
  // (the scanner finds it, possibly first): the early one is reported.
  std::string t = R"({"traceEvents":[)";
  for (int i = 0; i < 200; ++i) {
    if (i) t += ",";
    t += R"({"ph":"X","pid":1,"tid":1,"ts":)" + std::to_string(i) + R"(,"dur":1,"name":"k"})";
    if (i == 20) t += R"(,{"ph":"X","ts":1,})";
  }
  const size_t bad = t.find(R"({"ph":"X","ts":1,})");
  t += ",]}";
  const std::string path = WriteTemp("two_errors.trace.json", t);
  const std::string expected = "error: " + path + ": invalid JSON at byte " + std::to_string(bad);
  for (unsigned parsers : {1u, 2u, 3u})
    for (size_t block : {size_t{64}, size_t{4096}, TraceJsonScanner::kDefaultBlockBytes}) {
      INFO(parsers << " parsers, " << block << "-byte blocks");
      CHECK_THAT(ReadAsText(path, parsers, block), Catch::Matchers::StartsWith(expected));
    }
  // Without the early error, the scanner's is reported.
  std::string late = t;
  late.replace(bad, std::string(R"({"ph":"X","ts":1,})").size(), R"({"ph":"X","ts":1})");
  const std::string late_path = WriteTemp("late_error.trace.json", late);
  CHECK_THAT(ReadAsText(late_path, 3, 64), Catch::Matchers::Contains("trailing comma"));
  CHECK(ReadAsText(late_path, 3, 64) == ReadAsText(late_path, 1, TraceJsonScanner::kDefaultBlockBytes));
}

TEST_CASE("A builder error stops the pipeline's threads", "[json][pipeline]") {
  // The memory budget runs out while the scanner and the parsers are
  // still busy (runs of 64 bytes, many in flight): the read ends with the
  // budget's error, as a single-threaded read does, and does not hang.
  std::string t = "[";
  for (int i = 0; i < 20'000; ++i) {
    if (i) t += ",";
    t += R"({"ph":"X","pid":1,"tid":)" + std::to_string(i) + R"(,"ts":)" + std::to_string(i) + R"(,"dur":1,"name":"n)" +
         std::to_string(i) + "\"}";
  }
  t += "]";
  const std::string path = WriteTemp("budget.trace.json", t);
  ReadOptions small;
  small.memory_limit_bytes = 1 << 20;
  const std::string one = ReadAsText(path, 1, TraceJsonScanner::kDefaultBlockBytes, small);
  CHECK_THAT(one, Catch::Matchers::StartsWith("error: "));
  for (unsigned parsers : {1u, 3u}) CHECK(ReadAsText(path, parsers, 64, small) == one);
}

}  // namespace
}  // namespace tfprof
