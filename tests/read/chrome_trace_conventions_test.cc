// Chrome trace conventions: TensorFlow's long_name and Kineto's processes,
// streams, copies and correlation ids mapped onto the XPlane's, on small
// traces written here (real traces: tests/analyze/kineto_steps_test.cc).
#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include "lib/model/xplane_schema.h"
#include "lib/read/chrome_trace_conventions.h"
#include "lib/read/chrome_trace_reader.h"
#include "lib/summary/event_grouping.h"
#include "tests/support/model_lookup.h"

using namespace tfprof;
using tfprof::testing::EventStat;
using tfprof::testing::PlaneNamed;

namespace {

Host ReadText(const std::string& json, Diagnostics& diag) {
  return ReadChromeTraceText(json, "mem.pt.trace.json", diag);
}

std::string PlaneStat(const Host& h, const Plane& p, std::string_view name) {
  auto key = p.FindStatKey(h.strings, name);
  REQUIRE(key);
  for (const Stat& s : p.plane_stats)
    if (s.key() == *key) return std::string(h.Str(s.AsString()));
  FAIL("no plane stat " << name);
  return {};
}

const Line* LineWithId(const Plane& p, int64_t id) {
  for (const Line& l : p.lines)
    if (l.id == id) return &l;
  return nullptr;
}

// A two-step PyTorch GPU trace: each ProfilerStep launches one kernel and
// copies one batch to the device; the GPU repeats the step as a
// gpu_user_annotation and syncs once.
constexpr const char* kKinetoTrace = R"json({"traceEvents": [
  {"ph":"M","pid":300,"tid":0,"name":"process_name","args":{"name":"python3.10"}},
  {"ph":"M","pid":300,"tid":0,"name":"process_labels","args":{"labels":"CPU"}},
  {"ph":"M","pid":0,"tid":0,"name":"process_name","args":{"name":"python3.10"}},
  {"ph":"M","pid":0,"tid":0,"name":"process_labels","args":{"labels":"GPU 0"}},
  {"ph":"M","pid":1,"tid":0,"name":"process_name","args":{"name":"python3.10"}},
  {"ph":"M","pid":1,"tid":0,"name":"process_labels","args":{"labels":"GPU 1"}},
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#4","pid":300,"tid":300,"ts":100,"dur":100},
  {"ph":"X","cat":"user_annotation","name":"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__","pid":300,"tid":300,"ts":101,"dur":20},
  {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":300,"tid":300,"ts":130,"dur":30},
  {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":300,"tid":300,"ts":122,"dur":5,"args":{"correlation":10}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":300,"tid":300,"ts":140,"dur":10,"args":{"correlation":11}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize","pid":300,"tid":300,"ts":170,"dur":20,"args":{"correlation":12}},
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#5","pid":300,"tid":300,"ts":200,"dur":100},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":300,"tid":300,"ts":240,"dur":10,"args":{"correlation":21}},
  {"ph":"X","cat":"gpu_user_annotation","name":"ProfilerStep#4","pid":0,"tid":"stream 7","ts":125,"dur":60},
  {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":"stream 7","ts":125,"dur":5,"args":{"stream":7,"correlation":10}},
  {"ph":"X","cat":"kernel","name":"sgemm","pid":0,"tid":"stream 7","ts":150,"dur":30,"args":{"stream":7,"correlation":11,"grid":[4,1,1],"block":[128,1,1]}},
  {"ph":"X","cat":"cuda_sync","name":"Stream Sync","pid":0,"tid":"stream 7","ts":180,"dur":8,"args":{"stream":7,"correlation":12}},
  {"ph":"X","cat":"kernel","name":"sgemm","pid":0,"tid":"stream 7","ts":260,"dur":60,"args":{"stream":7,"correlation":21,"grid":[4,1,1],"block":[128,1,1]}}
]})json";

}  // namespace

