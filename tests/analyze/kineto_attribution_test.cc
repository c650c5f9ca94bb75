// Device events outside any op, precision and Tensor Cores on a small
// hand-written Kineto trace whose every number is worked out below (times
// in us; the rules: docs/formats/pytorch-kineto.md).
#include <catch2/catch.hpp>

#include <string>

#include "lib/analyze/overview_report.h"
#include "lib/analyze/placement_report.h"
#include "lib/analyze/run_summary_to_metrics.h"
#include "lib/read/byte_source.h"
#include "lib/read/chrome_trace_reader.h"
#include "lib/summary/device_plane_to_op_metrics.h"
#include "lib/summary/host_to_run_summary.h"
#include "lib/summary/run_summary_file.h"
#include "nlohmann/json.hpp"
#include "tests/support/corpus.h"
#include "tests/support/op_rows.h"
#include "tests/support/skip.h"

using namespace tfprof;
using tfprof::testing::OpRow;

namespace {

// CPU thread 300 (ProfilerStep#1 around it all, excluded from attribution):
//   [3,5)     cudaMemcpyAsync corr 5         (in no op or annotation)
//   [5,8)     aten::empty                    (no launch)
//   [10,30)   aten::mm, Input type bf16      launches corr 1
//   [40,60)   aten::mm, Input type float     launches corr 2
//   [70,100)  user_annotation my_extension   launches corr 3
//   [110,114) cudaLaunchKernel corr 4        (in no op or annotation)
//   [120,150) aten::add                      (no launch: CPU work)
//   [160,170) torch::autograd::AccumulateGrad (no launch)
// GPU 0, stream 7 (gpu_user_annotation ProfilerStep#1 [0,1000), moe_layer
// [390,690)):
//   [5,15)    Memcpy HtoD   corr 5 -> rule 4: own name             10
//   [100,150) gemmSN_TN_kernel corr 1 -> aten::mm (1), bf16 by op   50
//   [200,300) ampere_sgemm_128x64_nn corr 2 -> aten::mm, 32-bit     100
//   [310,350) my_custom_kernel(float*, int) corr 3 -> my_extension  40
//   [400,600) deep_gemm fp8 kernel corr 4 -> moe_layer (3), 8-bit   200
//   [700,800) ncclDevKernel_AllReduce_Sum_bf16 (no corr) -> own name 100
constexpr const char* kTrace = R"json({"traceEvents": [
  {"ph":"M","pid":300,"tid":0,"name":"process_labels","args":{"labels":"CPU"}},
  {"ph":"M","pid":0,"tid":0,"name":"process_labels","args":{"labels":"GPU 0"}},
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":300,"tid":300,"ts":0,"dur":1000},
  {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":300,"tid":300,"ts":3,"dur":2,"args":{"correlation":5}},
  {"ph":"X","cat":"cpu_op","name":"aten::empty","pid":300,"tid":300,"ts":5,"dur":3},
  {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":300,"tid":300,"ts":10,"dur":20,"args":{"Input type":["c10::BFloat16","c10::BFloat16"]}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":300,"tid":300,"ts":12,"dur":4,"args":{"correlation":1}},
  {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":300,"tid":300,"ts":40,"dur":20,"args":{"Input type":["float","float"]}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":300,"tid":300,"ts":42,"dur":4,"args":{"correlation":2}},
  {"ph":"X","cat":"user_annotation","name":"my_extension","pid":300,"tid":300,"ts":70,"dur":30},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":300,"tid":300,"ts":75,"dur":4,"args":{"correlation":3}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":300,"tid":300,"ts":110,"dur":4,"args":{"correlation":4}},
  {"ph":"X","cat":"cpu_op","name":"aten::add","pid":300,"tid":300,"ts":120,"dur":30},
  {"ph":"X","cat":"cpu_op","name":"torch::autograd::AccumulateGrad","pid":300,"tid":300,"ts":160,"dur":10},
  {"ph":"X","cat":"gpu_user_annotation","name":"ProfilerStep#1","pid":0,"tid":7,"ts":0,"dur":1000},
  {"ph":"X","cat":"gpu_user_annotation","name":"moe_layer","pid":0,"tid":7,"ts":390,"dur":300},
  {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":7,"ts":5,"dur":10,"args":{"stream":7,"correlation":5}},
  {"ph":"X","cat":"kernel","name":"gemmSN_TN_kernel","pid":0,"tid":7,"ts":100,"dur":50,"args":{"stream":7,"correlation":1,"grid":[1,1,1],"block":[128,1,1]}},
  {"ph":"X","cat":"kernel","name":"ampere_sgemm_128x64_nn","pid":0,"tid":7,"ts":200,"dur":100,"args":{"stream":7,"correlation":2,"grid":[8,1,1],"block":[128,1,1]}},
  {"ph":"X","cat":"kernel","name":"my_custom_kernel(float*, int)","pid":0,"tid":7,"ts":310,"dur":40,"args":{"stream":7,"correlation":3,"grid":[2,1,1],"block":[64,1,1]}},
  {"ph":"X","cat":"kernel","name":"void deep_gemm::fp8_gemm_kernel<__nv_fp8_e4m3>(float*)","pid":0,"tid":7,"ts":400,"dur":200,"args":{"stream":7,"correlation":4,"grid":[132,1,1],"block":[384,1,1]}},
  {"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*)","pid":0,"tid":7,"ts":700,"dur":100,"args":{"stream":7,"grid":[4,1,1],"block":[512,1,1]}}
]})json";

