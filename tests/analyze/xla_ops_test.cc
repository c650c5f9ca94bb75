// XLA ops (hlo_op stats) on small captures built in code, every number
// checked by hand: when the JAX semantics apply, what an occurrence is, and
// what --compat keeps as the references have it.
#include <catch2/catch.hpp>

#include "lib/read/xplane_reader.h"
#include "lib/summary/device_plane_to_op_metrics.h"
#include "lib/summary/host_plane_to_op_metrics.h"
#include "lib/summary/host_summary.h"
#include "lib/summary/xla_ops_to_op_metrics.h"
#include "tests/support/op_rows.h"
#include "tests/support/xspace_builder.h"

using namespace tfprof;
using namespace tfprof::testing;

namespace {

StatList Xla(const std::string& module, const std::string& op, int64_t scope = 0, uint64_t correlation = 0) {
  StatList s{{"tf_op", Ref{"XlaModule:"}}, {"hlo_module", Ref{module}}, {"hlo_op", Ref{op}}};
  if (scope) s.push_back({"scope_range_id", scope});
  if (correlation) s.push_back({"correlation_id", correlation});
  return s;
}

}  // namespace

TEST_CASE("XLA op categories from the names XLA gives instructions", "[xla]") {
  auto check = [](std::string_view op, std::string_view category) {
    INFO(op);
    CHECK(XlaOpCategory(op) == category);
  };
  check("loop_add_fusion", "loop fusion");
  check("loop_dynamic_slice_fusion.12", "loop fusion");
  check("input_reduce_select_fusion.1", "input fusion");
  check("output_fusion", "output fusion");
  check("gemm_fusion_dot_general.13", "custom fusion");
  check("triton_softmax.1", "custom fusion");
  check("ynn_fusion.3", "custom fusion");
  check("wrapped_convert.1", "loop fusion");
  check("wrapped_dynamic-slice", "loop fusion");
  check("multiply_subtract_fusion.2", "fusion");
  check("fusion.42", "fusion");
  check("cublas-gemm.3", "custom-call");
  check("cudnn-conv.1.0", "custom-call");
  check("custom-call.7", "custom-call");
  check("copy.1", "data formatting");
  check("transpose", "data formatting");
  check("add.5", "non-fusion elementwise");
  check("convert", "non-fusion elementwise");
  check("dot.1", "dot");
  check("all-reduce-start.2", "all-reduce-start");
  check("command_buffer_1", "command buffer");
  check("Some Thunk", "unknown");
  check("", "unknown");
}

TEST_CASE("XLA ops that can use Tensor Cores: dots, convolutions, GEMMs", "[xla]") {
  CHECK(IsXlaOpTensorCoreEligible("gemm_fusion_dot.1", "custom fusion"));
  CHECK(IsXlaOpTensorCoreEligible("cudnn-conv.1.0", "custom-call"));
  CHECK(IsXlaOpTensorCoreEligible("cublas-lt-matmul.2", "custom-call"));
  CHECK(IsXlaOpTensorCoreEligible("dot.1", "dot"));
  CHECK_FALSE(IsXlaOpTensorCoreEligible("loop_convert_fusion", "loop fusion"));  // "convert" is no "conv"
  CHECK_FALSE(IsXlaOpTensorCoreEligible("wrapped_convert", "loop fusion"));
  CHECK_FALSE(IsXlaOpTensorCoreEligible("input_reduce_fusion", "input fusion"));
}

