// Chrome traces analysed like XPlanes: PyTorch steps from ProfilerStep#N
// (bundled torch_mlp and corpus GPU traces), and TensorFlow's trace.json.gz
// giving the op stats of the xplane.pb beside it.
//
// Expected numbers come from scripts/reference/kineto_steps.py (a Python
// reading of the JSON written from the rules in docs/overview.md, exact
// decimal times), not from this program's output; the torch_mlp host compute
// is the union of the step's other events on its thread, computed the same way.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "lib/analyze/overview_analysis.h"
#include "lib/analyze/pytorch_advice.h"
#include "lib/analyze/step_summary.h"
#include "lib/read/chrome_trace_reader.h"
#include "lib/read/xplane_reader.h"
#include "lib/summary/event_grouping.h"
#include "lib/summary/host_summary.h"
#include "lib/summary/planes_to_step_db.h"
#include "tests/support/corpus.h"
#include "tests/support/skip.h"
#include "tests/support/step_rows.h"

using namespace tfprof;
using tfprof::testing::CategoryMs;
using tfprof::testing::CheckStepRows;
using tfprof::testing::ExpectedStep;

namespace {

StepSummary StepsOfHost(const Host& host, Diagnostics& diag) {
  EventGroups groups = GroupEvents(host, diag);
  std::vector<StepDb> dbs;
  dbs.push_back(BuildStepDb(host, groups, AnalysisOptions{}, diag));
  return SummarizeSteps(CombineHostSteps(std::move(dbs)));
}

StepSummary StepsOf(const std::string& path, Diagnostics& diag) {
  return StepsOfHost(ReadChromeTraceFile(path, diag), diag);
}

// The rows (testing::CheckStepRows), found from ProfilerStep#N annotations.
void CheckSteps(const StepSummary& s, const std::vector<ExpectedStep>& want) {
  CheckStepRows(s, want);
  CHECK(s.note.find("ProfilerStep#") != std::string::npos);
}

}  // namespace

TEST_CASE("PyTorch CPU trace: ProfilerStep#N are the steps", "[steps][kineto]") {
  // torch_mlp: four active steps, ProfilerStep#2..#5 (jq '.traceEvents[] |
  // select(.name|startswith("ProfilerStep#")) | .dur'): 99670.524,
  // 107889.508, 95935.360, 99895.753 us.
  Diagnostics diag;
  StepSummary s = StepsOf(testing::SourcePath("testdata/captures/torch_mlp/trace.json"), diag);
  CHECK_FALSE(s.has_device);
  CheckSteps(s, {{"ProfilerStep#2", 99.670524, 0},
                 {"ProfilerStep#3", 107.889508, 0},
                 {"ProfilerStep#4", 95.935360, 0},
                 {"ProfilerStep#5", 99.895753, 0}});
  CHECK(s.step_time_ms.avg == Approx(100.84778625).margin(1e-9));
  // Host compute: the union of the step's 114 other events on its thread;
  // the rest of the step is "All others".
  const double host_compute[] = {98.712469, 106.995009, 95.123163, 99.033285};
  for (size_t i = 0; i < 4; ++i) {
    CHECK(CategoryMs(s.rows[i], Category::kHostCompute) == Approx(host_compute[i]).margin(1e-6));
    CHECK(CategoryMs(s.rows[i], Category::kAllOthers) == Approx(s.rows[i].step_time_ms - host_compute[i]).margin(1e-6));
  }
  CHECK(diag.Count("steps.profiler_step_marker") == 4);
}

TEST_CASE("PyTorch GPU trace (2021 Kineto): steps, step time and device compute", "[steps][kineto][corpus]") {
  REQUIRE_CORPUS(path, "kineto/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz");
  // ProfilerStep#5..#10; with more than five steps the first and the last
  // are dropped, as the TensorFlow Profiler does. The host runs ahead of the
  // GPU, so each step spans its ProfilerStep and its device work.
  Diagnostics diag;
  StepSummary s = StepsOf(path, diag);
  CHECK(s.has_device);
  CheckSteps(s, {{"ProfilerStep#6", 186.955, 98.659},
                 {"ProfilerStep#7", 192.627, 98.687},
                 {"ProfilerStep#8", 190.204, 98.712},
                 {"ProfilerStep#9", 191.049, 98.591}});
  CHECK(s.step_time_ms.avg == Approx(190.20875).margin(1e-6));
  // num_workers=0: the DataLoader runs in the step and the GPU waits for it.
  for (const StepRow& r : s.rows) CHECK(r.input_percent > 30);
  // Every kernel, memcpy and memset has its launch on the host plane.
  CHECK(diag.Count("grouping.kernel_without_launch") == 0);
}