const KernelReport* Kernel(const std::vector<KernelReport>& rows, std::string_view prefix) {
  for (const KernelReport& r : rows)
    if (r.name.rfind(prefix, 0) == 0) return &r;
  return nullptr;
}

double MetricValue(const RunAnalysis& a, std::string_view name) {
  const tfprof::Metric* m = a.Find(name);
  INFO("metric " << name);
  REQUIRE(m);
  return m->value;
}

// Every analysis of the host, as `metrics` runs them.
RunAnalysis Metrics(const Host& host, Diagnostics& d) {
  SummaryOptions options;
  options.parts = SummaryParts::All();
  const RunSummary summary = HostToRunSummary(host, options);
  d.Merge(summary.hosts.front().diagnostics.ForParts(summary.parts));
  return RunSummaryToMetrics(summary);
}

RunAnalysis Analyze(Diagnostics& d) {
  Host host = ReadChromeTraceText(kTrace, "attribution.pt.trace.json", d);
  CHECK(host.framework == Framework::kPyTorch);
  return Metrics(host, d);
}

}  // namespace

TEST_CASE("Kineto device events outside any op: user annotation, GPU annotation, own name", "[op_stats][kineto]") {
  Diagnostics d;
  RunAnalysis a = Analyze(d);
  CHECK(d.Count("json.kineto_device_ops") == 2);                    // The two aten::mm kernels.
  CHECK(d.Count("json.kineto_device_ops_by_annotation") == 1);      // my_custom_kernel.
  CHECK(d.Count("json.kineto_device_ops_by_gpu_annotation") == 1);  // The FP8 GEMM, in moe_layer.
  CHECK(d.Count("json.kineto_device_ops_by_own_name") == 2);        // The copy and the NCCL kernel.
  CHECK(d.Count("json.kineto_op_input_types") == 2);
  OpMetricsDb tf = DeviceOpsToTfOps(a.ops.device_ops, /*with_idle=*/false);
  struct Want {
    const char* name;
    uint64_t self_us;
  };
  for (const Want& w : {Want{"aten::mm", 150}, Want{"my_extension", 40}, Want{"moe_layer", 200},
                        Want{"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*)", 100},
                        Want{"Memcpy HtoD (Pageable -> Device)", 10}}) {
    INFO(w.name);
    const OpMetrics* m = OpRow(tf, w.name);
    REQUIRE(m);
    CHECK(m->self_time_ps == w.self_us * 1000000);
  }
  // Every device event has a row: device op time is the device's activity,
  // 10 + 50 + 100 + 40 + 200 + 100 us, and the ProfilerStep#1 annotations
  // name nothing.
  CHECK(tf.rows().size() == 5);
  CHECK(a.ops.device_ops.total_op_time_ps == 500000000);
  CHECK(OpRow(tf, "ProfilerStep#1") == nullptr);
  // The device span is 5..800 us: idle is 795 - 500 us.
  CHECK(MetricValue(a, "op_stats.device.idle_percent") == Approx(100.0 * 295 / 795));
}