TEST_CASE("Kineto: the CPU process is the host plane, GPU processes are device planes", "[json][kineto]") {
  Diagnostics diag;
  Host h = ReadText(kKinetoTrace, diag);
  const Plane& cpu = PlaneNamed(h, schema::kHostThreadsPlane);
  CHECK(cpu.id == 300);
  CHECK(PlaneStat(h, cpu, "process_name") == "python3.10");
  CHECK(diag.Count("json.kineto_host_plane") == 1);
  const Plane& gpu = PlaneNamed(h, "/device:GPU:0");
  CHECK(PlaneStat(h, gpu, "process_name") == "python3.10");
  CHECK(diag.Count("json.kineto_gpu_plane") == 1);
  // GPU 1 has no events: left as it was (a plane per idle device would count
  // eight devices on a one-GPU run).
  CHECK(h.FindPlane("/device:GPU:1") == nullptr);

  // The stream line has the stream number as id; the annotation and the
  // sync moved to a derived line, which analyses skip.
  const Line* stream = LineWithId(gpu, 7);
  REQUIRE(stream);
  REQUIRE(stream->events.size() == 3);
  const Line* derived = LineWithId(gpu, kKinetoAnnotationLineId);
  REQUIRE(derived);
  CHECK(schema::IsDerivedLineId(derived->id));
  REQUIRE(derived->events.size() == 2);
  CHECK(h.EventName(gpu, derived->events[0]) == "ProfilerStep#4");
  CHECK(diag.Count("json.kineto_device_annotations") == 2);

  // The copy is named as the XPlane names it; the Kineto name is its display name.
  const EventMetadata& copy = gpu.event_metadata[stream->events[0].metadata];
  CHECK(h.Str(copy.name) == "MEMCPYHtoD");
  CHECK(h.EventName(gpu, stream->events[0]) == "Memcpy HtoD (Pageable -> Device)");
  CHECK(diag.Count("json.kineto_memcpy_names") == 1);

  // correlation -> correlation_id, on both sides.
  auto corr = EventStat(h, gpu, *stream, 1, "correlation_id");
  REQUIRE(corr);
  CHECK(corr->AsInt() == 11);
  CHECK(cpu.FindStatKey(h.strings, "correlation_id"));
  CHECK_FALSE(cpu.FindStatKey(h.strings, "correlation"));
  CHECK(diag.Count("json.kineto_correlation") ==
        4 + 4);  // 4 on the device (the sync moved, still counted), 4 on the host.
  // Kernel stats still read the launch parameters.
  CHECK(EventStat(h, gpu, *stream, 1, "grid"));
}

TEST_CASE("Kineto: a host process with pid 1 stays the host though Kineto labels pid 1 GPU 1", "[json][kineto]") {
  // In a container the Python process is pid 1, the pid Kineto gives GPU
  // 1's process (an MI300X resnet18 trace from AMD-AGI/TraceLens: its
  // runtime calls were read as a second GPU, its [memory] events lost).
  std::string trace = kKinetoTrace;
  for (size_t at = trace.find("\"pid\":300"); at != std::string::npos; at = trace.find("\"pid\":300", at))
    trace.replace(at, 9, "\"pid\":1");
  // Kineto writes the host's labels first, the GPU processes' after.
  const std::string host_first =
      "{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_labels\",\"args\":{\"labels\":\"CPU\"}}";
  REQUIRE(trace.find(host_first) < trace.find("\"labels\":\"GPU 1\""));
  // deviceProperties lists every GPU of the machine, GPU 1 too.
  trace.replace(trace.rfind("]}"), 2,
                "], \"deviceProperties\": [{\"id\": 0, \"name\": \"AMD Instinct MI300X\", \"computeMajor\": 9}, "
                "{\"id\": 1, \"name\": \"AMD Instinct MI300X\", \"computeMajor\": 9}]}");
  Diagnostics diag;
  Host h = ReadText(trace, diag);
  const Plane& cpu = PlaneNamed(h, schema::kHostThreadsPlane);
  CHECK(cpu.id == 1);
  CHECK(cpu.device.name.empty());  // No deviceProperties entry of GPU 1 attached either.
  CHECK(diag.Count("json.kineto_host_pid_shared") == 1);
  CHECK(h.FindPlane("/device:GPU:0") != nullptr);
  CHECK(h.FindPlane("/device:GPU:1") == nullptr);
  size_t gpus = 0;
  for (const Plane& p : h.planes) gpus += schema::IsGpuPlane(h.PlaneName(p));
  CHECK(gpus == 1);
}

TEST_CASE("Kineto: ProfilerStep#N are the steps by default and kernels join their launch's step",
          "[json][kineto][steps]") {
  Diagnostics diag;
  Host h = ReadText(kKinetoTrace, diag);
  EventGroups groups = GroupEvents(h, diag);
  REQUIRE(groups.groups.size() == 2);
  CHECK(groups.groups[0].name == "ProfilerStep#4");
  CHECK(groups.groups[0].step_number == 4);
  CHECK(groups.groups[1].name == "ProfilerStep#5");
  CHECK(groups.from_marker);
  CHECK(groups.note.find("ProfilerStep#") != std::string::npos);
  CHECK(diag.Count("steps.profiler_step_marker") == 2);
  size_t g = 0;
  for (; g < h.planes.size(); ++g)
    if (h.PlaneName(h.planes[g]) == "/device:GPU:0") break;
  REQUIRE(g < h.planes.size());
  const Plane& gpu = h.planes[g];
  for (size_t l = 0; l < gpu.lines.size(); ++l) {
    if (gpu.lines[l].id != 7) continue;
    CHECK(groups.Of(g, l, 0) == 0);  // The copy of step 4.
    CHECK(groups.Of(g, l, 1) == 0);  // Its kernel.
    CHECK(groups.Of(g, l, 2) == 1);  // Step 5's kernel.
  }
  // An explicit marker wins over the default.
  AnalysisOptions only_first;
  only_first.step_marker = "^ProfilerStep#4$";
  Diagnostics d2;
  EventGroups one = GroupEvents(h, d2, only_first);
  CHECK(one.groups.size() == 1);
  CHECK(one.note.empty());
}

