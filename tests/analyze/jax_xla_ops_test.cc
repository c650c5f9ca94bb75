// JAX / XLA ops in op-stats, kernel-stats and steps, on real JAX captures
// (testdata/captures/jax_gpu, jax_gpu_cublas: H100, JAX 0.11; jax_gpu_thunks:
// H200, JAX 0.11; jax_mlp: CPU, JAX 0.10). Every number asserted comes from the capture's
// expected_facts.json (scripts/reference/jax_xplane_facts.py, an independent
// reading of the raw protobuf), never from tfprof-analyze's own output.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "lib/read/capture_discovery.h"
#include "lib/read/capture_loader.h"
#include "lib/summary/device_plane_to_op_metrics.h"
#include "lib/summary/event_grouping.h"
#include "lib/summary/host_summary.h"
#include "lib/summary/planes_to_step_db.h"
#include "lib/summary/xla_ops_to_op_metrics.h"
#include "nlohmann/json.hpp"
#include "tests/support/corpus.h"
#include "tests/support/run_tool.h"
#include "tests/support/skip.h"
#include "tests/support/xspace_builder.h"

using namespace tfprof;
using tfprof::testing::SourcePath;

namespace {

Host LoadOnlyHost(const std::string& run, Diagnostics& d) {
  DiscoveredInput input = DiscoverInput(run);
  REQUIRE(input.selected.files.size() == 1);
  return LoadCapture(input.selected.files[0], d);
}

// The op metrics of testdata/captures/<capture>, a run of one host.
HostSummary SummarizeCapture(const std::string& capture, Diagnostics& d) {
  return SummarizeHostOps(LoadOnlyHost(SourcePath("testdata/captures/" + capture), d), d);
}

nlohmann::json Facts(const std::string& capture) {
  std::ifstream in(SourcePath("testdata/captures/" + capture + "/expected_facts.json"));
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

// The rows of a database by name, without IDLE (copies: the database is
// often a temporary).
std::map<std::string, OpMetrics> RowsByName(const OpMetricsDb& db) {
  std::map<std::string, OpMetrics> out;
  for (const OpMetrics& m : db.rows())
    if (!m.is_idle()) out[m.name] = m;
  return out;
}

std::string OpPart(const std::string& row) { return row.substr(row.find('/') + 1); }
std::string ModulePart(const std::string& row) { return row.substr(0, row.find('/')); }

// A GPU capture's facts, op metrics and device op rows.
struct GpuCapture {
  nlohmann::json facts;
  Diagnostics d;
  HostSummary s;
  std::map<std::string, OpMetrics> rows;
};

GpuCapture LoadGpuCapture(const std::string& capture) {
  GpuCapture c;
  c.facts = Facts(capture);
  c.s = SummarizeCapture(capture, c.d);
  c.rows = RowsByName(DeviceOpsToTfOps(c.s.device_ops, /*with_idle=*/false));
  return c;
}

}  // namespace

TEST_CASE("JAX GPU capture: one device row per HLO op, times and modules as the raw capture has them",
          "[jax][op_stats]") {
  const auto [facts, d, s, rows] = LoadGpuCapture("jax_gpu");
  const nlohmann::json& gpu = facts["devices"]["/device:GPU:0"];

  // Kernels by HLO op (the facts leave memcpys out: copy.1 of jit_squeeze
  // is the 11 MemcpyD2D, counted apart).
  std::map<std::string, uint64_t> kernel_ps_by_op, ps_by_module;
  uint64_t xla_ps = 0;
  for (const auto& [name, m] : rows) {
    INFO(name);
    CHECK(name.find('/') != std::string::npos);  // "<hlo_module>/<hlo_op>"
    xla_ps += m.time_ps;
    ps_by_module[ModulePart(name)] += m.time_ps;
    if (OpPart(name) != "copy.1") kernel_ps_by_op[OpPart(name)] += m.time_ps;
  }
  REQUIRE(kernel_ps_by_op.size() == gpu["by_hlo_op"].size());
  for (const auto& [op, c] : gpu["by_hlo_op"].items()) {
    INFO(op);
    CHECK(kernel_ps_by_op[op] / 1000 == c["ns"].get<uint64_t>());
  }
  const uint64_t memcpy_d2d_ns = gpu["memcpy_memset"]["MemcpyD2D"]["ns"];
  CHECK(rows.at("jit_squeeze/copy.1").time_ps / 1000 == memcpy_d2d_ns);
  CHECK(rows.at("jit_squeeze/copy.1").occurrences == gpu["memcpy_memset"]["MemcpyD2D"]["count"].get<uint64_t>());
  CHECK(xla_ps / 1000 == gpu["kernels"]["ns"].get<uint64_t>() + memcpy_d2d_ns);
  for (const auto& [module, c] : gpu["by_hlo_module"].items()) {
    INFO(module);
    CHECK(ps_by_module[module] / 1000 == c["ns"].get<uint64_t>());
  }
  // One kernel per execution of a Triton GEMM: occurrences are the kernels.
  CHECK(rows.at("jit_train_step/gemm_fusion_dot.1").occurrences ==
        gpu["by_hlo_op"]["gemm_fusion_dot.1"]["count"].get<uint64_t>());
  CHECK(rows.at("jit_train_step/gemm_fusion_dot.1").category == "custom fusion");
  CHECK(rows.at("jit_train_step/loop_select_fusion.1").category == "loop fusion");
  CHECK(rows.at("jit_train_step/input_reduce_fusion.2").category == "input fusion");
  CHECK(rows.at("jit_squeeze/copy.1").category == "data formatting");
  // jit_eval_logits ran once, as one CUDA graph (command buffer): its 6
  // kernels are one occurrence of the command buffer.
  const OpMetrics& eval = rows.at("jit_eval_logits/command_buffer_1");
  CHECK(eval.category == "command buffer");
  CHECK(eval.occurrences == facts["host_launch_events"]["cuGraphLaunch (CudaGraph:5)"].get<uint64_t>());
  CHECK(eval.time_ps / 1000 == gpu["by_launch"]["cuGraphLaunch (CudaGraph:5)"]["ns"].get<uint64_t>());
  CHECK(d.Count("op_stats.xla_command_buffer") == gpu["by_hlo_op"]["command_buffer_1"]["count"].get<uint64_t>());
  CHECK(d.Count("op_stats.xla_device_ops_skipped") == 0);

  // A JAX capture has no TF ops on the host: PjRt's
  // "ThenExecuteCallback:GetEventForComputeStreamSyncPoint" is not one.
  for (const OpMetrics& m : s.host_ops.rows()) CHECK(m.is_idle());
}

TEST_CASE("JAX GPU capture: kernel stats name the HLO op", "[jax][kernels]") {
  const nlohmann::json gpu = Facts("jax_gpu")["devices"]["/device:GPU:0"];
  Diagnostics d;
  Host host = LoadOnlyHost(SourcePath("testdata/captures/jax_gpu"), d);
  HostSummary s = SummarizeHostOps(host, d);
  std::map<std::string, uint64_t> ns_by_op, count_by_op;
  uint64_t launches = 0;
  for (const KernelReport& r : s.kernels.Sorted(0)) {
    INFO(r.name << " " << r.op_name);
    REQUIRE(r.op_name.find('/') != std::string::npos);
    ns_by_op[OpPart(r.op_name)] += r.total_ns;
    count_by_op[OpPart(r.op_name)] += r.occurrences;
    launches += r.occurrences;
    // Triton GEMM fusions are dots: Tensor Core eligible.
    if (OpPart(r.op_name).rfind("gemm_fusion", 0) == 0) CHECK(r.op_tensor_core_eligible);
    if (OpPart(r.op_name).rfind("loop_", 0) == 0) CHECK_FALSE(r.op_tensor_core_eligible);
  }
  CHECK(launches == gpu["kernels"]["count"].get<uint64_t>());
  REQUIRE(ns_by_op.size() == gpu["by_hlo_op"].size());
  for (const auto& [op, c] : gpu["by_hlo_op"].items()) {
    INFO(op);
    CHECK(count_by_op[op] == c["count"].get<uint64_t>());
    // Kernel stats keep whole nanoseconds per kernel (as the reference),
    // the facts sum picoseconds: at most 1 ns per kernel apart.
    CHECK(ns_by_op[op] <= c["ns"].get<uint64_t>());
    CHECK(ns_by_op[op] + c["count"].get<uint64_t>() >= c["ns"].get<uint64_t>());
  }
}

TEST_CASE("JAX cuBLAS capture: kernels of a command buffer count for the command buffer, once per graph launch",
          "[jax][op_stats]") {
  const auto [facts, d, s, rows] = LoadGpuCapture("jax_gpu_cublas");
  const nlohmann::json& gpu = facts["devices"]["/device:GPU:0"];
  const OpMetrics& train = rows.at("jit_train_step/command_buffer_1");
  const OpMetrics& eval = rows.at("jit_eval_logits/command_buffer_1");
  // jit_train_step ran as CUDA graph 68, five times (one per step); the
  // eval pass as graph 43, once. Their command-buffer kernels are all of
  // the facts' command_buffer_1 kernels.
  CHECK(train.occurrences == facts["host_launch_events"]["cuGraphLaunch (CudaGraph:68)"].get<uint64_t>());
  CHECK(eval.occurrences == facts["host_launch_events"]["cuGraphLaunch (CudaGraph:43)"].get<uint64_t>());
  CHECK(eval.time_ps / 1000 == gpu["by_launch"]["cuGraphLaunch (CudaGraph:43)"]["ns"].get<uint64_t>());
  CHECK((train.time_ps + eval.time_ps) / 1000 == gpu["by_hlo_op"]["command_buffer_1"]["ns"].get<uint64_t>());
  CHECK(d.Count("op_stats.xla_command_buffer") == gpu["by_hlo_op"]["command_buffer_1"]["count"].get<uint64_t>());
  // The HLO ops outside the command buffer keep their own rows.
  for (const char* op : {"wrapped_convert", "wrapped_convert.1", "input_scatter_fusion", "loop_broadcast_fusion"}) {
    INFO(op);
    const OpMetrics& m = rows.at(std::string("jit_train_step/") + op);
    CHECK(m.time_ps / 1000 == gpu["by_hlo_op"][op]["ns"].get<uint64_t>());
    CHECK(m.occurrences == gpu["by_hlo_op"][op]["count"].get<uint64_t>());
  }
  // Tensor Core kernels inside the command buffer: the op is eligible.
  for (const KernelReport& r : s.kernels.Sorted(0))
    if (r.uses_tensor_core) CHECK(r.op_tensor_core_eligible);
}

TEST_CASE("JAX capture without command buffers: every kernel counts for the HLO op that made it",
          "[jax][op_stats][kernels]") {
  // XLA_FLAGS=--xla_gpu_enable_command_buffer= (and cuBLAS GEMMs): no CUDA
  // graph, so no command_buffer_* rows; each HLO op's device time and
  // occurrences are its kernels' (one kernel per execution here but for the
  // cuBLAS calls that run a split-K reduction beside their GEMM).
  const auto [facts, d, s, rows] = LoadGpuCapture("jax_gpu_thunks");
  const nlohmann::json& gpu = facts["devices"]["/device:GPU:0"];
  REQUIRE(gpu["in_cuda_graph"]["count"] == 0);
  REQUIRE(gpu["without_hlo_op"].empty());
  CHECK(d.Count("op_stats.xla_command_buffer") == 0);
  std::map<std::string, uint64_t> kernel_ps_by_op, ps_by_module;
  for (const auto& [name, m] : rows) {
    INFO(name);
    CHECK(m.category != "command buffer");
    ps_by_module[ModulePart(name)] += m.time_ps;
    if (OpPart(name) != "copy.1") kernel_ps_by_op[OpPart(name)] += m.time_ps;  // The MemcpyD2D, counted apart.
  }
  REQUIRE(kernel_ps_by_op.size() == gpu["by_hlo_op"].size());
  for (const auto& [op, c] : gpu["by_hlo_op"].items()) {
    INFO(op);
    CHECK(kernel_ps_by_op[op] / 1000 == c["ns"].get<uint64_t>());
  }
  CHECK(rows.at("jit_squeeze/copy.1").time_ps / 1000 == gpu["memcpy_memset"]["MemcpyD2D"]["ns"].get<uint64_t>());
  for (const auto& [module, c] : gpu["by_hlo_module"].items()) {
    INFO(module);
    CHECK(ps_by_module[module] / 1000 == c["ns"].get<uint64_t>());
  }
  // The cuBLAS GEMMs are their custom calls' rows, Tensor Core eligible.
  const OpMetrics& gemm = rows.at("jit_train_step/cublas-lt-matmul.4");
  CHECK(gemm.category == "custom-call");
  CHECK(gemm.occurrences == gpu["by_hlo_op"]["cublas-lt-matmul.4"]["count"].get<uint64_t>());
  uint64_t launches = 0;
  for (const KernelReport& r : s.kernels.Sorted(0)) {
    INFO(r.name << " " << r.op_name);
    CHECK(OpPart(r.op_name).rfind("command_buffer", 0) == std::string::npos);
    launches += r.occurrences;
    if (r.uses_tensor_core) CHECK(r.op_tensor_core_eligible);
  }
  CHECK(launches == gpu["kernels"]["count"].get<uint64_t>());
}

TEST_CASE("JAX captures: steps are the StepTraceAnnotation steps", "[jax][steps]") {
  for (const char* capture : {"jax_gpu", "jax_gpu_cublas", "jax_gpu_thunks"}) {
    INFO(capture);
    const nlohmann::json facts = Facts(capture);
    Diagnostics d;
    Host host = LoadOnlyHost(SourcePath(std::string("testdata/captures/") + capture), d);
    EventGroups g = GroupEvents(host, d);
    REQUIRE(g.groups.size() == facts["steps"].size());
    for (size_t i = 0; i < g.groups.size(); ++i) {
      const nlohmann::json& step = facts["steps"][i];
      CHECK(g.groups[i].name ==
            step["name"].get<std::string>() + " " + std::to_string(step["step_num"].get<int64_t>()));
      CHECK(g.groups[i].step_number == step["step_num"].get<int64_t>());
    }
    StepDb db = BuildStepDb(host, g, {}, d);
    CHECK(db.steps.size() == facts["steps"].size());
  }
}

TEST_CASE("JAX CPU capture: XLA:CPU thunks are the host ops", "[jax][op_stats]") {
  const nlohmann::json facts = Facts("jax_mlp");
  Diagnostics d;
  Host host = LoadOnlyHost(SourcePath("testdata/captures/jax_mlp"), d);
  HostSummary s = SummarizeHostOps(host, d);
  auto rows = RowsByName(s.host_ops);
  REQUIRE(rows.size() == facts["host_events_with_hlo_op"].size());
  for (const auto& [name, m] : rows) {
    INFO(name);
    const nlohmann::json& c = facts["host_events_with_hlo_op"][OpPart(name)];
    CHECK(m.occurrences == c["count"].get<uint64_t>());
    CHECK(m.time_ps / 1000 == c["ns"].get<uint64_t>());
  }
  CHECK(rows.at("jit_train_step/dot").category == "dot");
  CHECK(rows.at("jit_train_step/ynn_fusion.3").category == "custom fusion");
  CHECK(rows.at("jit_squeeze/copy").category == "data formatting");
  CHECK(rows.at("jit_dynamic_slice/wrapped_dynamic-slice").category == "loop fusion");
  CHECK(rows.at("jit_train_step/multiply_subtract_fusion.1").category == "fusion");

  // --compat xprof: as xprof 2.24.2 (testdata/reference: framework_op_stats
  // has only IDLE for jax_mlp).
  Diagnostics dx;
  HostSummary x = SummarizeHostOps(host, dx, AnalysisOptions{Compat::kXprof});
  for (const OpMetrics& m : x.host_ops.rows()) CHECK(m.is_idle());
}

TEST_CASE("JAX GPU captures: device ops match xprof's hlo_stats (which reads the HLO protos the capture embeds)",
          "[jax][op_stats][parity]") {
  // testdata/reference/captures/<capture>/.../hlo_stats.json: xprof 2.24.2
  // names XLA ops from the HLO protos in /host:metadata. Its rows are per
  // program id; ours per module name, so a module compiled twice (two
  // shapes: jit_dynamic_slice, jit_squeeze here) is one row: sum xprof's.
  // An op name of several modules (jax_gpu_thunks: wrapped_convert of
  // jit_train_step and jit_eval_logits) is summed on both sides.
  // Fusions XLA gives to Triton's generic emitter keep their loop_/input_
  // names but are custom fusions: only the protos tell (docs/formats/jax.md).
  struct Capture {
    std::map<std::string, std::string> named_like_another_kind;
    // Ops that ran two kernels per execution (a cuBLAS GEMM and its split-K
    // reduction): xprof counts each kernel as an occurrence, we count the
    // executions (docs/parity.md). Op -> our occurrences.
    std::map<std::string, uint64_t> executions;
  };
  const std::map<std::string, Capture> kCaptures = {
      {"jax_gpu",
       {{{"input_reduce_fusion", "custom fusion"},
         {"input_reduce_fusion.3", "custom fusion"},
         {"loop_add_fusion", "custom fusion"},
         {"loop_reduce_fusion", "custom fusion"},
         {"loop_reduce_fusion.1", "custom fusion"}},
        {}}},
      {"jax_gpu_cublas", {}},
      {"jax_gpu_thunks",
       {{{"fusion.19", "custom fusion"}, {"fusion.24", "custom fusion"}, {"input_reduce_fusion", "custom fusion"}},
        // 5 train steps x 2 kernels + 1 eval x 1 kernel; 1 eval x 2 kernels.
        {{"cublas-lt-matmul.5", 6}, {"cublas-lt-matmul.7", 1}}}}};
  for (const auto& [capture, expect] : kCaptures) {
    INFO(capture);
    const nlohmann::json facts_by_op = Facts(capture)["devices"]["/device:GPU:0"]["by_hlo_op"];
    DiscoveredInput input = DiscoverInput(SourcePath("testdata/captures/" + capture));
    REQUIRE(input.selected.files.size() == 1);
    const std::string run = std::filesystem::path(input.selected.files[0].path).parent_path().filename().string();
    std::ifstream in(
        SourcePath("testdata/reference/captures/" + capture + "/plugins/profile/" + run + "/hlo_stats.json"));
    REQUIRE(in);
    const nlohmann::json table = nlohmann::json::parse(in);
    std::map<std::string, size_t> col;
    for (size_t i = 0; i < table["cols"].size(); ++i) col[table["cols"][i]["id"]] = i;
    struct Row {
      std::string category;
      double occurrences = 0, total_us = 0;
    };
    std::map<std::string, Row> want;
    for (const auto& r : table["rows"]) {
      Row& w = want[r["c"][col.at("hlo_op_name")]["v"].get<std::string>()];
      w.category = r["c"][col.at("category")]["v"].get<std::string>();
      w.occurrences += r["c"][col.at("occurrences")]["v"].get<double>();
      w.total_us += r["c"][col.at("total_time")]["v"].get<double>();
    }
    Diagnostics d;
    Host host = LoadCapture(input.selected.files[0], d);
    HostSummary s = SummarizeHostOps(host, d);
    std::map<std::string, OpMetrics> ours;
    for (const auto& [name, m] : RowsByName(DeviceOpsToTfOps(s.device_ops, false))) {
      INFO(name);
      // xprof has no row for a command buffer (no HLO instruction of that
      // name): its kernels' time is missing there. We keep it.
      if (m.category == "command buffer") {
        CHECK(want.count(OpPart(name)) == 0);
        continue;
      }
      auto [it, added] = ours.emplace(OpPart(name), m);
      if (!added) {
        it->second.occurrences += m.occurrences;
        it->second.time_ps += m.time_ps;
      }
    }
    REQUIRE(!want.empty());
    for (const auto& [op, w] : want) {
      INFO(op);
      REQUIRE(ours.count(op));
      const OpMetrics& m = ours.at(op);
      // xprof's occurrences are the op's kernels (the facts leave copies out).
      if (facts_by_op.contains(op)) CHECK(w.occurrences == facts_by_op[op]["count"].get<double>());
      if (auto it = expect.executions.find(op); it != expect.executions.end()) {
        CHECK(m.occurrences == it->second);
        CHECK(w.occurrences > static_cast<double>(m.occurrences));
      } else {
        CHECK(static_cast<double>(m.occurrences) == w.occurrences);
      }
      CHECK(std::abs(static_cast<double>(m.time_ps) / 1e6 - w.total_us) < 0.0015);  // xprof prints µs to 3 decimals
      if (auto it = expect.named_like_another_kind.find(op); it != expect.named_like_another_kind.end())
        CHECK(w.category == it->second);
      else CHECK(m.category == w.category);
    }
    CHECK(ours.size() == want.size());
  }
}

TEST_CASE("JAX ROCm capture: per-HLO-op device time equals TraceLens' third-party report", "[jax][op_stats][corpus]") {
  // AMD's TraceLens analysed the same xplane (GPU 7 of an MI300X run) and
  // reports kernel time per kernel and per category (its CSVs sit beside
  // the capture in the corpus). XLA names a fusion's kernel after the fusion
  // ('.' -> '_'); the cuDNN-style convolution cudnn-conv.1.0 runs two kernels
  // (Im3d2Col and a GEMM), TraceLens' category "Conv".
  REQUIRE_CORPUS(path, "tracelens/mi300/jax_conv_minimal_legacy/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb");
  REQUIRE_CORPUS(csv_dir, "tracelens/mi300/jax_conv_minimal_perf_report_csvs");
  auto read_csv = [](const std::string& file) {
    std::map<std::string, std::vector<std::string>> rows;  // First column -> cells.
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);  // Header.
    while (std::getline(in, line)) {
      std::vector<std::string> cells;
      for (size_t start = 0, end; start <= line.size(); start = end + 1) {
        end = line.find(',', start);
        if (end == std::string::npos) end = line.size();
        cells.push_back(line.substr(start, end - start));
      }
      rows[cells[0]] = cells;
    }
    return rows;
  };
  // name,total_direct_kernel_time_sum (us),Count,...
  auto kernels = read_csv(csv_dir + "/kernel_launchers_summary.csv");
  // op category,Count,total_direct_kernel_time_ms,...
  auto categories = read_csv(csv_dir + "/kernel_launchers_summary_by_category.csv");
  REQUIRE(categories.count("Conv"));