TEST_CASE("Kineto kernels: precision from names and op input types, Tensor Cores from names", "[kernels][kineto]") {
  Diagnostics d;
  RunAnalysis a = Analyze(d);
  const std::vector<KernelReport> rows = a.ops.kernels.Sorted(0);
  REQUIRE(rows.size() == 5);
  struct Want {
    const char* prefix;
    const char* op;
    ComputePrecision precision;
    bool eligible, tensor_core;
  };
  for (const Want& w : {Want{"gemmSN_TN_kernel", "aten::mm", ComputePrecision::k16Bit, true, false},
                        Want{"ampere_sgemm_128x64_nn", "aten::mm", ComputePrecision::k32Bit, true, false},
                        Want{"my_custom_kernel", "my_extension", ComputePrecision::k32Bit, false, false},
                        Want{"void deep_gemm::fp8_gemm_kernel", "moe_layer", ComputePrecision::k8Bit, true, true},
                        Want{"ncclDevKernel", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*)",
                             ComputePrecision::k16Bit, false, false}}) {
    INFO(w.prefix);
    const KernelReport* k = Kernel(rows, w.prefix);
    REQUIRE(k);
    CHECK(k->op_name == w.op);
    CHECK(k->precision == w.precision);
    CHECK(k->op_tensor_core_eligible == w.eligible);
    CHECK(k->uses_tensor_core == w.tensor_core);
  }
  // Compute (the NCCL kernel is a collective): 8-bit 200, 16-bit 50,
  // 32-bit 100 + 40 of 390 us.
  CHECK(a.overview.compute_8bit_percent == Approx(100.0 * 200 / 390));
  CHECK(a.overview.compute_16bit_percent == Approx(100.0 * 50 / 390));
  CHECK(a.overview.compute_32bit_percent == Approx(100.0 * 140 / 390));
  CHECK(a.overview.compute_unknown_precision_percent == 0);
  CHECK(MetricValue(a, "overview.device_compute_8bit_percent") == Approx(100.0 * 200 / 390));
  CHECK(a.overview.precision_statement.empty());  // 250 of 390 us in 16 or 8 bits.
  CHECK(a.overview.precision_level == "no");
  // Tensor Cores: the two aten::mm kernels (150 of 490 us) could use them
  // and do not; no device properties, so the advice covers TF32 and AMP.
  CHECK(a.overview.tensor_core_eligible_unused_percent == Approx(100.0 * 150 / 490));
  CHECK(MetricValue(a, "kernels.tensor_core_eligible_unused_percent") == Approx(100.0 * 150 / 490));
  CHECK(MetricValue(a, "kernels.tensor_core_time_percent") == Approx(100.0 * 200 / 490));
  CHECK(a.overview.tensor_core_statement ==
        "30.6% of kernel time is in ops that can use Tensor Cores but whose kernels do not (aten::mm 30.6%). For "
        "float32, allow TF32 (torch.backends.cuda.matmul.allow_tf32 = True and torch.backends.cudnn.allow_tf32 = True, "
        "or torch.set_float32_matmul_precision('high')), or use automatic mixed precision (torch.autocast with "
        "torch.bfloat16).");
}

TEST_CASE("Kineto placement: only host ops that launched nothing and are not bookkeeping are candidates",
          "[placement][kineto]") {
  Diagnostics d;
  RunAnalysis a = Analyze(d);
  const OpMetrics* mm = OpRow(a.ops.host_ops, "aten::mm");
  REQUIRE(mm);
  CHECK(mm->device_launching_occurrences == 2);
  Report r = BuildPlacementReport({ComputePlacement(a.ops, "attribution")}, a.ops, 0);
  const Table& candidates = r.tables.at(1);
  REQUIRE(candidates.rows.size() == 1);  // Not aten::empty, aten::mm, AccumulateGrad.
  CHECK(std::get<std::string>(candidates.rows[0][2]) == "aten::add");
  CHECK(std::get<double>(candidates.rows[0][4]) == Approx(0.030));  // ms
}