TEST_CASE("Kineto: several CPU processes merge into the host plane", "[json][kineto]") {
  Diagnostics diag;
  Host h = ReadText(R"([
    {"ph":"M","pid":10,"tid":0,"name":"process_name","args":{"name":"trainer"}},
    {"ph":"M","pid":10,"tid":0,"name":"process_labels","args":{"labels":"CPU"}},
    {"ph":"M","pid":20,"tid":0,"name":"process_name","args":{"name":"worker"}},
    {"ph":"X","cat":"cpu_op","name":"aten::add","pid":10,"tid":1,"ts":1,"dur":5,"args":{"External id":3}},
    {"ph":"X","cat":"cpu_op","name":"aten::add","pid":20,"tid":1,"ts":2,"dur":5,"args":{"Input Dims":[[1]]}},
    {"ph":"X","cat":"cpu_op","name":"aten::mul","pid":20,"tid":2,"ts":3,"dur":5}
  ])",
                    diag);
  REQUIRE(h.planes.size() == 1);
  const Plane& cpu = h.planes[0];
  CHECK(h.PlaneName(cpu) == schema::kHostThreadsPlane);
  CHECK(PlaneStat(h, cpu, "process_name") == "trainer, worker");
  CHECK(diag.Count("json.kineto_host_plane") == 2);
  REQUIRE(cpu.lines.size() == 3);  // Thread 1 of both processes, kept apart.
  CHECK(cpu.lines[0].id != cpu.lines[1].id);
  // The merged events point at the host plane's names and stat keys.
  const Line& moved = cpu.lines[1];
  CHECK(h.EventName(cpu, moved.events[0]) == "aten::add");
  CHECK(EventStat(h, cpu, moved, 0, "Input Dims"));
  CHECK(EventStat(h, cpu, cpu.lines[0], 0, "External id")->AsInt() == 3);
}

TEST_CASE("TensorFlow trace viewer JSON: long_name names the op, string integers are integers", "[json]") {
  Diagnostics diag;
  Host h = ReadText(R"([
    {"ph":"M","pid":501,"name":"process_name","args":{"name":"/host:CPU"}},
    {"ph":"X","pid":501,"tid":1,"ts":1,"dur":5,"name":"_Send","args":{"group_id":"3","is_eager":"0","long_name":"IteratorGetNext/_3:_Send"}},
    {"ph":"X","pid":501,"tid":1,"ts":7,"dur":5,"name":"_Send","args":{"group_id":"3","long_name":"IteratorGetNext/_6:_Send"}},
    {"ph":"X","pid":501,"tid":1,"ts":13,"dur":5,"name":"_Send"},
    {"ph":"X","pid":501,"tid":1,"ts":19,"dur":5,"name":"train_function","args":{"tracing_count":"2"}}
  ])",
                    diag);
  const Plane& cpu = PlaneNamed(h, schema::kHostThreadsPlane);
  const Line& l = cpu.lines[0];
  CHECK(h.Str(cpu.event_metadata[l.events[0].metadata].name) == "IteratorGetNext/_3:_Send");
  CHECK(h.Str(cpu.event_metadata[l.events[1].metadata].name) == "IteratorGetNext/_6:_Send");
  CHECK(h.EventName(cpu, l.events[0]) == "_Send");                         // Display name.
  CHECK(h.Str(cpu.event_metadata[l.events[2].metadata].name) == "_Send");  // No long_name: as it was.
  CHECK(diag.Count("json.tf_long_name") == 2);
  auto g = EventStat(h, cpu, l, 0, "group_id");
  REQUIRE(g);
  CHECK(g->type() == StatType::kInt64);
  CHECK(g->AsInt() == 3);
  CHECK(EventStat(h, cpu, l, 0, "is_eager")->type() == StatType::kInt64);
  CHECK(EventStat(h, cpu, l, 3, "tracing_count")->type() == StatType::kString);  // Not a stat analyses read.
  CHECK(diag.Count("json.tf_string_ints") == 3);
  CHECK(diag.Count("json.kineto_host_plane") == 0);  // Not Kineto.
}

