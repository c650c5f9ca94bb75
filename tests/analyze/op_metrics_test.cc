// Op metrics on small captures built in code, every number checked by hand.
#include <catch2/catch.hpp>

#include <algorithm>

#include "fmt/format.h"

#include "lib/analyze/tf_stats_report.h"
#include "lib/read/xplane_reader.h"
#include "lib/summary/device_plane_to_op_metrics.h"
#include "lib/summary/host_plane_to_op_metrics.h"
#include "lib/summary/host_summary.h"
#include "lib/summary/tf_op_name.h"
#include "tests/support/op_rows.h"
#include "tests/support/xspace_builder.h"

using namespace tfprof;
using namespace tfprof::testing;

TEST_CASE("TF op full names split into name and type", "[opstats]") {
  auto check = [](std::string_view full, OpCategory cat, std::string_view name, std::string_view type,
                  bool legacy = false) {
    INFO(full);
    TfOp op = ParseTfOpFullname(full, legacy);
    CHECK(op.category == cat);
    CHECK(op.name == name);
    CHECK(op.type == type);
  };
  check("dense/MatMul:MatMul", OpCategory::kTensorFlow, "dense/MatMul", "MatMul");
  check("Iterator::Model::Map", OpCategory::kTfData, "Iterator::Model::Map", "Dataset");
  check("ExecutorState::Process", OpCategory::kUnknown, "ExecutorState::Process", "");
  check("train", OpCategory::kUnknown, "train", "");
  check("MemcpyHToD", OpCategory::kMemcpyHToD, "MemcpyHToD", "MemcpyHToD");
  check("jit_step/dot_general:dot_general[precision=None]", OpCategory::kJax, "jit_step/dot_general", "dot_general");
  // No type after ':': it is derived from the last name component, without
  // a _<n> suffix; a lower-case one reads as a JAX op.
  check("model/dense/relu_3:", OpCategory::kJax, "model/dense/relu_3", "relu");
  check("model/dense/Relu_3:", OpCategory::kTensorFlow, "model/dense/Relu_3", "Relu");
  check("a/b-1-LayoutOptimizer:Transpose", OpCategory::kTensorFlow, "a/b-1-LayoutOptimizer", "Transpose");
  // Older TensorFlow did not accept '-' in op names: the op was unknown.
  check("a/b-1-LayoutOptimizer:Transpose", OpCategory::kUnknown, "a/b-1-LayoutOptimizer:Transpose", "", true);
}

TEST_CASE("Host op metrics: self time by nesting, IDLE per thread, threads combined", "[opstats]") {
  XSpaceBuilder b;
  auto& cpu = b.Plane("/host:CPU");
  // Thread 1: an outer op [0,100us] with a child [10,40us]; a user TraceMe
  // (not an op) [150,160us]; then another op [200,250us].
  cpu.Line(1, "t1")
      .Event("outer:Outer", 0, 100 * kUs)
      .Event("inner:Inner", 10 * kUs, 30 * kUs)
      .Event("train", 150 * kUs, 10 * kUs)
      .Event("outer:Outer", 200 * kUs, 50 * kUs, {{"is_eager", int64_t{1}}});
  // Thread 2: one op [0, 20us].
  cpu.Line(2, "t2").Event("inner:Inner", 0, 20 * kUs);
  Host h = ReadBuilt(b);
  Diagnostics d;
  OpMetricsDb db = HostPlaneToOpMetrics(h, h.planes[0], d);

  const OpMetrics* outer = OpRow(db, "outer");
  REQUIRE(outer);
  CHECK(outer->category == "Outer");
  CHECK(outer->occurrences == 2);
  CHECK(outer->time_ps == 150 * kUs);
  CHECK(outer->self_time_ps == 120 * kUs);  // 100 - 30 + 50
  CHECK(outer->is_eager);
  const OpMetrics* inner = OpRow(db, "inner");
  REQUIRE(inner);
  CHECK(inner->occurrences == 2);
  CHECK(inner->self_time_ps == 50 * kUs);
  CHECK(OpRow(db, "train") == nullptr);
  // Totals: thread 1 spans 250us with 150us of ops, thread 2 spans 20us.
  CHECK(db.total_op_time_ps == 170 * kUs);
  CHECK(db.total_time_ps == 270 * kUs);
  const OpMetrics* idle = OpRow(db, "IDLE");
  REQUIRE(idle);
  CHECK(idle->self_time_ps == 100 * kUs);
  CHECK(idle->occurrences == 0);
}

TEST_CASE("Host op metrics drop a child ending at the same instant as its parent, as the reference does", "[opstats]") {
  XSpaceBuilder b;
  b.Plane("/host:CPU").Line(1, "t").Event("p:P", 0, 10 * kUs).Event("c:C", 5 * kUs, 5 * kUs);
  Host h = ReadBuilt(b);
  Diagnostics d;
  OpMetricsDb db = HostPlaneToOpMetrics(h, h.planes[0], d);
  REQUIRE(OpRow(db, "p"));
  CHECK(OpRow(db, "p")->self_time_ps == 10 * kUs);  // The child was dropped, so nothing is subtracted.
  CHECK(OpRow(db, "c") == nullptr);
  CHECK(d.Count("op_stats.host_op_not_closed") == 1);
}

