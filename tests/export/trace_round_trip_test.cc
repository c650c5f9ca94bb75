// `trace` (lib/export/host_to_chrome_trace.h): every event of a capture is
// written, and our own Chrome trace reader reads the export back with the
// same lines, the same number of events on each and the same total
// duration, to the picosecond: on every capture of testdata and of the
// corpus.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "lib/export/gzip_ostream.h"
#include "lib/export/host_to_chrome_trace.h"
#include "lib/model/errors.h"
#include "lib/read/capture_discovery.h"
#include "lib/read/capture_loader.h"
#include "lib/read/chrome_trace_reader.h"
#include "lib/read/xplane_reader.h"
#include "nlohmann/json.hpp"
#include "tests/support/corpus.h"
#include "tests/support/files.h"
#include "tests/support/skip.h"
#include "tests/support/xspace_builder.h"

namespace tfprof {
namespace {

namespace fs = std::filesystem;

// Per plane name: each line's (name, events, total duration), sorted
// (lines that hold events).
using LineFacts = std::map<std::string, std::vector<std::tuple<std::string, size_t, int64_t>>>;

// A name as it reads back from JSON: bytes that are not UTF-8 become the
// code points of their values (the writer's rule; JSON holds text only).
std::string AsJsonReadsIt(std::string_view name) {
  std::string quoted;
  AppendJsonString(quoted, name);
  return nlohmann::json::parse(quoted).get<std::string>();
}

LineFacts Facts(const Host& host) {
  LineFacts out;
  for (const Plane& p : host.planes)
    for (const Line& l : p.lines) {
      // A thread with no event is a name only: Chrome traces have no line without events.
      if (l.events.empty()) continue;
      int64_t total = 0;
      for (const Event& e : l.events) total += e.duration_ps;
      out[AsJsonReadsIt(host.PlaneName(p))].emplace_back(AsJsonReadsIt(host.Str(l.name)), l.events.size(), total);
    }
  for (auto& [plane, lines] : out) std::sort(lines.begin(), lines.end());
  return out;
}

// The trace of a host's model (AddHost).
std::string ModelTrace(const Host& host) {
  std::ostringstream out;
  ChromeTraceWriter writer(out);
  writer.AddHost(host, "", nullptr);
  writer.Finish();
  return out.str();
}

// The trace of an XSpace file streamed (StreamXSpaceFile), as `trace` writes it.
std::string StreamedTrace(const std::string& path, Diagnostics& diagnostics, Host* host = nullptr) {
  std::ostringstream out;
  ChromeTraceWriter writer(out);
  writer.BeginHost("");
  ChromeTraceStreamSink sink(writer, TraceWindow{});
  Host streamed = StreamXSpaceFile(path, sink, diagnostics);
  writer.EndHost(nullptr, TraceWindow{});
  writer.Finish();
  if (host) *host = std::move(streamed);
  return out.str();
}

bool AllLinesSorted(const Host& host) {
  for (const Plane& p : host.planes)
    for (const Line& l : p.lines)
      if (!l.IsSorted()) return false;
  return true;
}

// An uncompressed XSpace file streamed writes the same trace as its model,
// byte for byte, when the capture's lines are in time order (a stream
// writes a line in the capture's order, the model sorts it; then the
// events read back the same), and reads with the same diagnostics.
void CheckStreamedLikeModel(const CaptureFile& file, const Host& model, const Diagnostics& model_read) {
  if (file.format != CaptureFormat::kXSpace || model.gzipped || !file.more_steps.empty()) return;
  Diagnostics streamed_read;
  Host streamed;
  const std::string trace = StreamedTrace(file.path, streamed_read, &streamed);
  CHECK(streamed.time_origin_ns == model.time_origin_ns);
  CHECK(streamed_read.Count("xplane.unsorted_line") == model_read.Count("xplane.unsorted_line"));
  if (AllLinesSorted(model) && model_read.Count("xplane.unsorted_line") == 0) {
    CHECK(trace == ModelTrace(model));
    return;
  }
  const std::string path = testing::TempDir() + "/streamed.json";
  testing::WriteFile(path, trace);
  Diagnostics again;
  CHECK(Facts(ReadChromeTraceFile(path, again)) == Facts(model));
}

// Exports every host of the input without steps, reads each export back and
// compares. Returns the number of hosts checked.
size_t CheckRoundTrip(const std::string& input, bool gzip) {
  DiscoveredInput d;
  try {
    d = DiscoverInput(input);
  } catch (const InputError&) {
    return 0;  // Not a capture (a reference file of the corpus): nothing to export.
  }
  size_t checked = 0;
  for (const CaptureFile& file : d.selected.files) {
    Diagnostics read;
    Host host;
    try {
      host = LoadCapture(file, read);
    } catch (const InputError&) {
      continue;  // A malformed capture (the corpus has one): refused, not exported.
    }
    const std::string path = testing::TempDir() + "/round_trip" + (gzip ? ".json.gz" : ".json");
    {
      std::ofstream out(path, std::ios::binary);
      if (gzip) {
        GzipOstream gz(out);
        ChromeTraceWriter writer(gz);
        writer.AddHost(host, "", nullptr);
        writer.Finish();
        REQUIRE(gz.Finish());
      } else {
        ChromeTraceWriter writer(out);
        writer.AddHost(host, "", nullptr);
        writer.Finish();
        size_t events = 0;
        for (const Plane& p : host.planes) events += p.EventCount();
        CHECK(writer.counts().events == events);
      }
    }
    Diagnostics again;
    const Host back = ReadChromeTraceFile(path, again);
    INFO(file.path);
    CHECK(Facts(back) == Facts(host));
    if (!gzip) CheckStreamedLikeModel(file, host, read);
    ++checked;
  }
  return checked;
}

}  // namespace

TEST_CASE("trace: every testdata capture reads back with the same lines, counts and durations", "[export][trace]") {
  size_t hosts = 0;
  for (const auto& entry : fs::directory_iterator(testing::SourcePath("testdata/captures")))
    if (entry.is_directory()) hosts += CheckRoundTrip(entry.path().string(), /*gzip=*/false);
  CHECK(hosts >= 20);
  // Gzipped too (ISA-L deflate; our reader inflates it).
  CHECK(CheckRoundTrip(testing::SourcePath("testdata/captures/torch_gpu_ddp"), /*gzip=*/true) == 4);
}

TEST_CASE("trace: every corpus capture reads back with the same lines, counts and durations",
          "[export][trace][corpus]") {
  REQUIRE_CORPUS(root, ".");
  size_t hosts = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    const std::string name = entry.path().filename().string();
    const bool capture = name.ends_with(".xplane.pb") || name.ends_with(".json") || name.ends_with(".json.gz");
    if (capture) hosts += CheckRoundTrip(entry.path().string(), /*gzip=*/false);
  }
  CHECK(hosts >= 100);  // 122 hosts of the corpus of 2026-11 (the rest of its JSON is tool output, not captures).
}

