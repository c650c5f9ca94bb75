// TensorFlow 1 timeline.json read as XPlanes: which processes become the
// host plane and the device planes, the copies told from the kernels, and
// numbered timeline files of a folder gathered as the steps of one host.
// Small traces written here mimic what TF1's timeline.py writes; the
// analyses over real ones are tests/analyze/tf1_timeline_test.cc.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "lib/model/errors.h"
#include "lib/model/tf1_timeline.h"
#include "lib/read/capture_discovery.h"
#include "lib/read/capture_loader.h"
#include "lib/read/chrome_trace_reader.h"
#include "tests/support/corpus.h"
#include "tests/support/model_lookup.h"
#include "tests/support/skip.h"

using namespace tfprof;
using tfprof::testing::EventStat;
using tfprof::testing::PlaneNamed;
using tfprof::testing::PlaneNames;

namespace {

namespace fs = std::filesystem;

const Line* LineWithId(const Plane& p, int64_t id) {
  for (const Line& l : p.lines)
    if (l.id == id) return &l;
  return nullptr;
}

std::string StatText(const Host& h, const Plane& p, const Line& l, size_t i, std::string_view name) {
  auto s = EventStat(h, p, l, i, name);
  return s ? std::string(h.Str(s->AsString())) : std::string();
}

// One GPU, TF 1.x device names: the executor's CPU and GPU, the tracer's
// stream 7 (a kernel, and a copy MatMul issued itself) and stream 14 (an edge
// copy), each repeated on stream:all (kernels) or memcpy (copies).
constexpr const char* kGpuTimeline = R"json({"traceEvents": [
  {"ph":"M","pid":0,"name":"process_name","args":{"name":"Allocators"}},
  {"ph":"M","pid":1,"name":"process_name","args":{"name":"/job:localhost/replica:0/task:0/device:CPU:0 Compute"}},
  {"ph":"M","pid":2,"name":"process_name","args":{"name":"/job:localhost/replica:0/task:0/device:CPU:0 Tensors"}},
  {"ph":"M","pid":3,"name":"process_name","args":{"name":"/job:localhost/replica:0/task:0/device:GPU:0 Compute"}},
  {"ph":"M","pid":4,"name":"process_name","args":{"name":"/job:localhost/replica:0/task:0/device:GPU:0 Tensors"}},
  {"ph":"M","pid":5,"name":"process_name","args":{"name":"/device:GPU:0/stream:all Compute"}},
  {"ph":"M","pid":6,"name":"process_name","args":{"name":"/device:GPU:0/stream:all Tensors"}},
  {"ph":"M","pid":7,"name":"process_name","args":{"name":"/device:GPU:0/stream:7 Compute"}},
  {"ph":"M","pid":8,"name":"process_name","args":{"name":"/device:GPU:0/stream:7 Tensors"}},
  {"ph":"M","pid":9,"name":"process_name","args":{"name":"/device:GPU:0/memcpy Compute"}},
  {"ph":"M","pid":10,"name":"process_name","args":{"name":"/device:GPU:0/memcpy Tensors"}},
  {"ph":"M","pid":11,"name":"process_name","args":{"name":"/device:GPU:0/stream:14 Compute"}},
  {"ph":"M","pid":12,"name":"process_name","args":{"name":"/device:GPU:0/stream:14 Tensors"}},
  {"ph":"X","cat":"Op","name":"_Arg","pid":1,"tid":0,"ts":1000,"dur":5,"args":{"name":"_arg_x_0_0","op":"_Arg"}},
  {"ph":"X","cat":"Op","name":"NoOp","pid":3,"tid":0,"ts":1001,"dur":2,"args":{"name":"_SOURCE","op":"NoOp"}},
  {"ph":"X","cat":"Op","name":"MatMul","pid":3,"tid":0,"ts":1010,"dur":20,"args":{"name":"dense/MatMul","op":"MatMul","input0":"x","input1":"w"}},
  {"ph":"X","cat":"Op","name":"Relu","pid":3,"tid":1,"ts":1012,"dur":4,"args":{"name":"dense/Relu","op":"Relu","input0":"dense/MatMul"}},
  {"ph":"s","cat":"DataFlow","name":"dense/MatMul","pid":3,"tid":0,"ts":1030,"id":0},
  {"ph":"X","cat":"Op","name":"MatMul","pid":5,"tid":0,"ts":1040,"dur":100,"args":{"name":"dense/MatMul","op":"MatMul"}},
  {"ph":"X","cat":"Op","name":"MatMul","pid":7,"tid":0,"ts":1040,"dur":100,"args":{"name":"dense/MatMul","op":"MatMul"}},
  {"ph":"X","cat":"Op","name":"MatMul","pid":7,"tid":1,"ts":1140,"dur":1,"args":{"name":"dense/MatMul","op":"MatMul"}},
  {"ph":"X","cat":"Op","name":"MatMul","pid":9,"tid":0,"ts":1140,"dur":1,"args":{"name":"dense/MatMul","op":"MatMul"}},
  {"ph":"X","cat":"Op","name":"MEMCPYDtoH","pid":9,"tid":0,"ts":1150,"dur":3,"args":{"name":"edge_5_dense/Relu","op":"MEMCPYDtoH"}},
  {"ph":"X","cat":"Op","name":"MEMCPYDtoH","pid":11,"tid":0,"ts":1150,"dur":3,"args":{"name":"edge_5_dense/Relu","op":"MEMCPYDtoH"}}
]})json";

}  // namespace