  Diagnostics d;
  Host host = LoadOnlyHost(path, d);
  HostSummary s = SummarizeHostOps(host, d);
  auto rows = RowsByName(DeviceOpsToTfOps(s.device_ops, false));
  auto check = [&](const std::string& op, double want_us, uint64_t want_occurrences) {
    INFO(op);
    REQUIRE(rows.count("jit_forward_3d_conv/" + op));
    const OpMetrics& m = rows.at("jit_forward_3d_conv/" + op);
    CHECK(std::abs(static_cast<double>(m.time_ps) / 1e6 - want_us) < 0.0015);
    CHECK(m.occurrences == want_occurrences);
  };
  for (const auto& [op, kernel] :
       std::map<std::string, std::string>{{"input_transpose_fusion", "input_transpose_fusion"},
                                          {"input_transpose_fusion.1", "input_transpose_fusion_1"},
                                          {"loop_transpose_fusion", "loop_transpose_fusion"}}) {
    REQUIRE(kernels.count(kernel));
    check(op, std::stod(kernels[kernel][1]), std::stoull(kernels[kernel][2]));
  }
  // Both kernels of each convolution run back to back: one occurrence per
  // Im3d2Col.
  check("cudnn-conv.1.0", std::stod(categories["Conv"][2]) * 1000, std::stoull(kernels["Im3d2Col"][2]));
  CHECK(rows.at("jit_forward_3d_conv/cudnn-conv.1.0").category == "custom-call");
  CHECK(rows.at("jit_forward_3d_conv/input_transpose_fusion").category == "input fusion");
  // JAX 0.8 on ROCm: the host's launch calls carry hlo_op and XLA's tf_op
  // placeholder; neither makes a host op.
  for (const OpMetrics& m : s.host_ops.rows()) CHECK(m.is_idle());
}