TEST_CASE("Kineto trace without a host process: device events are rows of their GPU annotation or own name",
          "[op_stats][kineto]") {
  // Kernel a [0,10) inside the GPU annotation "region" [0,15); kernel b
  // [20,25) outside it.
  constexpr const char* kGpuOnly = R"json({"traceEvents": [
    {"ph":"M","pid":0,"tid":0,"name":"process_labels","args":{"labels":"GPU 0"}},
    {"ph":"X","cat":"gpu_user_annotation","name":"region","pid":0,"tid":7,"ts":0,"dur":15},
    {"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":0,"dur":10,"args":{"stream":7,"grid":[1,1,1],"block":[32,1,1]}},
    {"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":20,"dur":5,"args":{"stream":7,"grid":[1,1,1],"block":[32,1,1]}}
  ]})json";
  Diagnostics d;
  Host host = ReadChromeTraceText(kGpuOnly, "gpu_only.pt.trace.json", d);
  CHECK(host.framework == Framework::kPyTorch);
  CHECK(d.Count("json.kineto_device_ops_by_gpu_annotation") == 1);
  CHECK(d.Count("json.kineto_device_ops_by_own_name") == 1);
  RunAnalysis a = Metrics(host, d);
  OpMetricsDb tf = DeviceOpsToTfOps(a.ops.device_ops, /*with_idle=*/false);
  REQUIRE(OpRow(tf, "region"));
  REQUIRE(OpRow(tf, "b"));
  CHECK(OpRow(tf, "region")->self_time_ps == 10000000);
  CHECK(OpRow(tf, "b")->self_time_ps == 5000000);
}

TEST_CASE("Kineto launch after its op ended, inside an annotation that outlives the op: the annotation's",
          "[op_stats][kineto]") {
  // aten::a [0,50) and the annotation "late" [40,100) overlap without
  // nesting; the launch at 60 is in "late" only.
  constexpr const char* kStraddle = R"json({"traceEvents": [
    {"ph":"M","pid":300,"tid":0,"name":"process_labels","args":{"labels":"CPU"}},
    {"ph":"M","pid":0,"tid":0,"name":"process_labels","args":{"labels":"GPU 0"}},
    {"ph":"X","cat":"cpu_op","name":"aten::a","pid":300,"tid":300,"ts":0,"dur":50},
    {"ph":"X","cat":"user_annotation","name":"late","pid":300,"tid":300,"ts":40,"dur":60},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":300,"tid":300,"ts":60,"dur":2,"args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":70,"dur":4,"args":{"stream":7,"correlation":1,"grid":[1,1,1],"block":[32,1,1]}}
  ]})json";
  Diagnostics d;
  Host host = ReadChromeTraceText(kStraddle, "straddle.pt.trace.json", d);
  CHECK(d.Count("json.kineto_device_ops") == 0);
  CHECK(d.Count("json.kineto_device_ops_by_annotation") == 1);
  RunAnalysis a = Metrics(host, d);
  OpMetricsDb tf = DeviceOpsToTfOps(a.ops.device_ops, /*with_idle=*/false);
  REQUIRE(OpRow(tf, "late"));
  CHECK(OpRow(tf, "late")->self_time_ps == 4000000);
  CHECK(OpRow(tf, "aten::a") == nullptr);
}