TEST_CASE("TF1 timeline: executor processes are host lines, the GPU tracer's streams one device plane", "[read][tf1]") {
  Diagnostics d;
  Host h = ReadChromeTraceText(kGpuTimeline, "timeline_01.json", d);
  // /host:CPU, one GPU, Allocators: no plane per stream view, none per Tensors.
  REQUIRE(PlaneNames(h) == std::vector<std::string>{"/host:CPU", "/device:GPU:0", "Allocators"});

  const Plane& cpu = h.planes[0];
  // A line per executor lane, and the session.run line.
  REQUIRE(cpu.lines.size() == 4);
  CHECK(h.LineName(cpu.lines[0]) == "/job:localhost/replica:0/task:0/device:CPU:0 Compute/0");
  CHECK(h.LineName(cpu.lines[1]) == "/job:localhost/replica:0/task:0/device:GPU:0 Compute/0");
  CHECK(h.LineName(cpu.lines[2]) == "/job:localhost/replica:0/task:0/device:GPU:0 Compute/1");
  const Line& gpu_lane = cpu.lines[1];
  REQUIRE(gpu_lane.events.size() == 2);
  CHECK(h.EventName(cpu, gpu_lane.events[1]) == "MatMul");
  CHECK(StatText(h, cpu, gpu_lane, 1, "tf_op") == "dense/MatMul");
  CHECK(StatText(h, cpu, gpu_lane, 1, "tf_op_type") == "MatMul");
  CHECK(StatText(h, cpu, gpu_lane, 1, "input1") == "w");  // Other args stay.
  const Line* runs = LineWithId(cpu, kTf1SessionRunLineId);
  REQUIRE(runs);
  REQUIRE(runs->events.size() == 1);
  CHECK(h.EventName(cpu, runs->events[0]) == "session.run");
  // From the first event (1000 us) to the last end (1153 us).
  CHECK(runs->events[0].duration_ps == 153 * int64_t{1'000'000});
  CHECK(h.time_origin_ns + runs->events[0].start_ps / 1000 == 1000 * 1000);
  CHECK(StatText(h, cpu, *runs, 0, "timeline_file") == "timeline_01.json");

  const Plane& gpu = h.planes[1];
  REQUIRE(gpu.lines.size() == 2);
  const Line* s7 = LineWithId(gpu, 7);
  const Line* s14 = LineWithId(gpu, 14);
  REQUIRE(s7);
  REQUIRE(s14);
  CHECK(h.LineName(*s7) == "Stream #7");
  // Both lanes of stream 7: the kernel, and the copy MatMul issued itself.
  REQUIRE(s7->events.size() == 2);
  CHECK(h.EventName(gpu, s7->events[0]) == "MatMul");
  CHECK(h.Str(gpu.event_metadata[s7->events[1].metadata].name) == "MEMCPY");
  CHECK(h.EventName(gpu, s7->events[1]) == "MatMul");  // The display name keeps the op type.
  CHECK(StatText(h, gpu, *s7, 1, "tf_op") == "dense/MatMul");
  REQUIRE(s14->events.size() == 1);
  CHECK(h.EventName(gpu, s14->events[0]) == "MEMCPYDtoH");
  CHECK(StatText(h, gpu, *s14, 0, "tf_op_type") == "MEMCPYDtoH");
  // Stream lines share the device's first event as timestamp, as on an XPlane.
  CHECK(s7->timestamp_ns == s14->timestamp_ns);
  CHECK(IsTf1TimelinePlane(h, gpu));

  CHECK(d.Count("json.tf1_timeline") == 7);          // 4 host ops + 3 stream events.
  CHECK(d.Count("json.tf1_duplicate_events") == 3);  // 1 on stream:all, 2 on memcpy.
  CHECK(d.Count("json.tf1_op_copies") == 1);
  CHECK(d.Count("json.kineto_gpu_plane") == 0);  // Not read as Kineto's.
}

