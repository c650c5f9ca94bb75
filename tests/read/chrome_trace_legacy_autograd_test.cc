// torch.autograd.profiler's export before Kineto (lib/read/
// chrome_trace_legacy_autograd.h): ops in a process "CPU functions" read as
// PyTorch ops, device ranges counted. The trace is written here in the
// export's own shape (a bare array, the pid a string, no categories, flow
// arrows s/f of cat cpu_to_cuda), its numbers worked out below.
#include <catch2/catch.hpp>

#include <string>

#include "lib/analyze/tf_stats_report.h"
#include "lib/read/chrome_trace_reader.h"
#include "lib/summary/host_summary.h"
#include "tests/support/op_rows.h"

using namespace tfprof;
using tfprof::testing::OpRow;

namespace {

// Thread 1: aten::conv2d [0,100) holding aten::convolution [10,90);
// aten::relu [120,140). Thread 2: aten::add [0,30). GPU 0 (CUDA
// functions, tid 0): conv2d's span [5,85).
constexpr const char* kLegacy = R"json([
{"name": "aten::conv2d", "ph": "X", "ts": 0, "dur": 100, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "aten::convolution", "ph": "X", "ts": 10, "dur": 80, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "aten::conv2d", "ph": "s", "ts": 0, "tid": 1, "pid": "CPU functions", "id": 0, "cat": "cpu_to_cuda", "args": {}},
{"name": "aten::conv2d", "ph": "f", "ts": 5, "tid": 0, "pid": "CUDA functions", "id": 0, "cat": "cpu_to_cuda", "args": {}},
{"name": "aten::conv2d", "ph": "X", "ts": 5, "dur": 80, "tid": 0, "pid": "CUDA functions", "args": {}},
{"name": "aten::relu", "ph": "X", "ts": 120, "dur": 20, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "aten::add", "ph": "X", "ts": 0, "dur": 30, "tid": 2, "pid": "CPU functions", "args": {}}
])json";

}  // namespace

TEST_CASE("Legacy autograd profiler trace: its CPU functions are PyTorch ops", "[json][kineto]") {
  Diagnostics d;
  const Host host = ReadChromeTraceText(kLegacy, "legacy.json", d);
  CHECK(host.framework == Framework::kPyTorch);
  CHECK(d.Count("json.pytorch_legacy_ops") == 4);
  CHECK(d.Count("json.pytorch_legacy_device_ranges") == 1);
  CHECK(d.Count("json.unknown_producer") == 0);
  const HostSummary s = SummarizeHostOps(host, d);
  REQUIRE(s.has_host_plane);
  CHECK(s.env.pytorch());
  // Self times by nesting on each thread.
  const OpMetrics* conv2d = OpRow(s.host_ops, "aten::conv2d");
  REQUIRE(conv2d);
  CHECK(conv2d->occurrences == 1);
  CHECK(conv2d->time_ps == 100'000'000);
  CHECK(conv2d->self_time_ps == 20'000'000);
  const OpMetrics* convolution = OpRow(s.host_ops, "aten::convolution");
  REQUIRE(convolution);
  CHECK(convolution->self_time_ps == 80'000'000);
  REQUIRE(OpRow(s.host_ops, "aten::relu"));
  CHECK(OpRow(s.host_ops, "aten::relu")->self_time_ps == 20'000'000);
  REQUIRE(OpRow(s.host_ops, "aten::add"));
  CHECK(OpRow(s.host_ops, "aten::add")->self_time_ps == 30'000'000);
  // The op stats speak PyTorch, not TensorFlow.
  CHECK(BuildTfStatsReport(s, TfStatsOptions{}).tables[0].title == "PyTorch op stats");
}

TEST_CASE("Legacy autograd profiler: a process of that name with categories is not the legacy export",
          "[json][kineto]") {
  Diagnostics d;
  const Host host = ReadChromeTraceText(
      R"json([{"name": "x", "cat": "cpu_op", "ph": "X", "ts": 0, "dur": 1, "tid": 1, "pid": "CPU functions"}])json",
      "other.json", d);
  // Read as the Kineto trace it is: the op once, no legacy diagnostics.
  CHECK(d.Count("json.pytorch_legacy_ops") == 0);
  CHECK(d.Count("json.kineto_framework_ops") == 1);
}

TEST_CASE("Legacy autograd profiler: device ranges alone still make a PyTorch trace", "[json][kineto]") {
  Diagnostics d;
  const Host host = ReadChromeTraceText(
      R"json([{"name": "aten::mm", "ph": "X", "ts": 5, "dur": 80, "tid": 0, "pid": "CUDA functions", "args": {}}])json",
      "ranges.json", d);
  CHECK(host.framework == Framework::kPyTorch);
  CHECK(d.Count("json.pytorch_legacy_device_ranges") == 1);
  CHECK(d.Count("json.pytorch_legacy_ops") == 0);
  CHECK(d.Count("json.unknown_producer") == 0);
}