TEST_CASE("Kineto precision unknown: integer inputs say so, not that record_shapes was off", "[kineto][overview]") {
  // aten::fill_ on a long tensor (Input type recorded) launches
  // FillFunctor<long>: no floating-point type anywhere.
  constexpr const char* kFill = R"json({"traceEvents": [
  {"ph":"M","pid":300,"tid":0,"name":"process_labels","args":{"labels":"CPU"}},
  {"ph":"M","pid":0,"tid":0,"name":"process_labels","args":{"labels":"GPU 0"}},
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":300,"tid":300,"ts":0,"dur":100},
  {"ph":"X","cat":"cpu_op","name":"aten::fill_","pid":300,"tid":300,"ts":10,"dur":20,"args":{"Input type":["long int","Scalar"]}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":300,"tid":300,"ts":12,"dur":4,"args":{"correlation":1}},
  {"ph":"X","cat":"kernel","name":"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<long>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<long>, at::detail::Array<char*, 1>)","pid":0,"tid":7,"ts":20,"dur":5,"args":{"stream":7,"correlation":1,"grid":[1,1,1],"block":[128,1,1]}}
]})json";
  Diagnostics d;
  Host host = ReadChromeTraceText(kFill, "fill.pt.trace.json", d);
  RunAnalysis a = Metrics(host, d);
  CHECK(a.overview.precision_level == "unknown");
  CHECK(a.overview.compute_unknown_precision_percent == 100.0);
  CHECK_THAT(a.overview.precision_statement, Catch::Contains("integer work"));
  CHECK_THAT(a.overview.precision_statement, Catch::Contains("neither the kernels' names nor their ops' input types"));
}

TEST_CASE("Kineto trace listing GPUs with no GPU activity: not called CPU-only", "[kineto][overview]") {
  // Two GPUs in deviceProperties, launches on the CPU thread, but no GPU
  // events: the profiler did not trace CUDA activity.
  constexpr const char* kNoGpuEvents = R"json({"deviceProperties": [
    {"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85100000000, "computeMajor": 8, "computeMinor": 0},
    {"id": 1, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85100000000, "computeMajor": 8, "computeMinor": 0}],
  "traceEvents": [
  {"ph":"M","pid":300,"tid":0,"name":"process_labels","args":{"labels":"CPU"}},
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":300,"tid":300,"ts":0,"dur":100},
  {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":300,"tid":300,"ts":10,"dur":20},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":300,"tid":300,"ts":12,"dur":4,"args":{"correlation":1}}
]})json";
  Diagnostics d;
  Host host = ReadChromeTraceText(kNoGpuEvents, "nogpu.pt.trace.json", d);
  CHECK(host.listed_gpus == 2);
  SummaryOptions options;
  options.parts = SummaryParts::All();
  const RunSummary summary = RunSummaryFromBytes(RunSummaryToBytes(HostToRunSummary(host, options)), "mem");
  const RunAnalysis a = RunSummaryToMetrics(summary);
  CHECK(!a.ops.env.has_device());
  CHECK(a.ops.env.untraced_gpus == 2);
  const Report r = BuildOverviewReport(a.overview, "nogpu");
  REQUIRE(!r.lines.empty());
  CHECK_THAT(r.lines.front(), Catch::Contains("no GPU activity traced (2 GPUs listed)"));
  CHECK_THAT(r.lines.front(), !Catch::Contains("CPU only"));

  // With its GPU traced, nothing is untraced.
  Diagnostics d2;
  Host traced = ReadChromeTraceText(kTrace, "attribution.pt.trace.json", d2);
  CHECK(Metrics(traced, d2).ops.env.untraced_gpus == 0);
}

TEST_CASE("A corpus trace listing 8 GPUs with no GPU activity (CUPTI profiler mode)", "[kineto][overview][corpus]") {
  REQUIRE_CORPUS(path, "hta/cupti_profiler/benchmark_result_924719_1679055439_trace.json.gz");
  // Independent: deviceProperties' entries, and no kernel, copy or memset.
  const nlohmann::json doc = nlohmann::json::parse(ReadWholeFile(path, 1u << 30));
  uint64_t device_events = 0;
  for (const auto& e : doc["traceEvents"]) {
    const std::string cat = e.value("cat", "");
    if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") ++device_events;
  }
  REQUIRE(device_events == 0);
  const int listed = static_cast<int>(doc["deviceProperties"].size());
  REQUIRE(listed == 8);
  Diagnostics d;
  const Host host = ReadChromeTraceFile(path, d);
  CHECK(host.listed_gpus == listed);
  const RunAnalysis a = Metrics(host, d);
  CHECK(!a.ops.env.has_device());
  CHECK(a.ops.env.untraced_gpus == listed);
}
