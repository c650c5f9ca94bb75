#include <catch2/catch.hpp>

#include "lib/analyze/kernel_stats_report.h"
#include "lib/read/xplane_reader.h"
#include "lib/summary/device_plane_to_kernel_stats.h"
#include "lib/summary/host_summary.h"
#include "tests/support/xspace_builder.h"

using namespace tfprof;
using tfprof::testing::Ref;
using tfprof::testing::StatList;
using tfprof::testing::XSpaceBuilder;

TEST_CASE("kernel_details parses current and old formats", "[kernels]") {
  KernelLaunchParams p =
      ParseKernelDetails("regs:64 static_shared:1024 dynamic_shared:512 grid:2,3,4 block:128,1,1 occ_pct:37.5");
  CHECK(p.registers_per_thread == 64);
  CHECK(p.static_shmem_bytes == 1024);
  CHECK(p.dynamic_shmem_bytes == 512);
  CHECK(p.grid == std::array<uint32_t, 3>{2, 3, 4});
  CHECK(p.block == std::array<uint32_t, 3>{128, 1, 1});
  CHECK(p.occupancy_pct == 37.5);
  KernelLaunchParams old = ParseKernelDetails("regs:16 shm:2048 grid:1,1,1 block:1024,1,1");
  CHECK(old.static_shmem_bytes == 2048);
  CHECK(ParseKernelDetails("regs:16 shm:2048", /*xprof_compat=*/true).static_shmem_bytes == 0);
  KernelLaunchParams bad = ParseKernelDetails("regs:x grid:1,2 block:1,2,3,4 occ_pct=13 junk");
  CHECK(bad.registers_per_thread == 0);
  CHECK(bad.grid == std::array<uint32_t, 3>{1, 1, 1});
  CHECK(bad.block == std::array<uint32_t, 3>{1, 1, 1});
  CHECK(bad.occupancy_pct == 0);
}

TEST_CASE("Tensor Core rules", "[kernels]") {
  CHECK(IsKernelUsingTensorCore("volta_h884gemm_64x64_ldg8_nn"));
  CHECK(IsKernelUsingTensorCore("sm80_xmma_gemm_f16f16_f16f32"));
  CHECK_FALSE(IsKernelUsingTensorCore("volta_sgemm_128x64_nn"));
  CHECK(IsOpTensorCoreEligible("model/dense/MatMul"));
  CHECK(IsOpTensorCoreEligible("gradient_tape/conv/Conv2DBackpropFilter"));
  CHECK(IsOpTensorCoreEligible("x/BatchMatMulV2/y"));
  CHECK_FALSE(IsOpTensorCoreEligible("model/dense/BiasAdd"));
  CHECK_FALSE(IsOpTensorCoreEligible("MatMul"));  // Needs the "/MatMul" suffix.
  CHECK(IsEinsumTensorCoreEligible("ab,bc->ac"));
  CHECK_FALSE(IsEinsumTensorCoreEligible("ab->ba"));
  CHECK_FALSE(IsEinsumTensorCoreEligible(""));
}