TEST_CASE("TF1 timeline without per-stream processes: stream:all and memcpy are the device's lines", "[read][tf1]") {
  constexpr const char* kTrace = R"json({"traceEvents": [
    {"ph":"M","pid":1,"name":"process_name","args":{"name":"/gpu:1/stream:all Compute"}},
    {"ph":"M","pid":2,"name":"process_name","args":{"name":"/gpu:1/memcpy Compute"}},
    {"ph":"M","pid":3,"name":"process_name","args":{"name":"/job:localhost/replica:0/task:0/gpu:1 Compute"}},
    {"ph":"X","cat":"Op","name":"Conv2D","pid":1,"tid":0,"ts":10,"dur":7,"args":{"name":"conv/Conv2D","op":"Conv2D","kernel":"implicit_convolve_sgemm"}},
    {"ph":"X","cat":"Op","name":"MEMCPYHtoD","pid":2,"tid":0,"ts":2,"dur":3,"args":{"name":"edge_1_x","op":"MEMCPYHtoD"}},
    {"ph":"X","cat":"Op","name":"Conv2D","pid":3,"tid":0,"ts":1,"dur":4,"args":{"name":"conv/Conv2D","op":"Conv2D"}}
  ]})json";
  Diagnostics d;
  Host h = ReadChromeTraceText(kTrace, "timeline.json", d);
  const Plane& gpu = PlaneNamed(h, "/device:GPU:1");  // The old name's ordinal.
  REQUIRE(gpu.lines.size() == 2);
  CHECK(h.LineName(gpu.lines[0]) == "stream:all");
  CHECK(h.LineName(gpu.lines[1]) == "memcpy");
  // ROCm builds name the kernel: it names the event, the op type is shown.
  CHECK(h.Str(gpu.event_metadata[gpu.lines[0].events[0].metadata].name) == "implicit_convolve_sgemm");
  CHECK(h.EventName(gpu, gpu.lines[1].events[0]) == "MEMCPYHtoD");
  CHECK(d.Count("json.tf1_duplicate_events") == 0);
  CHECK(PlaneNamed(h, "/host:CPU").lines.size() == 2);  // The lane and session.run.
}

TEST_CASE("TF1 timeline: two tracer devices with one ordinal get two planes", "[read][tf1]") {
  constexpr const char* kTrace = R"json({"traceEvents": [
    {"ph":"M","pid":1,"name":"process_name","args":{"name":"/device:GPU:0/stream:3 Compute"}},
    {"ph":"M","pid":2,"name":"process_name","args":{"name":"/job:worker/replica:0/task:1/device:GPU:0/stream:3 Compute"}},
    {"ph":"X","cat":"Op","name":"Add","pid":1,"tid":0,"ts":10,"dur":7,"args":{"name":"a","op":"Add"}},
    {"ph":"X","cat":"Op","name":"Add","pid":2,"tid":0,"ts":12,"dur":7,"args":{"name":"b","op":"Add"}}
  ]})json";
  Diagnostics d;
  Host h = ReadChromeTraceText(kTrace, "timeline.json", d);
  CHECK(PlaneNamed(h, "/device:GPU:0").EventCount() == 1);
  CHECK(PlaneNamed(h, "/device:GPU:1").EventCount() == 1);
}

TEST_CASE("Traces that only look like TF1's are left alone", "[read][tf1]") {
  // "Compute" processes not named after a TF device.
  constexpr const char* kTrace = R"json({"traceEvents": [
    {"ph":"M","pid":1,"name":"process_name","args":{"name":"Renderer Compute"}},
    {"ph":"X","name":"paint","pid":1,"tid":0,"ts":10,"dur":7}
  ]})json";
  Diagnostics d;
  Host h = ReadChromeTraceText(kTrace, "trace.json", d);
  REQUIRE(PlaneNames(h) == std::vector<std::string>{"Renderer Compute"});
  CHECK(d.Count("json.tf1_timeline") == 0);
  CHECK(!Tf1SessionRunLine(h));
}