TEST_CASE("A TPU capture is not called CPU-only: its TPU planes are said not to be analysed", "[jax][overview]") {
  // A JAX TPU capture's devices are /device:TPU:<n> planes, which no
  // analysis reads; until session 45 the overview said "CPU only" and
  // kernel-stats "a CPU-only run".
  tfprof::testing::XSpaceBuilder space;
  space.Plane("/host:CPU").Line(1, "python3", 1000).Event("PjitFunction(matmul)", 0, 5 * tfprof::testing::kUs);
  space.Plane("/device:TPU:0", 1).Line(1, "XLA Ops", 1000).Event("fusion.1", 0, 2 * tfprof::testing::kUs);
  space.Plane("/device:TPU:1", 2).Line(1, "XLA Ops", 1000).Event("fusion.1", 0, 2 * tfprof::testing::kUs);
  const std::string path = space.WriteTemp("tpu.xplane.pb");
  const auto overview = tfprof::testing::RunTool("overview " + path);
  REQUIRE(overview.exit_code == 0);
  CHECK_THAT(overview.out, Catch::Contains("· 2 TPUs (not analysed) ·"));
  CHECK_THAT(overview.out, !Catch::Contains("CPU only"));
  const auto kernels = tfprof::testing::RunTool("kernel-stats " + path);
  CHECK(kernels.exit_code == 4);
  CHECK_THAT(kernels.err, Catch::Contains("the capture's devices are 2 TPUs (/device:TPU:<n> planes)"));
  CHECK_THAT(tfprof::testing::RunTool("placement " + path).out,
             Catch::Contains("the capture's devices are TPUs, which tfprof-analyze does not analyse"));
  CHECK_THAT(tfprof::testing::RunTool("advise " + path).out,
             Catch::Contains("no GPU in the capture: its devices are TPUs"));
  // Through a stored run summary too (RunEnvironment.tpu_count).
  const std::string stored = path + ".tfsum";
  REQUIRE(tfprof::testing::RunTool("summarize " + path + " -o " + stored).exit_code == 0);
  CHECK_THAT(tfprof::testing::RunTool("overview " + stored).out, Catch::Contains("· 2 TPUs (not analysed) ·"));
}