TEST_CASE("Kernel reports merge by kernel, launch parameters and op, sort by total time", "[kernels]") {
  XSpaceBuilder b;
  auto& gpu = b.Plane("/device:GPU:0", 0);
  const std::string small = "regs:32 grid:1,1,1 block:64,1,1";
  gpu.Line(7, "Stream #7(Compute)", 0)
      .Event("gemm", 0, 1'500, {{"kernel_details", small}, {"tf_op", Ref{"d/MatMul:MatMul"}}})       // 1 ns
      .Event("gemm", 10'000, 3'999, {{"kernel_details", small}, {"tf_op", Ref{"d/MatMul:MatMul"}}})  // 3 ns
      .Event("gemm", 20'000, 5'000,
             {{"kernel_details", "regs:32 grid:2,1,1 block:64,1,1"}, {"tf_op", Ref{"d/MatMul:MatMul"}}})
      .Event("h884gemm", 30'000, 2'000,
             {{"kernel_details", small}, {"tf_op", Ref{"e/Einsum:Einsum"}}, {"equation", Ref{"ab,bc->ac"}}})
      .Event("memcpy", 40'000, 9'000, {{"memcpy_details", Ref{"size:8"}}})
      .Event("zero", 50'000, 0, {{"kernel_details", small}});  // Zero duration: not a kernel.
  Diagnostics d;
  Host h = ReadXSpaceBytes(b.Serialize(), "k.xplane.pb", d);
  HostSummary s = SummarizeHostOps(h, d);
  std::vector<KernelReport> r = s.kernels.Sorted();
  REQUIRE(r.size() == 3);
  CHECK(r[0].name == "gemm");  // 5 ns, grid 2,1,1
  CHECK(r[0].params.grid[0] == 2);
  CHECK(r[1].name == "gemm");  // 1 + 3 = 4 ns
  CHECK(r[1].occurrences == 2);
  CHECK(r[1].total_ns == 4);
  CHECK(r[1].min_ns == 1);
  CHECK(r[1].max_ns == 3);
  CHECK(r[1].op_name == "d/MatMul");
  CHECK(r[1].op_tensor_core_eligible);
  CHECK_FALSE(r[1].uses_tensor_core);
  CHECK(r[2].name == "h884gemm");
  CHECK(r[2].uses_tensor_core);
  CHECK(r[2].op_tensor_core_eligible);  // An einsum with two operands.
  CHECK(s.kernels.kernel_events == 4);

  KernelStatsOptions by_op;
  by_op.by_op = true;
  Report rep = BuildKernelStatsReport(s, by_op);
  const Table& t = rep.tables.at(0);
  REQUIRE(t.rows.size() == 2);
  CHECK(std::get<std::string>(t.rows[0][0]) == "d/MatMul");
  CHECK(std::get<int64_t>(t.rows[0][1]) == 2);   // kernel rows
  CHECK(std::get<int64_t>(t.rows[0][2]) == 3);   // launches
  CHECK(std::get<double>(t.rows[1][5]) == 1.0);  // Einsum: all on Tensor Cores.
}

TEST_CASE("No kernels: the reason names what is missing", "[kernels]") {
  Diagnostics d;
  XSpaceBuilder cpu_only;
  cpu_only.Plane("/host:CPU").Line(1, "t").Event("x", 0, 1);
  HostSummary a = SummarizeHostOps(ReadXSpaceBytes(cpu_only.Serialize(), "a", d), d);
  CHECK_THAT(NoKernelsReason(a), Catch::Contains("no GPU device plane"));
  XSpaceBuilder empty_gpu;
  empty_gpu.Plane("/device:GPU:0");
  HostSummary b = SummarizeHostOps(ReadXSpaceBytes(empty_gpu.Serialize(), "b", d), d);
  CHECK_THAT(NoKernelsReason(b), Catch::Contains("CUPTI"));
}

// A row is worked out once per distinct (kernel, stat values) and reused for
// later launches: the reuse must give what working each launch out gives.
TEST_CASE("Kernel rows are reused per distinct inputs, launches interleaved over lines and planes", "[kernels]") {
  XSpaceBuilder b;
  const std::string a = "regs:32 grid:1,1,1 block:64,1,1";
  const std::string a_reordered = "block:64,1,1 regs:32 grid:1,1,1";  // Same launch, other text: same row.
  const StatList on_x = {{"kernel_details", a}, {"tf_op", Ref{"x/MatMul:MatMul"}}};
  const StatList on_y = {{"kernel_details", a}, {"tf_op", Ref{"y/Relu:Relu"}}};
  auto& gpu0 = b.Plane("/device:GPU:0", 0);
  gpu0.Line(7, "Stream #7(Compute)", 0)
      .Event("k", 0, 2'000, on_x)
      .Event("k", 10'000, 7'000, on_y)
      .Event("k", 20'000, 4'000, on_x)
      .Event("k", 30'000, 9'000, {{"kernel_details", a_reordered}, {"tf_op", Ref{"x/MatMul:MatMul"}}})
      // The first of two stats with one name is the one read (here: no op).
      .Event("k", 40'000, 1'000, {{"kernel_details", a}, {"tf_op", Ref{""}}, {"tf_op", Ref{"x/MatMul:MatMul"}}});
  gpu0.Line(8, "Stream #8(Compute)", 0)
      .Event("k", 5'000, 3'000, on_x)
      .Event("k", 15'000, 0, on_x)  // No time: no launch counted.
      .Event("k", 25'000, 6'000, {{"kernel_details", ""}, {"tf_op", Ref{"x/MatMul:MatMul"}}});  // No details.
  auto& gpu1 = b.Plane("/device:GPU:1", 1);
  gpu1.Line(7, "Stream #7(Compute)", 0).Event("k", 0, 11'000, on_x).Event("k", 50'000, 5'000, on_y);
  Diagnostics d;
  Host h = ReadXSpaceBytes(b.Serialize(), "k.xplane.pb", d);
  HostSummary s = SummarizeHostOps(h, d);
  std::vector<KernelReport> r = s.kernels.Sorted();
  REQUIRE(r.size() == 3);
  // On x: 2 + 4 + 9 + 3 (GPU 0) + 11 (GPU 1) ns.
  CHECK(r[0].op_name == "x/MatMul");
  CHECK(r[0].occurrences == 5);
  CHECK(r[0].total_ns == 29);
  CHECK(r[0].min_ns == 2);
  CHECK(r[0].max_ns == 11);
  CHECK(r[0].op_tensor_core_eligible);
  // On y: 7 + 5 ns.
  CHECK(r[1].op_name == "y/Relu");
  CHECK(r[1].occurrences == 2);
  CHECK(r[1].total_ns == 12);
  CHECK(r[1].min_ns == 5);
  CHECK(r[1].max_ns == 7);
  CHECK_FALSE(r[1].op_tensor_core_eligible);
  // The launch whose first tf_op is empty has no op.
  CHECK(r[2].op_name.empty());
  CHECK(r[2].occurrences == 1);
  CHECK(r[2].total_ns == 1);
  CHECK(s.kernels.kernel_events == 8);
}

TEST_CASE("Kernel stats past the reference's 1000 rows: the headline gives the kept rows and all of them",
          "[kernels]") {
  // 1002 rows of 1..1002 us, one launch each: the 1000 longest are kept
  // (3..1002 us); the two shortest (1 and 2 us) are not. An 8-rank DLRM
  // trace read "1000 kernel rows · 1832 launches" as if that were all.
  HostSummary s;
  for (uint64_t i = 1; i <= 1002; ++i) {
    KernelReport r;
    r.name = "k" + std::to_string(i);
    r.op_name = i % 2 ? "odd" : "even";
    r.occurrences = 1;
    r.total_ns = r.min_ns = r.max_ns = i * 1000;
    s.kernels.AppendReport(r);
  }
  Report all = BuildKernelStatsReport(s, {});
  REQUIRE_FALSE(all.lines.empty());
  // Kept: 3..1002 us, 502,500 - 3 us; all: 502,503 us.
  CHECK(all.lines[0] ==
        "1000 of 1002 kernel rows (the longest) · 1000 of 1002 launches · 502.500 of 502.503 ms of "
        "kernel time · 0.0% on Tensor Cores");
  // Filtered by op: of the 501 odd rows, 1 us is past the cut.
  KernelStatsOptions odd;
  odd.op_regex = "^odd$";
  CHECK(BuildKernelStatsReport(s, odd).lines[0] ==
        "500 of 501 kernel rows (the longest) · 500 of 501 launches · 251.000 of 251.001 ms of kernel time · 0.0% on "
        "Tensor Cores");
  // Filtered by name: k4 (4 us) is kept, k2 (2 us) is past the cut.
  KernelStatsOptions even;
  even.kernel_regex = "^k(2|4)$";
  CHECK(BuildKernelStatsReport(s, even).lines[0] ==
        "1 of 2 kernel rows (the longest) · 1 of 2 launches · 0.004 of 0.006 ms of kernel time · 0.0% on Tensor Cores");
}
