// The model dump of `info --dump` (lib/analyze/host_to_text_dump.h): what
// each stat type, hostile name and limit looks like, on a model built here
// (the reader-level cases are the text diff tests of tests/diff/read/).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <sstream>

#include "lib/analyze/host_to_text_dump.h"
#include "lib/read/chrome_trace_reader.h"

namespace tfprof {
namespace {

// One host, one plane "/host:CPU" with stats a..f, one line of `events`
// events named "op", each with stat a = its index.
Host MakeHost(int events) {
  Host host;
  host.name = "h";
  host.source_path = "dir/h.xplane.pb";
  Plane plane;
  plane.id = 7;
  plane.name = host.strings.Intern("/host:CPU");
  for (const char* name : {"a", "b", "c", "d", "e", "f name"})
    plane.stat_metadata.push_back({host.strings.Intern(name)});
  plane.event_metadata.push_back({host.strings.Intern("op"), StringPool::kEmpty, 0, 0});
  Line line;
  line.id = 3;
  line.name = host.strings.Intern("thread");
  for (int i = 0; i < events; ++i) {
    line.stats.push_back(Stat::Int(0, i));
    line.events.push_back(Event{1000 * i, 10, 0, static_cast<uint32_t>(line.stats.size())});
  }
  plane.lines.push_back(std::move(line));
  host.planes.push_back(std::move(plane));
  return host;
}

std::string Dump(const Host& host, TextDumpLimits limits = {}) {
  std::ostringstream out;
  HostToTextDump(host, limits, out);
  return out.str();
}

TEST_CASE("The dump writes each stat type distinctly", "[dump]") {
  Host host = MakeHost(1);
  Line& line = host.planes[0].lines[0];
  StringId text = host.strings.Intern("x\"y\\z\n\x1b");
  line.stats = {Stat::Int(0, -5),
                Stat::Uint(1, 5),
                Stat::Double(2, 5.0),
                Stat::Double(3, 0.1),
                Stat::String(4, text),
                Stat::Make(5, StatType::kBytes, 12),
                Stat::Double(2, std::numeric_limits<double>::quiet_NaN()),
                Stat::Int(99, 1)};
  line.events[0].stats_end = static_cast<uint32_t>(line.stats.size());
  const std::string dump = Dump(host);
  INFO(dump);
  // int64, uint64 with u, doubles always with a point or exponent, strings
  // quoted and escaped, bytes by length, a key the plane does not define by
  // its number.
  CHECK_THAT(dump, Catch::Contains("start_ps=0 duration_ps=10 \"op\" a=-5 b=5u c=5.0 d=0.1 e=\"x\\\"y\\\\z\\n\\x1b\" "
                                   "\"f name\"=<12 bytes> c=nan #99=1\n"));
}

TEST_CASE("The dump shows at most N events per line and counts the rest", "[dump]") {
  const Host host = MakeHost(5);
  std::string two = Dump(host, {.events_per_line = 2});
  CHECK_THAT(two, Catch::Contains("line 3 \"thread\": timestamp ns 0, duration ps 0, 5 events\n"
                                  "      start_ps=0 duration_ps=10 \"op\" a=0\n"
                                  "      start_ps=1000 duration_ps=10 \"op\" a=1\n"
                                  "      ... 3 more events\n"));
  std::string all = Dump(host, {.events_per_line = 0});
  CHECK_THAT(all, Catch::Contains("start_ps=4000 duration_ps=10 \"op\" a=4\n"));
  CHECK_THAT(all, !Catch::Contains("more events"));
}

TEST_CASE("The dump lists event metadata with stats, at most N per plane", "[dump]") {
  Host host = MakeHost(0);
  Plane& plane = host.planes[0];
  for (int i = 0; i < 3; ++i) {
    plane.metadata_stats.push_back(Stat::Int(1, 10 + i));
    plane.event_metadata.push_back({host.strings.Intern("m" + std::to_string(i)), host.strings.Intern("M"),
                                    static_cast<uint32_t>(plane.metadata_stats.size() - 1),
                                    static_cast<uint32_t>(plane.metadata_stats.size())});
  }
  // A corrupt range is clipped to the pool, not read past it.
  plane.event_metadata.push_back({host.strings.Intern("bad"), StringPool::kEmpty, 2, 40});
  const std::string dump = Dump(host, {.events_per_line = 20, .metadata_per_plane = 2});
  INFO(dump);
  // Metadata 0 ("op") has no stats and is left out.
  CHECK_THAT(dump, Catch::Contains("    metadata 1 \"m0\" (display \"M\"): b=10\n"
                                   "    metadata 2 \"m1\" (display \"M\"): b=11\n"
                                   "    ... 2 more event metadata with stats\n"));
  const std::string unbounded = Dump(host, {.events_per_line = 20, .metadata_per_plane = 0});
  CHECK_THAT(unbounded, Catch::Contains("    metadata 4 \"bad\": b=12\n"));
}

TEST_CASE("The dump's header names the host, its file, format and rank", "[dump]") {
  Host host = MakeHost(0);
  host.format = CaptureFormat::kChromeTrace;
  host.gzipped = true;
  host.file_bytes = 123;
  host.framework = Framework::kPyTorch;
  host.rank = 3;
  host.time_origin_ns = 42;
  host.hostnames = {"node-1"};
  host.warnings = {"w\n2"};
  CHECK(Dump(host) ==
        "host \"h\"\n"
        "  source \"dir/h.xplane.pb\"\n"
        "  format chrome-trace, gzipped yes, file bytes 123\n"
        "  framework pytorch, rank 3\n"
        "  time origin ns 42\n"
        "  hostname \"node-1\"\n"
        "  profiler warning \"w\\n2\"\n"
        "  plane 7 \"/host:CPU\": 1 lines, 0 events, 1 event metadata, 6 stat metadata\n"
        "    line 3 \"thread\": timestamp ns 0, duration ps 0, 0 events\n");
}

TEST_CASE("The dump's diagnostics include info-level ones, most severe first", "[dump]") {
  Diagnostics diagnostics;
  std::ostringstream none;
  DiagnosticsToTextDump(diagnostics, none);
  CHECK(none.str() == "diagnostics: none\n");
  diagnostics.AddEntry({Severity::kInfo, "json.a", "info one", 2, ""});
  diagnostics.AddEntry({Severity::kWarning, "json.b", "warning one", 1, "ex"});
  std::ostringstream out;
  DiagnosticsToTextDump(diagnostics, out);
  CHECK(out.str() ==
        "diagnostics\n"
        "  warning json.b x1: \"warning one\" e.g. \"ex\"\n"
        "  info json.a x2: \"info one\"\n");
}

// Found by the dump of tests/diff/read/kineto_gpu.test: the Kineto ops pass
// gave every host cpu_op with an `Input type` arg one more stat, under key 0
// (on the host plane the first stat read: `cat`), holding the input types.
TEST_CASE("Kineto host ops keep their own stats: no stray stat under key 0", "[dump][kineto]") {
  const std::string json = R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 10,
     "args": {"Input type": ["c10::BFloat16", "c10::BFloat16"]}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 12, "dur": 2,
     "args": {"correlation": 5}},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 15, "dur": 1,
     "args": {"device": 0, "stream": 7, "correlation": 5}}]})";
  Diagnostics d;
  const Host host = ReadChromeTraceText(json, "t.json", d);
  const std::string dump = Dump(host);
  INFO(dump);
  CHECK_THAT(dump, Catch::Contains("\"aten::mm\" cat=\"cpu_op\" \"Input type\"=\"[\\\"c10::BFloat16\\\", "
                                   "\\\"c10::BFloat16\\\"]\" tf_op=\"aten::mm\" tf_op_type=\"aten::mm\"\n"));
  // The kernel, launched inside aten::mm, does get the op's input types.
  CHECK_THAT(dump,
             Catch::Contains("tf_op=\"aten::mm\" tf_op_type=\"aten::mm\" op_input_types=\"[\\\"c10::BFloat16\\\", "
                             "\\\"c10::BFloat16\\\"]\"\n"));
}