TEST_CASE("Device op metrics per (TF op, kernel), TF-op level takes the most launches of any kernel", "[opstats]") {
  XSpaceBuilder b;
  auto& gpu = b.Plane("/device:GPU:0", 0);
  gpu.Line(7, "Stream #7(Compute)", 0)
      .Event("gemm", 10 * kUs, 5 * kUs, {{"tf_op", Ref{"d/MatMul:MatMul"}}})
      .Event("bias", 20 * kUs, 1 * kUs, {{"tf_op", Ref{"d/MatMul:MatMul"}}})
      .Event("gemm", 30 * kUs, 5 * kUs, {{"tf_op", Ref{"d/MatMul:MatMul"}}})
      .Event("MemcpyH2D", 40 * kUs, 2 * kUs)  // Unannotated: only widens the span.
      .Event("relu", 50 * kUs, 10 * kUs, {{"level 0", Ref{"d/Relu:Relu"}}});
  Host h = ReadBuilt(b);
  Diagnostics d;
  OpMetricsDb dev = DevicePlaneToOpMetrics(h, h.planes[0], d);
  REQUIRE(OpRow(dev, "d/MatMul/gemm"));
  CHECK(OpRow(dev, "d/MatMul/gemm")->occurrences == 2);
  CHECK(OpRow(dev, "d/MatMul/gemm")->time_ps == 10 * kUs);
  CHECK(OpRow(dev, "d/MatMul/gemm")->category == "MatMul");
  CHECK(OpRow(dev, "d/Relu/relu"));  // Named from the older "level 0" stat.
  CHECK(dev.total_op_time_ps == 21 * kUs);
  CHECK(dev.total_time_ps == 50 * kUs);  // 10us .. 60us
  CHECK(OpRow(dev, "IDLE")->self_time_ps == 29 * kUs);

  OpMetricsDb tf = DeviceOpsToTfOps(dev, /*with_idle=*/true);
  const OpMetrics* matmul = OpRow(tf, "d/MatMul");
  REQUIRE(matmul);
  CHECK(matmul->occurrences == 2);  // gemm ran twice, bias once.
  CHECK(matmul->self_time_ps == 11 * kUs);
  CHECK(tf.total_time_ps == 50 * kUs);
  OpMetricsDb no_idle = DeviceOpsToTfOps(dev, /*with_idle=*/false);
  CHECK(OpRow(no_idle, "IDLE") == nullptr);
  CHECK(no_idle.total_time_ps == 21 * kUs);

  // xprof reads only tf_op: the Relu kernel is not an op there.
  Diagnostics d2;
  OpMetricsDb xp = DevicePlaneToOpMetrics(h, h.planes[0], d2, AnalysisOptions{Compat::kXprof});
  CHECK(OpRow(xp, "d/Relu/relu") == nullptr);
}