TEST_CASE("PyTorch GPU trace (2024 Kineto, ns timestamps): steps and device compute", "[steps][kineto][corpus]") {
  REQUIRE_CORPUS(path, "hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
  Diagnostics diag;
  StepSummary s = StepsOf(path, diag);
  CheckSteps(s, {{"ProfilerStep#101", 101.151318, 93.813222},
                 {"ProfilerStep#102", 161.734442, 93.852068},
                 {"ProfilerStep#103", 185.191584, 93.719335},
                 {"ProfilerStep#104", 185.127219, 93.822562},
                 {"ProfilerStep#105", 184.937291, 93.531850}});
  // The GPU's own ProfilerStep#N (gpu_user_annotation) are not device work.
  CHECK(diag.Count("json.kineto_device_annotations") > 0);
}

TEST_CASE("PyTorch GPU trace with NCCL: collectives are not device compute", "[steps][kineto][corpus]") {
  REQUIRE_CORPUS(path, "hta/trace_diff/control/control.json.gz");
  Diagnostics diag;
  StepSummary s = StepsOf(path, diag);
  CheckSteps(s, {{"ProfilerStep#1010", 76.940, 47.218},
                 {"ProfilerStep#1011", 76.234, 48.349},
                 {"ProfilerStep#1012", 76.727, 47.447},
                 {"ProfilerStep#1013", 78.473, 47.250}});
  for (const StepRow& r : s.rows) CHECK(CategoryMs(r, Category::kDeviceCollectives) > 10);
}

TEST_CASE("TensorFlow trace.json.gz gives the op stats of the xplane.pb beside it", "[op_stats][corpus]") {
  const std::string run =
      "e4040-2023fall-assign2-hd2551/logs/fit/20231107-182500/train/plugins/profile/2023_11_07_18_25_02/";
  REQUIRE_CORPUS(xplane, run + "instance-2.xplane.pb");
  REQUIRE_CORPUS(json, run + "instance-2.trace.json.gz");
  Diagnostics dx, dj;
  const Host hx = ReadXSpaceFile(xplane, dx);
  const Host hj = ReadChromeTraceFile(json, dj);
  const HostSummary x = SummarizeHostOps(hx, dx), j = SummarizeHostOps(hj, dj);
  using Row = std::tuple<uint64_t, uint64_t, std::string>;  // occurrences, self ps, type
  auto rows = [](const OpMetricsDb& db) {
    std::map<std::string, Row> out;
    for (const OpMetrics& m : db.rows())
      if (!m.is_idle()) out[m.name] = {m.occurrences, m.self_time_ps, m.category};
    return out;
  };
  const auto xh = rows(x.host_ops), jh = rows(j.host_ops), xd = rows(x.device_ops), jd = rows(j.device_ops);
  // The names come from long_name (host) and the annotation's first level
  // (device): without them only 1 host op and no device op matched.
  CHECK(xh.size() == 18);   // The run's TF Stats: 18 host ops,
  CHECK(xd.size() == 211);  // (op, kernel) rows: 165 device TF ops.
  CHECK(jh == xh);
  CHECK(jd == xd);
  CHECK(dj.Count("json.tf_long_name") > 0);
  CHECK(dj.Count("json.tf_level0_from_annotation") > 0);
  // What the JSON lacks: kernel launch details (no kernel stats).
  CHECK(x.kernels.size() > 0);
  CHECK(j.kernels.empty());
}

TEST_CASE("ROCm Kineto trace: kernels take grid and block from their launch", "[kernels][kineto][corpus]") {
  REQUIRE_CORPUS(path, "hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz");
  // 14 `cat: kernel` events on pid 2 ("GPU 2"), 110.881 us in all, the longest
  // 17.600 us; their grid/block are on the hipLaunchKernel with the same
  // correlation (python3: json, sum of dur).
  Diagnostics diag;
  Host host = ReadChromeTraceFile(path, diag);
  HostSummary s = SummarizeHostOps(host, diag);
  CHECK(s.kernels.kernel_events == 14);
  uint64_t total_ns = 0, max_ns = 0;
  for (const KernelReport& r : s.kernels.Sorted(0)) {
    total_ns += r.total_ns;
    max_ns = std::max(max_ns, r.max_ns);
    CHECK(r.name.rfind("hip", 0) != 0);  // Device kernels, not the host's launch calls.
  }
  CHECK(total_ns == Approx(110881).margin(14));  // Truncated to whole ns per kernel.
  CHECK(max_ns == 17600);
  CHECK(diag.Count("json.kineto_launch_dims") == 14);
  CHECK(host.FindPlane("/device:GPU:2"));
}

TEST_CASE("PyTorch: torch.compile's (dynamo_timed) phases are the step's compilation", "[steps][kineto]") {
  // One CPU step [0,100) us:
  //   [10,60)  compile_fx_inner (dynamo_timed), holding
  //   [20,30)  aten::empty (an op run while compiling) and
  //   [40,50)  StaticAutotunerFuture.warm_precompile (dynamo_timed)
  //   [70,90)  aten::add (the compiled code running)
  // Compilation 50 us (the op inside it included: compile outranks host
  // compute), host compute 20 us, the other 30 us all others.
  constexpr const char* kTrace = R"json({"traceEvents": [
    {"ph":"M","pid":300,"tid":0,"name":"process_labels","args":{"labels":"CPU"}},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":300,"tid":300,"ts":0,"dur":100},
    {"ph":"X","cat":"user_annotation","name":"compile_fx_inner (dynamo_timed)","pid":300,"tid":300,"ts":10,"dur":50},
    {"ph":"X","cat":"cpu_op","name":"aten::empty","pid":300,"tid":300,"ts":20,"dur":10},
    {"ph":"X","cat":"user_annotation","name":"StaticAutotunerFuture.warm_precompile (dynamo_timed)","pid":300,"tid":300,"ts":40,"dur":10},
    {"ph":"X","cat":"cpu_op","name":"aten::add","pid":300,"tid":300,"ts":70,"dur":20}
  ]})json";
  Diagnostics d;
  const Host host = ReadChromeTraceText(kTrace, "compile.pt.trace.json", d);
  const StepSummary s = StepsOfHost(host, d);
  REQUIRE(s.rows.size() == 1);
  CHECK(s.rows[0].step_time_ms == Approx(0.1));
  CHECK(CategoryMs(s.rows[0], Category::kCompilation) == Approx(0.05));
  CHECK(CategoryMs(s.rows[0], Category::kHostCompute) == Approx(0.02));
  CHECK(CategoryMs(s.rows[0], Category::kAllOthers) == Approx(0.03));
  // The overview says the steps hold the compilation, and what to do.
  const Overview o = BuildOverview(SummarizeHostOps(host, d), s);
  CHECK_THAT(o.compilation_statement,
             Catch::StartsWith("50.0% of the total step time sampled is torch.compile compiling (0.05 ms a step)"));
  CHECK_THAT(o.compilation_statement, Catch::Contains("torch.profiler.schedule with warmup"));
  // Under 10% of the steps, no statement.
  Overview light = o;
  light.steps.category_percent[static_cast<size_t>(Category::kCompilation)] = 9.9;
  light.compilation_statement.clear();
  AdviseForPyTorch(SummarizeHostOps(host, d), light);
  CHECK(light.compilation_statement.empty());
}