// A ROCm-style kernel: its grid and block come from its hipLaunchKernel,
// its op from the cpu_op around that launch, each added by a pass of its
// own after the stream's annotation has moved out of the line. Each pass
// appends after what the event has, so the kernel's stats read: its own,
// then grid and block, then the op's name, type and input types.
TEST_CASE("Kineto kernels: the stats the conventions add follow the kernel's own, in the order added",
          "[dump][kineto]") {
  const std::string json = R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 10,
     "args": {"Input type": ["float", "float"]}},
    {"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 1, "tid": 1, "ts": 12, "dur": 2,
     "args": {"correlation": 5, "grid": [4, 1, 1], "block": [256, 1, 1]}},
    {"ph": "X", "cat": "gpu_user_annotation", "name": "my_region", "pid": 0, "tid": 7, "ts": 14, "dur": 5},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 15, "dur": 1,
     "args": {"device": 0, "stream": 7, "correlation": 5}}]})";
  Diagnostics d;
  const Host host = ReadChromeTraceText(json, "t.json", d);
  CHECK(d.Count("json.kineto_launch_dims") == 1);
  CHECK(d.Count("json.kineto_device_annotations") == 1);
  const std::string dump = Dump(host);
  INFO(dump);
  CHECK_THAT(dump, Catch::Contains("\"k\" cat=\"kernel\" device=0 stream=7 correlation_id=5 grid=\"[4, 1, 1]\" "
                                   "block=\"[256, 1, 1]\" tf_op=\"aten::mm\" tf_op_type=\"aten::mm\" "
                                   "op_input_types=\"[\\\"float\\\", \\\"float\\\"]\"\n"));
}

}  // namespace
}  // namespace tfprof
