// PyTorch captures end to end: every device event in a row, device compute
// precision, Tensor Core use and the overview's words, on the H100 captures
// of testdata/captures/torch_gpu_* and corpus traces. Every expected number
// is printed by scripts/reference/kineto_ops.py (an independent reading of
// the JSON: exact decimal times, its own attribution, precision and Tensor
// Core rules) on the same file; the lines it printed are quoted.
#include <catch2/catch.hpp>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/analyze/overview_report.h"
#include "lib/analyze/placement_report.h"
#include "lib/analyze/run_summary_to_metrics.h"
#include "lib/read/chrome_trace_reader.h"
#include "lib/summary/device_plane_to_op_metrics.h"
#include "lib/summary/host_to_run_summary.h"
#include "tests/support/corpus.h"
#include "tests/support/skip.h"

using namespace tfprof;

namespace {

struct Analyzed {
  Diagnostics d;
  RunAnalysis a;
};

Analyzed Analyze(const std::string& path) {
  Analyzed out;
  Host host = ReadChromeTraceFile(path, out.d);
  REQUIRE(host.framework == Framework::kPyTorch);
  SummaryOptions options;
  options.parts = SummaryParts::All();
  const RunSummary summary = HostToRunSummary(host, options);
  out.d.Merge(summary.hosts.front().diagnostics.ForParts(summary.parts));
  out.a = RunSummaryToMetrics(summary);
  return out;
}

double Pct(double part, double whole) { return 100.0 * part / whole; }

// kineto_ops.py's attribution of device events (diagnostic kind -> count)
// and the device op rows they make. The rows cover every kernel, copy and
// memset: their self time is the device events' time.
void CheckDeviceOps(const Analyzed& x, std::initializer_list<std::pair<std::string_view, uint64_t>> counts, size_t rows,
                    uint64_t ps) {
  for (const auto& [kind, count] : counts) {
    INFO(kind);
    CHECK(x.d.Count(kind) == count);
  }
  OpMetricsDb tf = DeviceOpsToTfOps(x.a.ops.device_ops, /*with_idle=*/false);
  CHECK(tf.rows().size() == rows);
  CHECK(x.a.ops.device_ops.total_op_time_ps == ps);
}

// kineto_ops.py's "precision_ns" line: device compute time by precision
// (the fields a test checks) and all device compute time.
struct PrecisionNs {
  std::optional<uint64_t> bit8, bit16, bit32, unknown;
  uint64_t compute = 0;
};

void CheckPrecision(const Overview& o, const PrecisionNs& ns) {
  if (ns.bit8) CHECK(o.compute_8bit_percent == Approx(Pct(*ns.bit8, ns.compute)));
  if (ns.bit16) CHECK(o.compute_16bit_percent == Approx(Pct(*ns.bit16, ns.compute)));
  if (ns.bit32) CHECK(o.compute_32bit_percent == Approx(Pct(*ns.bit32, ns.compute)));
  if (ns.unknown) CHECK(o.compute_unknown_precision_percent == Approx(Pct(*ns.unknown, ns.compute)));
}

// A host op kineto_ops.py lists as a placement candidate, with its time in
// seconds where the test checks it.
struct Candidate {
  std::string op;
  std::optional<double> seconds;
};

// The placement report's candidates table (column 2: op, 4: seconds) holds
// `expected`, in order; returns the report for further checks.
Report CheckPlacementCandidates(const RunAnalysis& a, const std::vector<Candidate>& expected) {
  Report placement = BuildPlacementReport({ComputePlacement(a.ops, "run")}, a.ops, 0);
  const Table& candidates = placement.tables.at(1);
  REQUIRE(candidates.rows.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    CHECK(std::get<std::string>(candidates.rows[i][2]) == expected[i].op);
    if (expected[i].seconds) CHECK(std::get<double>(candidates.rows[i][4]) == Approx(*expected[i].seconds));
  }
  return placement;
}

bool Mentions(const Report& r, std::string_view word) {
  for (const std::string& l : r.lines)
    if (l.find(word) != std::string::npos) return true;
  for (const std::string& l : r.notes)
    if (l.find(word) != std::string::npos) return true;
  for (const Table& t : r.tables)
    for (const auto& row : t.rows)
      for (const Cell& c : row)
        if (const auto* s = std::get_if<std::string>(&c); s && s->find(word) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("PyTorch FP32 H100 capture: 32-bit, eligible matmuls off Tensor Cores, PyTorch words",
          "[kineto][overview][kernels]") {
  Analyzed x = Analyze(testing::SourcePath("testdata/captures/torch_gpu_fp32_nosched/trace.json.gz"));
  const RunAnalysis& a = x.a;
  // kineto_ops.py: device_events=721 with_op=716 by_annotation=0
  // by_gpu_annotation=0 by_own_name=5 (the Triton launches after opt.step());
  // device_rows=32 device_row_ps=3806210000 device_event_ps=3806210000.
  CheckDeviceOps(x, {{"json.kineto_device_ops", 716}, {"json.kineto_device_ops_by_own_name", 5}}, 32, 3806210000);
  // precision_ns 8bit=0 16bit=0 32bit=3630274 unknown=69023 compute=3699297
  CheckPrecision(a.overview, {.bit8 = 0, .bit16 = 0, .bit32 = 3630274, .unknown = 69023, .compute = 3699297});
  CHECK(a.overview.precision_level == "low_16bit");
  CHECK(a.overview.precision_statement.rfind("Only 0.0% of device compute time is in 16-bit or 8-bit kernels (98.1% "
                                             "32-bit, 1.9% of unknown precision).",
                                             0) == 0);
  // tensor_core_ns total=3699297 tc=340000 eligible=1833856
  // eligible_unused=1493856 unused_percent=40.3822; tc_unused aten::mm
  // 24.9743, aten::addmm 13.6761, aten::convolution_backward 1.0251.
  CHECK(a.overview.tensor_core_eligible_unused_percent == Approx(Pct(1493856, 3699297)));
  CHECK(a.Find("kernels.tensor_core_time_percent")->value == Approx(Pct(340000, 3699297)));
  CHECK(a.Find("kernels.tensor_core_eligible_time_percent")->value == Approx(Pct(1833856, 3699297)));
  // An H100 (sm_90): TF32 is the remedy.
  CHECK(a.overview.tensor_core_statement ==
        "40.4% of kernel time is in ops that can use Tensor Cores but whose kernels do not (aten::mm 25.0%, "
        "aten::addmm 13.7%, aten::convolution_backward 1.0%). For float32, allow TF32 "
        "(torch.backends.cuda.matmul.allow_tf32 = True and torch.backends.cudnn.allow_tf32 = True, or "
        "torch.set_float32_matmul_precision('high')), or use automatic mixed precision (torch.autocast with "
        "torch.bfloat16).");
  // No prof.step(): no steps, said in PyTorch's terms.
  CHECK(a.overview.steps.no_steps_reason ==
        "no step markers: no ProfilerStep#N annotation (torch.profiler.profile writes one for each prof.step() "
        "call; for a DataLoader loop without them: --steps-between 'enumerate\\(DataLoader\\)')");
  // placement_candidates=1: aten::random_ (31770000 ps), the only host op
  // that launched nothing and is no bookkeeping.
  Report placement = CheckPlacementCandidates(a, {{"aten::random_", 0.03177}});
  CHECK(!Mentions(placement, "TF op"));
  // No eager execution (TensorFlow's notion), no tf.data advice.
  CHECK(a.Find("op_stats.host.eager_percent") == nullptr);
  CHECK(a.Find("op_stats.device.eager_percent") == nullptr);
  Report overview = BuildOverviewReport(a.overview, "run");
  CHECK(!Mentions(overview, "eager"));
  CHECK(!Mentions(overview, "tf.function"));
  CHECK(!Mentions(overview, "tf.data"));
  CHECK(!Mentions(overview, "TraceContext"));
  CHECK(Mentions(overview, "device compute precision: 0.0% 8-bit · 0.0% 16-bit · 98.1% 32-bit · 1.9% unknown"));
  Report input = BuildInputPipelineReport(a.overview, "run");
  CHECK(!Mentions(input, "tf.data API"));
  CHECK(Mentions(input, "num_workers"));
  CHECK(Mentions(input, "pin_memory=True"));
  CHECK(Mentions(input, "prefetch_factor"));
}

TEST_CASE("PyTorch AMP H100 capture: BF16/FP16 counted as 16-bit, no precision advice", "[kineto][overview]") {
  Analyzed x = Analyze(
      testing::SourcePath("testdata/captures/torch_gpu_amp/tfprof-capture.1795401502510563926.pt.trace.json.gz"));
  const RunAnalysis& a = x.a;
  // kineto_ops.py: device_events=687 with_op=678 by_own_name=9 (3 Triton
  // _scale_kernel, 6 CUDA-graph kernels, in no op or annotation);
  // device_rows=39 device_row_ps=2262993000.
  CheckDeviceOps(x, {{"json.kineto_device_ops", 678}, {"json.kineto_device_ops_by_own_name", 9}}, 39, 2262993000);
  // precision_ns 8bit=0 16bit=1424558 32bit=740808 unknown=41854 compute=2207220
  CheckPrecision(a.overview, {.bit16 = 1424558, .bit32 = 740808, .unknown = 41854, .compute = 2207220});
  CHECK(a.overview.precision_statement.empty());
  // tensor_core_ns total=2207220 tc=485606 eligible_unused=72130: 3.3%,
  // under the 10% the statement needs.
  CHECK(a.overview.tensor_core_eligible_unused_percent == Approx(Pct(72130, 2207220)));
  CHECK(a.Find("kernels.tensor_core_time_percent")->value == Approx(Pct(485606, 2207220)));
  CHECK(a.overview.tensor_core_statement.empty());
  CHECK(a.Find("kernels.rows")->value == 97);  // kernel_rows=97
}

TEST_CASE("PyTorch torch.compile H200 capture: Inductor's Triton kernels typed by their launchers' inputs",
          "[kineto][overview][kernels]") {
  Analyzed x = Analyze(
      testing::SourcePath("testdata/captures/torch_gpu_compile/tfprof-capture.1795779846112371054.pt.trace.json.gz"));
  const RunAnalysis& a = x.a;
  // kineto_ops.py: device_events=135 with_op=135 (each Triton kernel's
  // launcher is a cpu_op named as the kernel); device_rows=26
  // device_row_ps=610366000.
  CheckDeviceOps(x, {{"json.kineto_device_ops", 135}, {"json.kineto_device_ops_by_own_name", 0}}, 26, 610366000);
  // precision_ns 8bit=0 16bit=380767 32bit=229599 unknown=0 compute=610366
  CheckPrecision(a.overview, {.bit8 = 0, .bit16 = 380767, .bit32 = 229599, .unknown = 0, .compute = 610366});
  CHECK(a.overview.precision_statement.empty());
  // tensor_core_ns total=610366 tc=154976 eligible=161695 eligible_unused=6719
  CHECK(a.overview.tensor_core_eligible_unused_percent == Approx(Pct(6719, 610366)));
  CHECK(a.Find("kernels.tensor_core_time_percent")->value == Approx(Pct(154976, 610366)));
  CHECK(a.Find("kernels.rows")->value == 34);  // kernel_rows=34
  // kernel triton_poi_fused__to_copy_4 ... op=triton_poi_fused__to_copy_4
  // precision=16bit launches=3 total_ns=20288
  bool found = false;
  for (const KernelReport& k : a.ops.kernels.Sorted(0)) {
    if (k.name != "triton_poi_fused__to_copy_4") continue;
    found = true;
    CHECK(k.op_name == "triton_poi_fused__to_copy_4");
    CHECK(k.precision == ComputePrecision::k16Bit);
    CHECK(k.occurrences == 3);
    CHECK(k.total_ns == 20288);
  }
  CHECK(found);
}

TEST_CASE("PyTorch CUDA-graph H200 capture: replayed kernels are their region's, nvjet GEMMs typed by name",
          "[kineto][overview][kernels]") {
  // The same model as torch_gpu_compile under torch.compile(mode=
  // "reduce-overhead"): each step replays two CUDA graphs (cudaGraphLaunch
  // inside CompiledFunction and CompiledFunctionBackward).
  Analyzed x = Analyze(testing::SourcePath(
      "testdata/captures/torch_gpu_cudagraphs/tfprof-capture.1795779865548324680.pt.trace.json.gz"));
  const RunAnalysis& a = x.a;
  // kineto_ops.py: device_events=141 with_op=141; device_rows=11
  // device_row_ps=666559000; device CompiledFunctionBackward activities=66
  // ps=250021000, CompiledFunction activities=39 ps=140219000.
  CheckDeviceOps(x, {{"json.kineto_device_ops", 141}, {"json.kineto_device_ops_by_own_name", 0}}, 11, 666559000);
  OpMetricsDb tf = DeviceOpsToTfOps(a.ops.device_ops, /*with_idle=*/false);
  for (const OpMetrics& m : tf.rows()) {
    if (m.name == "CompiledFunctionBackward") CHECK(m.time_ps == 250021000);
    if (m.name == "CompiledFunction") CHECK(m.time_ps == 140219000);
  }
  // precision_ns 8bit=0 16bit=333279 32bit=333280 unknown=0 compute=666559:
  // the replayed kernels take their region's Input type (float32), but the
  // nvjet GEMMs' names say BF16 ("tst"): without that rule 16bit=293795
  // 32bit=372764.
  CheckPrecision(a.overview, {.bit8 = 0, .bit16 = 333279, .bit32 = 333280, .unknown = 0, .compute = 666559});
  // tensor_core_ns total=666559 tc=154909 eligible=154909 eligible_unused=0
  CHECK(a.overview.tensor_core_eligible_unused_percent == Approx(0));
  CHECK(a.Find("kernels.tensor_core_time_percent")->value == Approx(Pct(154909, 666559)));
  CHECK(a.Find("kernels.rows")->value == 36);  // kernel_rows=36
  // kernel nvjet_sm90_tst_128x64_64x8_1x2_h_bz_bias_TNT op=CompiledFunction
  // precision=16bit launches=6 total_ns=39484; triton_poi_fused__to_copy_4
  // op=CompiledFunction precision=32bit launches=3 total_ns=20096.
  int found = 0;
  for (const KernelReport& k : a.ops.kernels.Sorted(0)) {
    if (k.name == "nvjet_sm90_tst_128x64_64x8_1x2_h_bz_bias_TNT") {
      ++found;
      CHECK(k.op_name == "CompiledFunction");
      CHECK(k.precision == ComputePrecision::k16Bit);
      CHECK(k.occurrences == 6);
      CHECK(k.total_ns == 39484);
    } else if (k.name == "triton_poi_fused__to_copy_4") {
      ++found;
      CHECK(k.op_name == "CompiledFunction");
      CHECK(k.precision == ComputePrecision::k32Bit);
      CHECK(k.total_ns == 20096);
    }
  }
  CHECK(found == 2);
}

TEST_CASE("PyTorch FP8 H100 capture: nvjet kernels typed by their op's Float8 inputs", "[kineto][kernels]") {
  Analyzed x = Analyze(testing::SourcePath("testdata/captures/torch_gpu_fp8/trace.json.gz"));
  const RunAnalysis& a = x.a;
  // kineto_ops.py: precision_ns 8bit=38752 16bit=25663 compute=64415;
  // tensor_core_ns total=64415 tc=64415; kernel_rows=3.
  CheckPrecision(a.overview, {.bit8 = 38752, .bit16 = 25663, .compute = 64415});
  CHECK(a.Find("overview.device_compute_8bit_percent")->value == Approx(Pct(38752, 64415)));
  CHECK(a.Find("kernels.tensor_core_time_percent")->value == Approx(100));
  CHECK(a.overview.precision_statement.empty());  // Not "replace 32-bit Ops by 16-bit Ops".
  std::vector<KernelReport> kernels = a.ops.kernels.Sorted(0);
  REQUIRE(kernels.size() == 3);
  for (const KernelReport& k : kernels) {
    INFO(k.name);
    CHECK(k.precision == (k.op_name == "aten::_scaled_mm" ? ComputePrecision::k8Bit : ComputePrecision::k16Bit));
    CHECK(k.uses_tensor_core);
    CHECK(k.op_tensor_core_eligible);
  }
}

TEST_CASE("PyTorch B200 FP8/FP4 trace: not 32-bit, launches in a record_function scope", "[kineto][overview][corpus]") {
  REQUIRE_CORPUS(path, "tracelens/b200/eager_trace.json.gz");
  Analyzed x = Analyze(path);
  const RunAnalysis& a = x.a;
  // kineto_ops.py: device_events=929 with_op=927 by_annotation=2;
  // device_rows=19 device_row_ps=11665760000.
  CheckDeviceOps(x, {{"json.kineto_device_ops", 927}, {"json.kineto_device_ops_by_annotation", 2}}, 19, 11665760000);
  // precision_ns 8bit=5960657 16bit=4868466 32bit=0 unknown=11840 compute=10840963
  CheckPrecision(a.overview, {.bit8 = 5960657, .bit16 = 4868466, .bit32 = 0, .compute = 10840963});
  CHECK(a.overview.precision_statement.empty());
  // placement_candidates=1: aten::max (not ProcessGroupNCCL's
  // "nccl:_all_gather_base" annotation, nor torch.compile's scopes).
  CheckPlacementCandidates(a, {{"aten::max", std::nullopt}});
}

TEST_CASE("PyTorch A100 FP32 trace (HTA alexnet): convolutions and addmm off Tensor Cores",
          "[kineto][overview][corpus]") {
  REQUIRE_CORPUS(path, "hta/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz");
  Analyzed x = Analyze(path);
  const RunAnalysis& a = x.a;
  // kineto_ops.py: precision_ns 32bit=10684000 unknown=8000 compute=10692000;
  // tensor_core_ns total=10692000 tc=1814000 eligible=8031000
  // eligible_unused=6217000; tc_unused aten::cudnn_convolution 33.2679,
  // aten::addmm 24.8784.
  CheckPrecision(a.overview, {.bit32 = 10684000, .compute = 10692000});
  CHECK(a.overview.precision_level == "low_16bit");
  CHECK(a.overview.tensor_core_eligible_unused_percent == Approx(Pct(6217000, 10692000)));
  CHECK(a.overview.tensor_core_statement.rfind(
            "58.1% of kernel time is in ops that can use Tensor Cores but whose kernels do not "
            "(aten::cudnn_convolution 33.3%, aten::addmm 24.9%). For float32, allow TF32",
            0) == 0);
}

TEST_CASE("PyTorch Pascal trace: eligible ops off Tensor Cores, but no Tensor Cores to advise",
          "[kineto][overview][corpus]") {
  REQUIRE_CORPUS(path, "hta/with_gpu_user_annotation/step_based_trace_2543932.json.gz");
  Analyzed x = Analyze(path);
  // kineto_ops.py: tensor_core_ns total=290000 eligible_unused=70000
  // (aten::mm, 24.1%); the Quadro GP100 is sm_60.
  CHECK(x.a.overview.tensor_core_eligible_unused_percent == Approx(Pct(70000, 290000)));
  CHECK(x.a.overview.env.first_device.compute_cap_major == 6);
  CHECK(x.a.overview.tensor_core_statement.empty());
}

TEST_CASE("PyTorch trace of GPU activities only (launches, no ops): every kernel is a row of its own name",
          "[kineto][op_stats][corpus]") {
  REQUIRE_CORPUS(path, "tracelens/mi210/gpu_only_trace/gpu_only_trace.json.gz");
  Analyzed x = Analyze(path);
  // kineto_ops.py: device_events=562 by_own_name=562; device_rows=45
  // device_row_ps=5343422000; precision_ns 16bit=4778431 unknown=564991.
  CheckDeviceOps(x, {{"json.kineto_device_ops_by_own_name", 562}}, 45, 5343422000);
  CheckPrecision(x.a.overview, {.bit16 = 4778431, .unknown = 564991, .compute = 5343422});
}

TEST_CASE("PyTorch MI300X trace: Matrix Core kernels, checkpointing's autograd Function not a placement candidate",
          "[kineto][placement][corpus]") {
  REQUIRE_CORPUS(path, "tracelens/mi300/resnet_act_checkpoint.json.gz");
  Analyzed x = Analyze(path);
  const RunAnalysis& a = x.a;
  // kineto_ops.py: device_events=3653 with_op=2685 by_own_name=968;
  // device_rows=79 device_row_ps=100230072000.
  CheckDeviceOps(x, {{"json.kineto_device_ops", 2685}, {"json.kineto_device_ops_by_own_name", 968}}, 79, 100230072000);
  // precision_ns 16bit=24044082 32bit=79746 unknown=1615475 compute=25739303
  // (the RCCL kernels are collectives); tensor_core_ns total=97255826
  // tc=6190997 eligible_unused=5500797 (5.7%: under the statement's 10%).
  // Its kernels without launch dimensions count (until session 45 they were
  // left out: 66434404 ns of kernel time).
  CheckPrecision(a.overview, {.bit16 = 24044082, .bit32 = 79746, .unknown = 1615475, .compute = 25739303});
  CHECK(a.Find("kernels.tensor_core_time_percent")->value == Approx(Pct(6190997, 97255826)));
  CHECK(a.overview.tensor_core_eligible_unused_percent == Approx(Pct(5500797, 97255826)));
  CHECK(a.overview.tensor_core_statement.empty());
  // placement_candidates=2: aten::unflatten_dense_tensors (128880000 ps),
  // aten::clone (38850000 ps); not _NoopSaveInputs, the Python forward of
  // torch.utils.checkpoint's autograd Function.
  CheckPlacementCandidates(a, {{"aten::unflatten_dense_tensors", 0.12888}, {"aten::clone", 0.03885}});
}