TEST_CASE("TensorFlow Stats: a --top N without IDLE keeps N host ops; the default limit drops IDLE after taking it",
          "[opstats]") {
  // One thread: A 10 us, B 5 us, IDLE the other 70 us of its 85 us span.
  XSpaceBuilder b;
  b.Plane("/host:CPU").Line(1, "t").Event("h/A:A", 0, 10 * kUs).Event("h/B:B", 80 * kUs, 5 * kUs);
  Host h = ReadBuilt(b);
  Diagnostics d;
  HostSummary s = SummarizeHostOps(h, d);
  TfStatsOptions top2;
  top2.top = 2;
  top2.with_idle = false;
  // A user's --top 2: two ops, IDLE left out before the limit.
  std::vector<TfStatsRecord> rows = BuildTfStatsRecords(s, top2);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].op_name == "h/A");
  CHECK(rows[0].host_self_fraction == Approx(10.0 / 15.0));  // Of the ops' own time.
  CHECK(rows[1].op_name == "h/B");
  CHECK(rows[1].rank == 2);
  CHECK(rows[1].host_cumulative_fraction == Approx(1.0));
  // With IDLE the limit takes it first.
  top2.with_idle = true;
  rows = BuildTfStatsRecords(s, top2);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].op_name == "IDLE");
  CHECK(rows[0].host_self_fraction == Approx(70.0 / 85.0));
  CHECK(rows[1].op_name == "h/A");
  // Below the reference's own limit (500 a side, the default) nothing is
  // cut either way.
  TfStatsOptions reference;
  reference.with_idle = false;
  rows = BuildTfStatsRecords(s, reference);
  REQUIRE(rows.size() == 2);
  CHECK(rows[1].op_name == "h/B");

  // 600 ops of 1 us, 9 us apart: IDLE (the thread's 5,392 us less 600 us)
  // is the largest row. The default limit counts it among its 500 and then
  // leaves it out (499 ops, as the reference); --top 500 keeps 500 ops.
  XSpaceBuilder many;
  auto line = many.Plane("/host:CPU").Line(1, "t");
  for (int i = 0; i < 600; ++i) line.Event(fmt::format("h/Op{}:T", i), i * 9 * kUs, kUs);
  Host mh = ReadBuilt(many);
  HostSummary ms = SummarizeHostOps(mh, d);
  rows = BuildTfStatsRecords(ms, reference);
  CHECK(rows.size() == 499);
  CHECK(std::none_of(rows.begin(), rows.end(), [](const TfStatsRecord& r) { return r.op_name == "IDLE"; }));
  TfStatsOptions top500 = reference;
  top500.top = 500;
  CHECK(BuildTfStatsRecords(ms, top500).size() == 500);
  reference.with_idle = true;
  rows = BuildTfStatsRecords(ms, reference);
  REQUIRE(rows.size() == 500);
  CHECK(rows[0].op_name == "IDLE");
  CHECK(rows[0].total_self_time_us == Approx(5392.0 - 600.0));

  // The cut is said: how many rows the side had, and how to see more.
  TfStatsRowCounts counts;
  BuildTfStatsRecords(ms, top500, &counts);
  CHECK(counts.host == 600);
  CHECK(counts.device == 0);
  auto notes = [&](const TfStatsOptions& o) {
    std::string all;
    for (const std::string& n : BuildTfStatsReport(ms, o).notes) all += n + "\n";
    return all;
  };
  CHECK_THAT(notes(top500),
             Catch::Contains("host side: 500 of 600 ops shown, those with the most self time (--top N shows more)"));
  TfStatsOptions no_idle;
  no_idle.with_idle = false;
  CHECK_THAT(notes(no_idle), Catch::Contains("host side: 499 of 600 ops shown"));
  reference.with_idle = true;  // IDLE is a row of its own.
  CHECK_THAT(notes(reference), Catch::Contains("host side: 500 of 601 ops shown"));
  TfStatsOptions all_rows;
  all_rows.top = 600;  // With IDLE, 601 rows.
  CHECK_THAT(notes(all_rows), Catch::Contains("host side: 600 of 601 ops shown"));
  all_rows.top = 601;
  CHECK_THAT(notes(all_rows), !Catch::Contains("shown"));
  TfStatsOptions by_type = top500;
  by_type.by_type = true;  // 600 ops of 1 type: nothing cut.
  CHECK_THAT(notes(by_type), !Catch::Contains("shown"));
}

TEST_CASE("TensorFlow Stats rows: device first, then host, fractions of each side's total", "[opstats]") {
  XSpaceBuilder b;
  b.Plane("/host:CPU").Line(1, "t").Event("h/Op:HostOp", 0, 30 * kUs).Event("h/Op:HostOp", 70 * kUs, 20 * kUs);
  b.Plane("/device:GPU:0", 0).Line(7, "Stream #7", 0).Event("k", 0, 40 * kUs, {{"tf_op", Ref{"d/Conv2D:Conv2D"}}});
  Host h = ReadBuilt(b);
  Diagnostics d;
  HostSummary s = SummarizeHostOps(h, d);
  std::vector<TfStatsRecord> rows = BuildTfStatsRecords(s, {});
  REQUIRE(rows.size() == 4);  // Device: Conv2D, IDLE (0); host: HostOp, IDLE.
  CHECK(rows[0].on_device);
  CHECK(rows[0].op_name == "d/Conv2D");
  CHECK(rows[0].device_self_fraction == Approx(1.0));
  CHECK(rows[1].op_name == "IDLE");
  CHECK(rows[1].total_self_time_us == Approx(0.0));
  CHECK(!rows[2].on_device);
  CHECK(rows[2].op_name == "h/Op");
  CHECK(rows[2].occurrences == 2);
  CHECK(rows[2].total_time_us == Approx(50.0));
  CHECK(rows[2].avg_time_us == Approx(25.0));
  CHECK(rows[2].host_self_fraction == Approx(50.0 / 90.0));  // 50 of the 90us thread span.
  CHECK(rows[3].op_name == "IDLE");
  CHECK(rows[3].host_cumulative_fraction == Approx(1.0));
  CHECK(rows[3].rank == 4);

  TfStatsOptions by_type;
  by_type.by_type = true;
  by_type.with_idle = false;
  std::vector<TfStatsRecord> types = BuildTfStatsRecords(s, by_type);
  REQUIRE(types.size() == 2);
  CHECK(types[0].op_type == "Conv2D");
  CHECK(types[1].op_type == "HostOp");
  CHECK(types[1].host_self_fraction == Approx(1.0));  // Without idle: of the ops' own time.
}