TEST_CASE("TF1 corpus timeline: one GPU plane with one line per stream, the stream views and Tensors gone",
          "[read][tf1][corpus]") {
  REQUIRE_CORPUS(path, "tf1_timelines/dlprof/misc/timelines/feeddict/timeline_01.json");
  Diagnostics d;
  Host h = ReadChromeTraceFile(path, d);
  // 15 processes (Allocators, 7 devices x Compute/Tensors): 3 planes.
  REQUIRE(h.planes.size() == 3);
  const Plane& gpu = PlaneNamed(h, "/device:GPU:0");
  std::vector<int64_t> ids;
  for (const Line& l : gpu.lines) ids.push_back(l.id);
  CHECK(ids == std::vector<int64_t>{13, 14, 15});
  // stream:13 126 + 14 5 + 15 1 events (counted in the file).
  CHECK(gpu.EventCount() == 132);
  CHECK(d.Count("json.tf1_duplicate_events") == 118 + 14);  // stream:all + memcpy.
  // memcpy's events whose op is not a MEMCPY: Assign x4, MatMul x2, ConcatV2 x2.
  CHECK(d.Count("json.tf1_op_copies") == 8);
  for (const Plane& p : h.planes) {
    CHECK(std::string(h.PlaneName(p)).find("stream:") == std::string::npos);
    CHECK(std::string(h.PlaneName(p)).find("Tensors") == std::string::npos);
  }
}

TEST_CASE("Numbered TF1 timelines in a folder are the steps of one host", "[read][tf1][discovery]") {
  const fs::path dir = fs::temp_directory_path() / ("tfprof_tf1_series_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) { std::ofstream(dir / name) << text; };
  auto timeline = [](int ts) {
    return std::string(
               R"({"traceEvents":[{"ph":"M","pid":1,"name":"process_name","args":{"name":"/job:localhost/replica:0/task:0/device:CPU:0 Compute"}},)") +
           R"({"ph":"X","cat":"Op","name":"MatMul","pid":1,"tid":0,"ts":)" + std::to_string(ts) +
           R"(,"dur":10,"args":{"name":"mm","op":"MatMul"}}]})";
  };
  // Numeric order, not the names': 2 before 10.
  write("timeline_10.json", timeline(3000));
  write("timeline_1.json", timeline(1000));
  write("timeline_2.json", timeline(2000));
  write("timeline_base.ctf.json", timeline(5000));  // Not numbered: a host of its own.
  DiscoveredInput in = DiscoverInput(dir.string());
  REQUIRE(in.selected.files.size() == 2);
  const CaptureFile& series = in.selected.files[0];
  CHECK(series.host == "timeline");
  CHECK(fs::path(series.path).filename() == "timeline_1.json");
  REQUIRE(series.more_steps.size() == 2);
  CHECK(fs::path(series.more_steps[0]).filename() == "timeline_2.json");
  CHECK(fs::path(series.more_steps[1]).filename() == "timeline_10.json");
  CHECK(in.selected.files[1].host == "timeline_base.ctf");

  Diagnostics d;
  Host h = LoadCapture(series, d);
  const Line* runs = Tf1SessionRunLine(h);
  REQUIRE(runs);
  REQUIRE(runs->events.size() == 3);
  const Plane& cpu = PlaneNamed(h, "/host:CPU");
  for (size_t i = 0; i < 3; ++i) {
    // Each file's session.run where its op ran, on the first file's clock.
    CHECK(h.time_origin_ns + runs->events[i].start_ps / 1000 == int64_t{1000} * 1000 * static_cast<int64_t>(i + 1));
    CHECK(runs->events[i].duration_ps == 10 * int64_t{1'000'000});
  }
  CHECK(StatText(h, cpu, *runs, 2, "timeline_file") == "timeline_10.json");
  REQUIRE(cpu.lines.size() == 2);  // One lane, the same in every file, and session.run.
  CHECK(cpu.lines[0].events.size() == 3);

  // A lone file named like a series' takes the name; the series is then
  // named by its first and last files.
  write("timeline.json", timeline(4000));
  DiscoveredInput again = DiscoverInput(dir.string());
  REQUIRE(again.selected.files.size() == 3);
  CHECK(again.selected.files[0].host == "timeline");
  CHECK(again.selected.files[0].more_steps.empty());
  CHECK(again.selected.files[1].host == "timeline_1..timeline_10");

  // A file numbered into a series that is not a TF1 timeline is an input
  // error naming it.
  write("timeline_11.json", R"({"traceEvents":[{"ph":"X","name":"x","pid":1,"tid":1,"ts":1,"dur":1}]})");
  DiscoveredInput bad = DiscoverInput(dir.string());
  const CaptureFile* with_bad = nullptr;
  for (const CaptureFile& c : bad.selected.files)
    if (!c.more_steps.empty()) with_bad = &c;
  REQUIRE(with_bad);
  try {
    LoadCapture(*with_bad, d);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(fs::path(e.path()).filename() == "timeline_11.json");
    CHECK_THAT(e.what(), Catch::Contains("not a TF1 timeline"));
  }
  fs::remove_all(dir);
}
