// The Chrome trace reader on real traces from the shared corpus (skipped
// when it is absent). Expected numbers were counted independently, with
// Python's json module over the same files (traceEvents by ph, pid and tid),
// and checked against the corpus MANIFEST where it gives them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>

#include "lib/read/chrome_trace_reader.h"
#include "lib/read/xplane_reader.h"
#include "tests/support/corpus.h"
#include "tests/support/skip.h"

using namespace tfprof;

namespace {

const Line* FindLine(const Host& h, const Plane& p, std::string_view name) {
  for (const Line& l : p.lines)
    if (h.LineName(l) == name) return &l;
  return nullptr;
}

size_t EventCount(const Host& h) {
  size_t n = 0;
  for (const Plane& p : h.planes) n += p.EventCount();
  return n;
}

constexpr const char* kTf2Run =
    "e4040-2022fall-assign2-vi2158/logs/fit/20221104-065558/train/plugins/profile/2022_11_04_10_56_01/";

}  // namespace

TEST_CASE("Corpus: TensorFlow 2 trace.json.gz", "[json][corpus]") {
  REQUIRE_CORPUS(path, std::string(kTf2Run) + "DESKTOP-A0O8TLF.trace.json.gz");
  Diagnostics diag;
  Host h = ReadChromeTraceFile(path, diag);
  CHECK(h.name == "DESKTOP-A0O8TLF");
  CHECK(h.gzipped);
  CHECK(h.file_bytes == 4171);
  // MANIFEST: 222 traceEvents, ph={X: 198, M: 23, {}: 1}, one process /host:CPU.
  REQUIRE(h.planes.size() == 1);
  const Plane& cpu = h.planes[0];
  CHECK(h.PlaneName(cpu) == "/host:CPU");
  CHECK(cpu.id == 501);
  CHECK(cpu.lines.size() == 11);
  CHECK(cpu.EventCount() == 198);
  // Lines in thread_sort_index order: tid 8684 (index 1, no thread_name) first.
  CHECK(cpu.lines[0].id == 8684);
  CHECK(h.LineName(cpu.lines[0]) == "tid 8684");
  CHECK(cpu.lines[0].events.size() == 82);
  CHECK(h.LineName(cpu.lines[1]) == "tf_Compute");
  CHECK(cpu.lines[1].id == 18524);
  CHECK(h.LineName(cpu.lines[10]) == "tf_data_iterator_resource");
  // {"pid":501,"tid":8684,"ts":16476.700000000001,"name":"train_function","dur":43421.099999999999,...}
  const Line& main = cpu.lines[0];
  CHECK(h.EventName(cpu, main.events[0]) == "train_function");
  CHECK(h.time_origin_ns == 16'476'000);
  CHECK(main.events[0].start_ps == 700'000);
  CHECK(main.events[0].duration_ps == 43'421'100'000);
  // Only the conventions (chrome_trace_conventions.h) were applied: ops named
  // by their long_name, string integers read as integers, the writer's 1 ps
  // floor read as the zero-length events they are.
  for (const DiagnosticEntry& e : diag.Entries()) {
    INFO(e.kind);
    CHECK(e.severity == Severity::kInfo);
    CHECK((e.kind == "json.tf_long_name" || e.kind == "json.tf_string_ints" || e.kind == "json.tf_zero_length"));
  }
}

TEST_CASE("Corpus: the trace.json.gz agrees with its xplane.pb", "[json][corpus]") {
  REQUIRE_CORPUS(json_path, std::string(kTf2Run) + "DESKTOP-A0O8TLF.trace.json.gz");
  REQUIRE_CORPUS(xplane_path, std::string(kTf2Run) + "DESKTOP-A0O8TLF.xplane.pb");
  Diagnostics diag;
  Host json = ReadChromeTraceFile(json_path, diag);
  Host xspace = ReadXSpaceFile(xplane_path, diag);
  const Plane* jp = json.FindPlane("/host:CPU");
  const Plane* xp = xspace.FindPlane("/host:CPU");
  REQUIRE(jp);
  REQUIRE(xp);
  // TensorFlow wrote the JSON from the same capture: per event name, the same
  // number of events and the same total duration (to the nanosecond: the
  // JSON's microseconds carry 17 significant digits).
  auto summarize = [](const Host& h, const Plane& p) {
    std::map<std::string, std::pair<size_t, int64_t>> by_name;
    for (const Line& l : p.lines)
      for (const Event& e : l.events) {
        auto& [count, total_ns] = by_name[std::string(h.EventName(p, e))];
        ++count;
        total_ns += e.duration_ps / 1000;
      }
    return by_name;
  };
  auto from_json = summarize(json, *jp), from_xspace = summarize(xspace, *xp);
  CHECK(from_json.size() == from_xspace.size());
  for (const auto& [name, value] : from_json) {
    INFO(name);
    REQUIRE(from_xspace.count(name));
    CHECK(value == from_xspace[name]);
  }
}

TEST_CASE("Corpus: TensorFlow 1 timeline", "[json][corpus]") {
  REQUIRE_CORPUS(path, "tf1_timelines/dlprof/mnist_xla/timeline_xla.ctf.json");
  Diagnostics diag;
  Host h = ReadChromeTraceFile(path, diag);
  CHECK(h.name == "timeline_xla.ctf");
  CHECK_FALSE(h.gzipped);
  // 77 traceEvents: M 5, X 66, s 3, t 3; only process_name metadata. Five
  // processes: Allocators and the executor's CPU:0 and GPU:0, Compute and
  // Tensors; no GPU tracer streams (XLA). The TF1 conventions make the
  // executors' lanes the host plane's lines (chrome_trace_tf1_timeline.h).
  REQUIRE(h.planes.size() == 2);
  CHECK(h.PlaneName(h.planes[0]) == "/host:CPU");
  CHECK(h.PlaneName(h.planes[1]) == "Allocators");
  REQUIRE(h.planes[0].lines.size() == 3);  // Two lanes and the session.run line.
  CHECK(h.LineName(h.planes[0].lines[0]) == "/job:localhost/replica:0/task:0/device:CPU:0 Compute/0");
  CHECK(h.planes[0].lines[0].events.size() == 3);
  const Line& gpu = h.planes[0].lines[1];
  CHECK(h.LineName(gpu) == "/job:localhost/replica:0/task:0/device:GPU:0 Compute/0");
  CHECK(gpu.events.size() == 63);
  CHECK(EventCount(h) == 66 + 1);
  // TF1 writes integer epoch microseconds: the origin is the first op's.
  CHECK(h.time_origin_ns % 1000 == 0);
  CHECK(h.time_origin_ns > 1'500'000'000'000'000'000);
  CHECK(diag.Count("json.flow_events") == 6);
}

TEST_CASE("Corpus: Kineto trace with device properties and string pids", "[json][corpus]") {
  REQUIRE_CORPUS(path, "hta/critical_path/cuda_event_sync/event_sync_trace.json.gz");
  Diagnostics diag;
  Host h = ReadChromeTraceFile(path, diag);
  // 92 traceEvents: X 33, i 2, M 36, s 7, f 14. Twelve processes: the host
  // (948300), GPUs 0-7 (metadata only but GPU 0), "Spans", "Traces", "".
  REQUIRE(h.planes.size() == 12);
  CHECK(EventCount(h) == 35);
  CHECK(h.planes[0].id == 948300);                 // Sort indexes: 948300, then 16777216 + device.
  CHECK(h.PlaneName(h.planes[0]) == "/host:CPU");  // The Kineto CPU process "python3.10".
  CHECK(h.planes[0].EventCount() == 23);
  const Plane& gpu0 = h.planes[1];
  CHECK(h.PlaneName(gpu0) == "/device:GPU:0");
  CHECK(gpu0.id == 0);
  CHECK(gpu0.device.name == "NVIDIA A100-PG509-200");
  CHECK(gpu0.device.vendor == "Nvidia");
  CHECK(gpu0.device.core_count == 108);
  CHECK(gpu0.device.compute_cap_major == 8);
  // "Device 0" (tid -1) held three cuda_sync events and "stream 7 " one
  // among its 6: they moved to the derived annotation line.
  REQUIRE(gpu0.lines.size() == 2);
  CHECK(h.LineName(gpu0.lines[1]) == "Kineto GPU annotations and syncs");
  CHECK(gpu0.lines[1].events.size() == 4);
  const Line* stream = FindLine(h, gpu0, "stream 7 ");
  REQUIRE(stream);
  CHECK(stream->id == 7);
  CHECK(stream->events.size() == 5);
  CHECK(h.planes[7].device.empty());  // GPU 6: in deviceProperties, but no events (json.kineto_idle_gpu),
  CHECK(h.planes[7].EventCount() == 0);
  CHECK(h.PlaneName(h.planes[7]) == "python3.10");  // so not a device plane.
  CHECK(h.PlaneName(h.planes[9]) == "Spans");
  CHECK(h.PlaneName(h.planes[10]) == "Traces");
  CHECK(h.PlaneName(h.planes[11]) == "pid \"\"");
  // The kernel's args, typed.
  auto correlation = gpu0.FindStatKey(h.strings, "correlation_id");  // Kineto's "correlation".
  auto grid = gpu0.FindStatKey(h.strings, "grid");
  auto occupancy = gpu0.FindStatKey(h.strings, "blocks per SM");
  REQUIRE((correlation && grid && occupancy));
  bool found = false;
  for (size_t i = 0; i < stream->events.size(); ++i) {
    for (const Stat& s : stream->EventStats(i)) {
      if (s.key() == *correlation && s.AsInt() == 1482) found = true;
    }
  }
  CHECK(found);
  CHECK(diag.Count("json.flow_events") == 21);
}

TEST_CASE("Corpus: Kineto counters and string tids", "[json][corpus]") {
  REQUIRE_CORPUS(path, "kineto/test/gpu_metrics_expected.json");
  Diagnostics diag;
  Host h = ReadChromeTraceFile(path, diag);
  // 418 traceEvents: X 254, C 78, f 32, s 32, M 20, i 2.
  CHECK(EventCount(h) == 334);
  CHECK(h.planes.size() == 11);
  size_t counter_lines = 0, counter_events = 0;
  for (const Plane& p : h.planes)
    if (const Line* c = FindLine(h, p, "_counters_")) {
      ++counter_lines;
      counter_events += c->events.size();
    }
  CHECK(counter_lines == 1);
  CHECK(counter_events == 78);
  // Older Kineto writes tids as strings ("24572"): they name numeric lines.
  const Plane* host = nullptr;
  for (const Plane& p : h.planes)
    if (p.id == 24572) host = &p;
  REQUIRE(host);
  REQUIRE(FindLine(h, *host, "thread 24572 (python)"));
  CHECK(FindLine(h, *host, "thread 24572 (python)")->id == 24572);
  CHECK(FindLine(h, *host, "thread 24572 (python)")->events.size() == 116);
}

TEST_CASE("Corpus: the hand-written trace viewer demo", "[json][corpus]") {
  REQUIRE_CORPUS(path, "tfprofiler_trace_viewer_demo/trace.json");
  Diagnostics diag;
  Host h = ReadChromeTraceFile(path, diag);
  // 37 traceEvents: B 8, E 8, I 6, C 5, X 4, P 3, M 3. Every B closes; the
  // "g"-scoped instant has no pid (pid 0), the "p"-scoped one no tid.
  CHECK(EventCount(h) == 23);
  REQUIRE(h.planes.size() == 2);
  const Plane& p = h.planes[0];
  CHECK(h.PlaneName(p) == "pid 22630");
  const Line* a = FindLine(h, p, "threadA");
  const Line* b = FindLine(h, p, "threadB");
  const Line* counters = FindLine(h, p, "_counters_");
  REQUIRE((a && b && counters));
  CHECK(a->events.size() == 13);
  CHECK(b->events.size() == 3);
  CHECK(counters->events.size() == 5);
  CHECK(FindLine(h, p, "threadC") == nullptr);  // Named, but no events.
  // Sorted: X1 and its twin at 818, "Long X type" at 820, then "A long
  // name...", which opens at 826 and is closed by the unnamed E at 833.
  CHECK(h.EventName(p, a->events[2]) == "Long X type");
  CHECK(h.EventName(p, a->events[3]) == "A long name that doesnt fit but is exceedingly informative");
  CHECK(a->events[3].duration_ps == 7'000'000);
  auto truthy = p.FindStatKey(h.strings, "value_true");
  REQUIRE(truthy);
  CHECK(a->EventStats(3).size() == 3);               // cat, name_false, value_true
  CHECK(diag.Count("json.unsupported_phase") == 3);  // The P samples.
  CHECK(diag.Count("json.unmatched_end") == 0);
  CHECK(diag.Count("json.unclosed_begin") == 0);
}

TEST_CASE("Corpus: a 54 MB Kineto trace", "[json][corpus]") {
  REQUIRE_CORPUS(path, "hta/df_index_resolver/df_index_resolver.json.gz");
  Diagnostics diag;
  Host h = ReadChromeTraceFile(path, diag);
  // MANIFEST: 216092 traceEvents; ph={X: 123379, f: 42373, i: 28012, s: 22290, M: 38}.
  CHECK(EventCount(h) == 123379 + 28012);
  CHECK(diag.Count("json.flow_events") == 42373 + 22290);
  for (const Plane& p : h.planes)
    for (const Line& l : p.lines) CHECK(l.IsSorted());
}