TEST_CASE("trace: a streamed XSpace is written a chunk at a time, as its model", "[export][trace]") {
  // 140,000 events on one thread (nine streamed chunks), with string stats spelled
  // out and given by reference, and a second line out of time order.
  testing::XSpaceBuilder b;
  auto& cpu = b.Plane("/host:CPU");
  auto busy = cpu.Line(1, "busy", 5);
  for (int i = 0; i < 140'000; ++i)
    busy.Event(i % 3 == 0 ? "MatMul" : "Conv2D", i * testing::kUs, testing::kUs / 2,
               {{"tf_op", std::string("op_") + std::to_string(i % 7)},
                {"kind", testing::Ref{i % 2 ? "odd" : "even"}},
                {"step", int64_t{i / 1000}}});
  cpu.Line(2, "late", 5).Event("b", 20 * testing::kUs, 1).Event("a", 10 * testing::kUs, 1);
  const std::string path = testing::TempDir() + "/stream.xplane.pb";
  testing::WriteFile(path, b.Serialize());
  Diagnostics read;
  const Host model = ReadXSpaceFile(path, read);
  CHECK(read.Count("xplane.unsorted_line") == 1);
  Diagnostics streamed_read;
  const std::string trace = StreamedTrace(path, streamed_read);
  CHECK(streamed_read.Count("xplane.unsorted_line") == 1);
  // The busy line is in order: its part of the trace is the model's.
  const std::string model_trace = ModelTrace(model);
  const size_t late = trace.find(R"("name":"late")");
  REQUIRE(late != std::string::npos);
  CHECK(trace.substr(0, late) == model_trace.substr(0, late));
  CHECK(trace.find(R"("name":"MatMul","args":{"tf_op":"op_0","kind":"even","step":0})") != std::string::npos);
  CHECK(trace.find(R"("tf_op":"op_6","kind":"odd","step":139})") != std::string::npos);
  // The late line as the capture has it: b before a.
  CHECK(trace.find(R"("name":"b")", late) < trace.find(R"("name":"a")", late));
  const std::string json = testing::TempDir() + "/stream.json";
  testing::WriteFile(json, trace);
  Diagnostics again;
  CHECK(Facts(ReadChromeTraceFile(json, again)) == Facts(model));
}

TEST_CASE("trace: a stream stops at --max-events where the model does", "[export][trace]") {
  // Two lines of 3 and 4 events and a cap of 5: the first line whole, two
  // of the second, and the cut counted once.
  testing::XSpaceBuilder b;
  auto& cpu = b.Plane("/host:CPU");
  auto one = cpu.Line(1, "one");
  for (int i = 0; i < 3; ++i) one.Event("a", i * testing::kUs, 1);
  auto two = cpu.Line(2, "two");
  for (int i = 0; i < 4; ++i) two.Event("b", i * testing::kUs, 1);
  const std::string path = testing::TempDir() + "/capped.xplane.pb";
  testing::WriteFile(path, b.Serialize());
  ReadOptions capped;
  capped.max_events = 5;
  Diagnostics model_read, stream_read;
  const Host model = ReadXSpaceFile(path, model_read, capped);
  CHECK(model.planes[0].lines[1].events.size() == 2);
  CHECK(model_read.Count("read.max_events_reached") == 2);
  std::ostringstream out;
  ChromeTraceWriter writer(out);
  writer.BeginHost("");
  ChromeTraceStreamSink sink(writer, TraceWindow{});
  StreamXSpaceFile(path, sink, stream_read, capped);
  writer.EndHost(nullptr, TraceWindow{});
  writer.Finish();
  CHECK(writer.counts().events == 5);
  CHECK(stream_read.Count("read.max_events_reached") == 2);
  CHECK(out.str() == ModelTrace(model));
}

TEST_CASE("trace: a stream refuses what it cannot read as the model does", "[export][trace]") {
  testing::XSpaceBuilder b;
  b.Plane("/host:CPU").Line(1, "t").Event("a", 0, 1, {{"s", std::string("text")}}).Event("b", 2, 1);
  const std::string bytes = b.Serialize();
  // Cut short: the model's error, and no event past the cut is written.
  const std::string cut = testing::TempDir() + "/cut.xplane.pb";
  testing::WriteFile(cut, bytes.substr(0, bytes.size() - 9));
  Diagnostics d1, d2;
  std::string model_error, stream_error;
  try {
    ReadXSpaceFile(cut, d1);
  } catch (const InputError& e) {
    model_error = e.what();
  }
  try {
    StreamedTrace(cut, d2);
  } catch (const InputError& e) {
    stream_error = e.what();
  }
  CHECK_FALSE(model_error.empty());
  CHECK(stream_error == model_error);
  // Gzipped: read whole by the model, not streamed (a usage error).
  const std::string gz = testing::TempDir() + "/stream.xplane.pb.gz";
  {
    std::ofstream out(gz, std::ios::binary);
    GzipOstream z(out);
    z.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    REQUIRE(z.Finish());
  }
  try {
    StreamedTrace(gz, d2);
    FAIL("a gzipped XSpace was streamed");
  } catch (const InputError& e) {
    CHECK(e.code() == kExitUsage);
    CHECK_THAT(e.what(), Catch::Contains("gunzip it first"));
  }
}

TEST_CASE("trace: names and values are valid JSON whatever bytes they hold", "[export][trace]") {
  Host host;
  host.name = "h";
  host.time_origin_ns = 1'700'000'000'000'000'000;  // Epoch ns: microseconds past 2^53, picoseconds kept.
  Plane& p = host.planes.emplace_back();
  p.name = host.strings.Intern("/host:CPU");
  Line& l = p.lines.emplace_back();
  l.name = host.strings.Intern("thread \"one\"\n");
  p.event_metadata.push_back({host.strings.Intern("bad\xff\xfe utf8 \xe2\x82\xac"), StringPool::kEmpty, 0, 0});
  p.stat_metadata.push_back({host.strings.Intern("x")});
  l.events.push_back(Event{1'234'567, 1'000'001, 0, 1});
  l.stats.push_back(Stat::Double(0, 0.0 / 0.0));
  std::ostringstream out;
  ChromeTraceWriter writer(out);
  writer.AddHost(host, "", nullptr);
  writer.Finish();
  const std::string json = out.str();
  CHECK(json.find(R"("ts":1700000000000001.234567,"dur":1.000001,)") != std::string::npos);
  CHECK(json.find(R"("name":"bad\u00ff\u00fe utf8 €")") != std::string::npos);
  CHECK(json.find(R"("name":"thread \"one\"\u000a")") != std::string::npos);
  CHECK(json.find(R"("x":null)") != std::string::npos);
  const std::string path = testing::TempDir() + "/names.json";
  testing::WriteFile(path, json);
  Diagnostics d;
  const Host back = ReadChromeTraceFile(path, d);
  REQUIRE(back.planes.size() == 1);
  REQUIRE(back.planes[0].lines.size() == 1);
  REQUIRE(back.planes[0].lines[0].events.size() == 1);
  const Event& e = back.planes[0].lines[0].events[0];
  CHECK(e.duration_ps == 1'000'001);
  CHECK(static_cast<__int128>(back.time_origin_ns) * 1000 + e.start_ps ==
        static_cast<__int128>(host.time_origin_ns) * 1000 + 1'234'567);
}

TEST_CASE("trace: counter samples are written back as counters, not zero-length slices", "[export][trace]") {
  // Counter samples of one process (as a TF1 timeline's allocator counters
  // with show_memory=True) and one op.
  constexpr const char* kTrace = R"json({"traceEvents":[
    {"ph":"M","pid":1,"name":"process_name","args":{"name":"Allocators"}},
    {"ph":"C","pid":1,"ts":10,"name":"GPU_0_bfc","args":{"GPU_0_bfc":256}},
    {"ph":"C","pid":1,"ts":20,"name":"GPU_0_bfc","args":{"GPU_0_bfc":0,"label":"not a number"}},
    {"ph":"X","pid":1,"tid":2,"ts":5,"dur":3,"name":"op"}]})json";
  Diagnostics d;
  const Host host = ReadChromeTraceText(kTrace, "counters.json", d);
  const nlohmann::json out = nlohmann::json::parse(ModelTrace(host));
  std::vector<nlohmann::json> counters, slices;
  for (const nlohmann::json& e : out["traceEvents"]) {
    if (e["ph"] == "C") counters.push_back(e);
    if (e["ph"] == "X") slices.push_back(e);
  }
  REQUIRE(counters.size() == 2);
  CHECK(counters[0]["name"] == "GPU_0_bfc");
  CHECK(counters[0]["args"]["GPU_0_bfc"] == 256);
  CHECK(counters[1]["args"]["GPU_0_bfc"] == 0);
  CHECK_FALSE(counters[1]["args"].contains("label"));  // A series is numbers.
  CHECK(counters[1]["ts"].get<double>() - counters[0]["ts"].get<double>() == Approx(10.0));
  CHECK_FALSE(counters[0].contains("dur"));
  REQUIRE(slices.size() == 1);
  CHECK(slices[0]["name"] == "op");
  // Read back, the samples are counters again.
  const std::string path = testing::TempDir() + "/counters_export.json";
  testing::WriteFile(path, out.dump());
  Diagnostics d2;
  const Host back = ReadChromeTraceFile(path, d2);
  size_t samples = 0, lines = 0;
  for (const Plane& p : back.planes)
    for (const Line& l : p.lines)
      if (back.Str(l.name) == kChromeTraceCountersLine) {
        samples += l.events.size();
        ++lines;
      }
  CHECK(samples == 2);
  CHECK(lines == 1);
}

}  // namespace tfprof