TEST_CASE("XLA device ops: one row per (module, HLO op), an occurrence per run of the op", "[xla][opstats]") {
  XSpaceBuilder space;
  auto& gpu = space.Plane("/device:GPU:0", 1);
  // A convolution (two kernels), a fusion, the convolution again, then the
  // fusion twice in a row in two executions of the module (scope ids 7, 8).
  gpu.Line(1, "Stream #1(Compute)", 1000)
      .Event("Im2Col", 0, 1 * kUs, Xla("jit_f", "cudnn-conv.1", 7))
      .Event("gemm_kernel", 1 * kUs, 4 * kUs, Xla("jit_f", "cudnn-conv.1", 7))
      .Event("loop_add_fusion", 5 * kUs, 2 * kUs, Xla("jit_f", "loop_add_fusion", 7))
      .Event("Im2Col", 8 * kUs, 1 * kUs, Xla("jit_f", "cudnn-conv.1", 7))
      .Event("gemm_kernel", 9 * kUs, 4 * kUs, Xla("jit_f", "cudnn-conv.1", 7))
      .Event("loop_add_fusion", 14 * kUs, 2 * kUs, Xla("jit_f", "loop_add_fusion", 7))
      .Event("loop_add_fusion", 16 * kUs, 2 * kUs, Xla("jit_f", "loop_add_fusion", 8))
      .Event("loop_add_fusion", 18 * kUs, 3 * kUs, Xla("jit_g", "loop_add_fusion", 9));
  Host h = ReadBuilt(space);
  Diagnostics d;
  OpMetricsDb db = DevicePlaneToOpMetrics(h, h.planes[0], d);
  const OpMetrics* conv = OpRow(db, "jit_f/cudnn-conv.1");
  REQUIRE(conv);
  CHECK(conv->occurrences == 2);
  CHECK(conv->time_ps == 10 * kUs);
  CHECK(conv->self_time_ps == 10 * kUs);
  CHECK(conv->category == "custom-call");
  const OpMetrics* add = OpRow(db, "jit_f/loop_add_fusion");
  REQUIRE(add);
  CHECK(add->occurrences == 3);
  CHECK(add->time_ps == 6 * kUs);
  // Same HLO op name in another module: its own row.
  const OpMetrics* other = OpRow(db, "jit_g/loop_add_fusion");
  REQUIRE(other);
  CHECK(other->occurrences == 1);
  CHECK(other->time_ps == 3 * kUs);
  // Span 21 us, ops 19 us.
  CHECK(db.total_op_time_ps == 19 * kUs);
  CHECK(OpRow(db, "IDLE")->self_time_ps == 2 * kUs);
  CHECK(d.Count("op_stats.xla_ops") == 8);
  // Rolled up to the TF-op level (what op-stats shows), rows stay as they are.
  OpMetricsDb top = DeviceOpsToTfOps(db, false);
  REQUIRE(OpRow(top, "jit_f/cudnn-conv.1"));
  CHECK(OpRow(top, "jit_f/cudnn-conv.1")->category == "custom-call");
  CHECK(OpRow(top, "jit_f/cudnn-conv.1")->occurrences == 2);

  SECTION("--compat xprof and tf-legacy leave them out, as the references do without the HLO protos") {
    for (Compat c : {Compat::kXprof, Compat::kTfLegacy}) {
      Diagnostics dc;
      OpMetricsDb x = DevicePlaneToOpMetrics(h, h.planes[0], dc, AnalysisOptions{c});
      CHECK(x.total_op_time_ps == 0);
      CHECK(dc.Count("op_stats.xla_device_ops_skipped") == 8);
      CHECK(dc.Count("op_stats.xla_ops") == 0);
    }
  }
}

TEST_CASE("XLA device ops: without scope ids, a run of the op on one stream is one occurrence", "[xla][opstats]") {
  XSpaceBuilder space;
  auto& gpu = space.Plane("/device:GPU:0", 1);
  // A cuBLAS GEMM and its split-K reduction, a memcpy without hlo_op (not
  // an XLA op: it breaks the run), then the GEMM again.
  gpu.Line(1, "Stream #1(Compute)", 1000)
      .Event("sm90_gemm", 0, 3 * kUs, Xla("jit_f", "cublas-gemm.1"))
      .Event("splitKreduce_kernel", 3 * kUs, 1 * kUs, Xla("jit_f", "cublas-gemm.1"))
      .Event("MemcpyD2D", 4 * kUs, 1 * kUs, {{"correlation_id", uint64_t{5}}})
      .Event("sm90_gemm", 5 * kUs, 3 * kUs, Xla("jit_f", "cublas-gemm.1"));
  Host h = ReadBuilt(space);
  Diagnostics d;
  OpMetricsDb db = DevicePlaneToOpMetrics(h, h.planes[0], d);
  REQUIRE(OpRow(db, "jit_f/cublas-gemm.1"));
  CHECK(OpRow(db, "jit_f/cublas-gemm.1")->occurrences == 2);
  CHECK(OpRow(db, "jit_f/cublas-gemm.1")->time_ps == 7 * kUs);
}

TEST_CASE("TensorFlow with XLA: a kernel whose tf_op names a TF op counts for that TF op", "[xla][opstats]") {
  XSpaceBuilder space;
  auto& gpu = space.Plane("/device:GPU:0", 1);
  gpu.Line(1, "Stream #1(Compute)", 1000)
      .Event(
          "fusion_3", 0, 2 * kUs,
          {{"tf_op", Ref{"model/dense/MatMul:MatMul"}}, {"hlo_op", Ref{"fusion.3"}}, {"hlo_module", Ref{"cluster_0"}}});
  Host h = ReadBuilt(space);
  Diagnostics d;
  OpMetricsDb db = DevicePlaneToOpMetrics(h, h.planes[0], d);
  const OpMetrics* row = OpRow(db, "model/dense/MatMul/fusion_3");
  REQUIRE(row);
  CHECK(row->category == "MatMul");
  CHECK(row->time_ps == 2 * kUs);
  CHECK(d.Count("op_stats.xla_ops") == 0);
}