TEST_CASE("PyTorch: kernel advice says when device compute is a sliver of the steps", "[steps][kineto]") {
  // One step with a 32-bit GEMM launched in it: 1 us of a 100 us step (1%),
  // then 50 us of a 100 us step. The precision advice (all 32-bit) stands
  // either way; only the first says how little it can gain.
  auto overview = [](int gemm_us) {
    const std::string trace = R"json({"traceEvents": [
      {"ph":"M","pid":1,"tid":0,"name":"process_labels","args":{"labels":"CPU"}},
      {"ph":"M","pid":0,"tid":0,"name":"process_labels","args":{"labels":"GPU 0"}},
      {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
      {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1,"dur":3,"args":{"Input type":["float","float"]}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,"dur":1,"args":{"correlation":1}},
      {"ph":"X","cat":"kernel","name":"ampere_sgemm_128x64_nn","pid":0,"tid":7,"ts":10,"dur":)json" +
                              std::to_string(gemm_us) + R"json(,"args":{"correlation":1,"stream":7,"device":0}}
    ]})json";
    Diagnostics d;
    const Host host = ReadChromeTraceText(trace, "minor.pt.trace.json", d);
    return BuildOverview(SummarizeHostOps(host, d), StepsOfHost(host, d));
  };
  const Overview sliver = overview(1);
  CHECK_THAT(sliver.precision_statement, Catch::StartsWith("Only 0.0% of device compute time is in 16-bit"));
  CHECK_THAT(sliver.precision_statement,
             Catch::EndsWith("Device compute is only 1.0% of the step time, though: this gains little until the rest "
                             "is cut."));
  const Overview half = overview(50);
  CHECK_THAT(half.precision_statement, Catch::StartsWith("Only 0.0% of device compute time is in 16-bit"));
  CHECK_THAT(half.precision_statement, !Catch::Contains("Device compute is only"));
}