TEST_CASE("Kineto: a host process with pid 1 that ran on GPU 1 keeps its kernels as GPU 1's", "[json][kineto]") {
  // One container per rank, all GPUs visible: rank 1's Python is pid 1 and
  // runs on cuda:1, so Kineto writes GPU 1's kernels under pid 1 too.
  const std::string trace = R"json({"traceEvents": [
    {"ph":"M","pid":1,"tid":0,"name":"process_labels","args":{"labels":"CPU"}},
    {"ph":"M","pid":0,"tid":0,"name":"process_labels","args":{"labels":"GPU 0"}},
    {"ph":"M","pid":1,"tid":0,"name":"process_labels","args":{"labels":"GPU 1"}},
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":110,"dur":50},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":120,"dur":10,"args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"sgemm","pid":1,"tid":7,"ts":140,"dur":40,"args":{"correlation":1,"device":1,"stream":7}},
    {"ph":"X","cat":"kernel","name":"sgemm","pid":1,"tid":7,"ts":240,"dur":40,"args":{"correlation":2,"device":1,"stream":7}}
  ]})json";
  Diagnostics diag;
  Host h = ReadText(trace, diag);
  const Plane& cpu = PlaneNamed(h, schema::kHostThreadsPlane);
  CHECK(cpu.id == 1);
  CHECK(cpu.EventCount() == 2);
  const Plane* gpu = h.FindPlane("/device:GPU:1");
  REQUIRE(gpu);
  CHECK(gpu->EventCount() == 2);
  CHECK(h.FindPlane("/device:GPU:0") == nullptr);
  CHECK(diag.Count("json.kineto_host_pid_shared") == 1);
}

TEST_CASE("TensorFlow trace viewer JSON: a 1 ps duration is a zero-length event, elsewhere it stays", "[json]") {
  // xprof's writer floors every duration at 1 ps (1e-06 us); its own tools
  // read the XSpace's 0.
  Diagnostics diag;
  Host h = ReadText(R"([
    {"ph":"M","pid":501,"name":"process_name","args":{"name":"/host:CPU"}},
    {"ph":"M","pid":7,"name":"process_name","args":{"name":"my tool"}},
    {"ph":"M","pid":502,"name":"process_name","args":{"name":"/device:GPU:0"}},
    {"ph":"X","pid":502,"tid":3,"ts":1,"dur":1e-06,"name":"empty_kernel"},
    {"ph":"X","pid":501,"tid":1,"ts":1,"dur":1e-06,"name":"VarHandleOp"},
    {"ph":"X","pid":501,"tid":1,"ts":2,"dur":2e-06,"name":"ReadVariableOp"},
    {"ph":"X","pid":7,"tid":1,"ts":1,"dur":1e-06,"name":"tiny"}
  ])",
                    diag);
  const Plane& cpu = PlaneNamed(h, schema::kHostThreadsPlane);
  REQUIRE(cpu.lines[0].events.size() == 2);
  CHECK(cpu.lines[0].events[0].duration_ps == 0);
  CHECK(cpu.lines[0].events[1].duration_ps == 2);
  CHECK(PlaneNamed(h, "my tool").lines[0].events[0].duration_ps == 1);
  CHECK(PlaneNamed(h, "/device:GPU:0").lines[0].events[0].duration_ps == 0);
  CHECK(diag.Count("json.tf_zero_length") == 2);
  CHECK(diag.Count("json.unknown_producer") == 0);  // A TensorFlow process is there.
}

TEST_CASE("A Chrome trace of another producer is read as it is, and said to be", "[json]") {
  // ONNX Runtime's profile: a bare array of categories Session and Node.
  Diagnostics diag;
  Host h = ReadText(R"([
    {"cat":"Session","pid":34368,"tid":39520,"dur":698,"ts":11,"ph":"X","name":"model_loading_array","args":{}},
    {"cat":"Node","pid":34368,"tid":39520,"dur":66055,"ts":16800,"ph":"X","name":"Convolution28_kernel_time","args":{"op_name":"Conv","provider":"CUDAExecutionProvider"}}
  ])",
                    diag);
  CHECK(h.framework == Framework::kUnknown);
  CHECK(diag.Count("json.unknown_producer") == 1);
  bool warned = false;
  for (const DiagnosticEntry& e : diag.Entries())
    warned = warned || (e.kind == "json.unknown_producer" && e.severity == Severity::kWarning);
  CHECK(warned);
  // A Kineto trace is not: it has categories.
  Diagnostics kineto;
  ReadText(R"([{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":5}])", kineto);
  CHECK(kineto.Count("json.unknown_producer") == 0);
  // Nor is an empty trace: nothing was read for the analyses to miss.
  Diagnostics empty;
  ReadText(R"([{"ph":"M","pid":7,"name":"process_name","args":{"name":"x"}}])", empty);
  CHECK(empty.Count("json.unknown_producer") == 0);
}