TEST_CASE("XLA kernel stats: the op is <module>/<hlo_op>, xprof compat keeps XLA's tf_op placeholder",
          "[xla][kernels]") {
  XSpaceBuilder space;
  auto& gpu = space.Plane("/device:GPU:0", 1);
  StatList stats = Xla("jit_f", "gemm_fusion_dot.1");
  stats.push_back({"kernel_details", std::string("regs:64 grid:2,1,1 block:128,1,1")});
  gpu.Line(1, "Stream #1(Compute)", 1000).Event("gemm_fusion_dot_1", 0, 2 * kUs, stats);
  Host h = ReadBuilt(space);
  KernelStatsDb k;
  k.AddPlane(h, h.planes[0]);
  REQUIRE(k.size() == 1);
  CHECK(k.Sorted()[0].op_name == "jit_f/gemm_fusion_dot.1");
  CHECK(k.Sorted()[0].op_tensor_core_eligible);
  KernelStatsDb x;
  x.AddPlane(h, h.planes[0], AnalysisOptions{Compat::kXprof});
  CHECK(x.Sorted()[0].op_name == "XlaModule");
  CHECK_FALSE(x.Sorted()[0].op_tensor_core_eligible);
}

TEST_CASE("XLA:CPU host ops: thunks with hlo_op are ops, kernel launches named by one are not", "[xla][opstats]") {
  XSpaceBuilder space;
  auto& cpu = space.Plane("/host:CPU", 0);
  cpu.Line(1, "python", 1000)
      .Event("PjitFunction(f)", 0, 20 * kUs)
      .Event("dot.1", 1 * kUs, 5 * kUs, Xla("jit_f", "dot.1"))
      .Event("wrapped_convert", 7 * kUs, 2 * kUs, Xla("jit_f", "wrapped_convert"))
      // An XLA:GPU launch call carries the hlo_op of its kernel.
      .Event("cuLaunchKernel", 10 * kUs, 1 * kUs, Xla("jit_f", "loop_add_fusion", 0, 42))
      // PjRt's TraceMe, whose name parses as a TF op: not one in a JAX capture.
      .Event("ThenExecuteCallback:GetEventForComputeStreamSyncPoint", 12 * kUs, 1 * kUs);
  Host h = ReadBuilt(space);
  REQUIRE(IsJaxCapture(h));
  Diagnostics d;
  OpMetricsDb db = HostPlaneToOpMetrics(h, h.planes[0], d);
  REQUIRE(OpRow(db, "jit_f/dot.1"));
  CHECK(OpRow(db, "jit_f/dot.1")->time_ps == 5 * kUs);
  CHECK(OpRow(db, "jit_f/dot.1")->category == "dot");
  CHECK(OpRow(db, "jit_f/wrapped_convert")->category == "loop fusion");
  CHECK(OpRow(db, "jit_f/loop_add_fusion") == nullptr);
  CHECK(OpRow(db, "ThenExecuteCallback") == nullptr);
  CHECK(db.total_op_time_ps == 7 * kUs);
  CHECK(d.Count("op_stats.xla_host_ops") == 2);

  SECTION("--compat xprof: no XLA ops, and the names parse as TF ops as the reference parses them") {
    Diagnostics dx;
    OpMetricsDb x = HostPlaneToOpMetrics(h, h.planes[0], dx, AnalysisOptions{Compat::kXprof});
    CHECK(OpRow(x, "jit_f/dot.1") == nullptr);
    REQUIRE(OpRow(x, "ThenExecuteCallback"));
    CHECK(OpRow(x, "ThenExecuteCallback")->time_ps == 1 * kUs);
  }
}

TEST_CASE("A TF capture is no JAX capture: its 'name:Type' events stay TF ops", "[xla][opstats]") {
  XSpaceBuilder space;
  auto& cpu = space.Plane("/host:CPU", 0);
  cpu.Line(1, "tf_Compute", 1000).Event("ThenExecuteCallback:GetEventForComputeStreamSyncPoint", 0, 2 * kUs);
  Host h = ReadBuilt(space);
  CHECK_FALSE(IsJaxCapture(h));
  Diagnostics d;
  OpMetricsDb db = HostPlaneToOpMetrics(h, h.planes[0], d);
  REQUIRE(OpRow(db, "ThenExecuteCallback"));
  CHECK(OpRow(db, "ThenExecuteCallback")->time_ps == 2 * kUs);

  XSpaceBuilder jax;
  jax.Plane("/host:metadata", 0).Stat("jax_version", std::string("0.11.2"));
  jax.Plane("/host:CPU", 1).Line(1, "python3", 1000).Event("train", 0, 1 * kUs);
  CHECK(IsJaxCapture(ReadBuilt(jax)));
}
