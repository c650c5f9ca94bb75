// Eager execution as the TensorFlow Profiler marks it during grouping: a TF
// op or GPU kernel is eager when its nearest EagerExecute ancestor (itself
// included) has is_func = 0. Small captures built in code with every number
// worked out by hand, then the corpus against TensorFlow's own marks and the
// references' percentages.
#include <catch2/catch.hpp>

#include <filesystem>

#include "fmt/format.h"
#include "lib/analyze/overview_analysis.h"
#include "lib/analyze/tf_stats_report.h"
#include "lib/model/stat_finder.h"
#include "lib/read/capture_discovery.h"
#include "lib/read/capture_loader.h"
#include "lib/read/xplane_reader.h"
#include "lib/summary/captures_to_run_summary.h"
#include "lib/summary/device_plane_to_op_metrics.h"
#include "lib/summary/event_grouping.h"
#include "lib/summary/host_summary.h"
#include "lib/summary/planes_to_step_db.h"
#include "tests/support/corpus.h"
#include "tests/support/op_rows.h"
#include "tests/support/skip.h"
#include "tests/support/xspace_builder.h"

using namespace tfprof;
using namespace tfprof::testing;

namespace {

bool Eager(const EventBits& bits, size_t plane, size_t line, size_t event) {
  return !bits.empty() && bits[plane][line][event];
}

// Host thread (µs):
//   [0,100)   EagerExecute is_func=0     > a/MatMul [10,40) > launch corr 1 [20,25)
//   [200,300) EagerExecute is_func=1     > f/Add [210,230)  > launch corr 2 [215,217)
//   [400,500) EagerExecute (no is_func)  > g/Relu [410,420)
//   [600,610) h/Mul, outside any EagerExecute
//   [700,800) EagerExecute is_func=1 > [710,760) EagerExecute is_func=0 > k/Sub [720,740)
//   [900,1000) EagerExecute is_func=0 > [910,960) EagerExecute is_func=1 > m/Neg [920,940)
// GPU stream: kernel of a/MatMul [30,38) (corr 1), kernel of f/Add [220,222) (corr 2).
XSpaceBuilder EagerCapture() {
  XSpaceBuilder b;
  b.Plane("/host:CPU")
      .Line(1, "python3")
      .Event("EagerExecute", 0, 100 * kUs, {{"is_func", int64_t{0}}})
      .Event("a/MatMul:MatMul", 10 * kUs, 30 * kUs)
      .Event("cudaLaunchKernel", 20 * kUs, 5 * kUs, {{"correlation_id", uint64_t{1}}})
      .Event("EagerExecute", 200 * kUs, 100 * kUs, {{"is_func", int64_t{1}}})
      .Event("f/Add:AddV2", 210 * kUs, 20 * kUs)
      .Event("cudaLaunchKernel", 215 * kUs, 2 * kUs, {{"correlation_id", uint64_t{2}}})
      .Event("EagerExecute", 400 * kUs, 100 * kUs)
      .Event("g/Relu:Relu", 410 * kUs, 10 * kUs)
      .Event("h/Mul:Mul", 600 * kUs, 10 * kUs)
      .Event("EagerExecute", 700 * kUs, 100 * kUs, {{"is_func", int64_t{1}}})
      .Event("EagerExecute", 710 * kUs, 50 * kUs, {{"is_func", int64_t{0}}})
      .Event("k/Sub:Sub", 720 * kUs, 20 * kUs)
      .Event("EagerExecute", 900 * kUs, 100 * kUs, {{"is_func", int64_t{0}}})
      .Event("EagerExecute", 910 * kUs, 50 * kUs, {{"is_func", int64_t{1}}})
      .Event("m/Neg:Neg", 920 * kUs, 20 * kUs);
  b.Plane("/device:GPU:0", 1)
      .Line(7, "Stream #7(Compute)")
      .Event("gemm", 30 * kUs, 8 * kUs, {{"correlation_id", uint64_t{1}}, {"tf_op", Ref{"a/MatMul:MatMul"}}})
      .Event("add_kernel", 220 * kUs, 2 * kUs, {{"correlation_id", uint64_t{2}}, {"tf_op", Ref{"f/Add:AddV2"}}});
  return b;
}

}  // namespace

TEST_CASE("Eager marks: the nearest EagerExecute decides, is_func=0 only", "[eager]") {
  Host h = ReadBuilt(EagerCapture());
  Diagnostics d;
  EventGroups g = GroupEvents(h, d);
  REQUIRE(!g.eager.empty());
  // Host line events in the order written above.
  const bool expected[] = {false, true,  false,   // EagerExecute, a/MatMul (eager), its launch (not an op)
                           false, false, false,   // is_func=1: f/Add is a function's op
                           false, false,          // no is_func: counts as a function
                           false,                 // no EagerExecute at all
                           false, false, true,    // inner EagerExecute is_func=0 is the nearest
                           false, false, false};  // inner is_func=1 is the nearest
  for (size_t e = 0; e < std::size(expected); ++e) {
    INFO("host event " << e);
    CHECK(Eager(g.eager, 0, 0, e) == expected[e]);
  }
  CHECK(Eager(g.eager, 1, 0, 0));   // a/MatMul's kernel, through its launch
  CHECK(!Eager(g.eager, 1, 0, 1));  // f/Add's kernel
  // Op stats alone (no grouping by the caller) mark the same.
  CHECK(MarkEagerEvents(h) == g.eager);
}

TEST_CASE("Eager marks reach op stats, the TF Stats mode column and the overview", "[eager]") {
  Host h = ReadBuilt(EagerCapture());
  Diagnostics d;
  EventGroups g = GroupEvents(h, d);
  HostSummary s = SummarizeHostOps(h, d, {}, &g.eager);
  CHECK(OpRow(s.host_ops, "a/MatMul")->is_eager);
  CHECK(OpRow(s.host_ops, "k/Sub")->is_eager);
  for (const char* op : {"f/Add", "g/Relu", "h/Mul", "m/Neg"}) {
    INFO(op);
    CHECK(!OpRow(s.host_ops, op)->is_eager);
  }
  CHECK(OpRow(s.device_ops, "a/MatMul/gemm")->is_eager);
  CHECK(!OpRow(s.device_ops, "f/Add/add_kernel")->is_eager);

  std::vector<TfStatsRecord> rows = BuildTfStatsRecords(s, {});
  for (const TfStatsRecord& r : rows) {
    INFO(r.op_name);
    CHECK(r.is_eager == (r.op_name == "a/MatMul" || r.op_name == "k/Sub"));
  }

  // Host self times: a 30, f 20, g 10, h 10, k 20, m 20 = 110 µs, of which
  // a + k = 50 eager. Device: a 8 (eager) + f 2 = 10 µs.
  Overview o = BuildOverview(s, SummarizeSteps(CombineHostSteps({BuildStepDb(h, g, {}, d)})));
  CHECK(o.host_eager_percent == Approx(100.0 * 50 / 110));
  CHECK(o.device_eager_percent == Approx(80.0));
  CHECK(o.eager_statement ==
        "45.5% of Op time on the host used eager execution. 80.0% of Op time on the device used eager execution. "
        "Performance could be improved with tf.function.");
  // Not above 10%: no statement (10.0 exactly is not above).
  CHECK(EagerStatement(10.0, 0.0).empty());
  CHECK(EagerStatement(10.04, 3.0) ==
        "10.0% of Op time on the host used eager execution. Performance could be improved with tf.function.");
  CHECK(EagerStatement(0, 12.34) ==
        "12.3% of Op time on the device used eager execution. Performance could be improved with tf.function.");
  // The same through the path of commands that do not group.
  HostSummary alone = SummarizeHostOps(h, d);
  CHECK(EagerPercent(alone.host_ops) == Approx(100.0 * 50 / 110));
}

TEST_CASE("Eager marks: an is_eager stat of the capture wins, loop-op and pre-grouped captures are not marked",
          "[eager]") {
  {
    XSpaceBuilder b;
    b.Plane("/host:CPU")
        .Line(1, "t")
        .Event("EagerExecute", 0, 100 * kUs, {{"is_func", int64_t{0}}})
        .Event("x/A:A", 10 * kUs, 10 * kUs, {{"is_eager", int64_t{0}}})
        .Event("x/B:B", 30 * kUs, 10 * kUs);
    Host h = ReadBuilt(b);
    Diagnostics d;
    HostSummary s = SummarizeHostOps(h, d);
    CHECK(!OpRow(s.host_ops, "x/A")->is_eager);  // The capture says so.
    CHECK(OpRow(s.host_ops, "x/B")->is_eager);
    CHECK(EagerPercent(s.host_ops) == Approx(50.0));
  }
  {
    XSpaceBuilder b;
    b.Plane("/host:CPU")
        .Line(1, "t")
        .Event("EagerExecute", 0, 100 * kUs, {{"is_func", int64_t{0}}})
        .Event("x/A:A", 10 * kUs, 10 * kUs)
        .Event("WhileOp-EvalCond", 200 * kUs, 10 * kUs);
    Host h = ReadBuilt(b);
    Diagnostics d;
    CHECK(GroupEvents(h, d).eager.empty());  // The reference does not group TF loops.
    CHECK(MarkEagerEvents(h).empty());
  }
  {
    // Grouped when taken (TensorFlow <= 2.13 wrote group_id and is_eager):
    // the capture's stats are the answer; marking anyway finds the op.
    XSpaceBuilder b;
    b.Plane("/host:CPU")
        .Line(1, "t")
        .Event("EagerExecute", 0, 100 * kUs, {{"is_func", int64_t{0}}, {"group_id", int64_t{0}}})
        .Event("x/A:A", 10 * kUs, 10 * kUs, {{"group_id", int64_t{0}}});
    Host h = ReadBuilt(b);
    Diagnostics d;
    CHECK(GroupEvents(h, d).eager.empty());
    CHECK(MarkEagerEvents(h).empty());
    CHECK(Eager(MarkEagerEvents(h, /*even_if_grouped=*/true), 0, 0, 1));
  }
}

TEST_CASE("Eager marks: breadth first through several parents, nesting before links", "[eager]") {
  // c/Recv on thread 2 has two parents: a wrapper event it is nested in
  // (linked first) and its producer on thread 1. Each of those has an
  // EagerExecute parent, so both EagerExecutes are two steps away: the
  // nesting side's (is_func=1) is met first, as in the reference's search.
  XSpaceBuilder b;
  auto& cpu = b.Plane("/host:CPU");
  cpu.Line(1, "t1")
      .Event("EagerExecute", 0, 100 * kUs, {{"is_func", int64_t{0}}})
      .Event("p/Send:Send", 10 * kUs, 10 * kUs, {{"_pt", int64_t{1}}, {"_p", int64_t{42}}});
  cpu.Line(2, "t2")
      .Event("EagerExecute", 50 * kUs, 100 * kUs, {{"is_func", int64_t{1}}})
      .Event("wrapper", 55 * kUs, 45 * kUs)
      .Event("c/Recv:Recv", 60 * kUs, 10 * kUs, {{"_ct", int64_t{1}}, {"_c", int64_t{42}}})
      .Event("solo/Recv:Recv", 300 * kUs, 10 * kUs, {{"_ct", int64_t{1}}, {"_c", int64_t{42}}});
  Host h = ReadBuilt(b);
  EventBits bits = MarkEagerEvents(h);
  CHECK(Eager(bits, 0, 0, 1));   // The producer: inside is_func=0.
  CHECK(!Eager(bits, 0, 1, 2));  // The nesting side's EagerExecute comes first.
  CHECK(Eager(bits, 0, 1, 3));   // Nested in nothing: through its producer.
}

TEST_CASE("Eager marks: a cycle of single links with no EagerExecute marks nothing", "[eager]") {
  // x/Send on thread 1 and y/Recv on thread 2, nested in nothing, each the
  // other's only parent through two contexts: the chain from either comes
  // back to where it started without meeting an EagerExecute. The one
  // EagerExecute (is_func=0) holds z/Neg only, so that marks are made.
  XSpaceBuilder b;
  auto& cpu = b.Plane("/host:CPU");
  cpu.Line(1, "t1")
      .Event("x/Send:Send", 10 * kUs, 10 * kUs,
             {{"_pt", int64_t{1}}, {"_p", int64_t{7}}, {"_ct", int64_t{1}}, {"_c", int64_t{8}}})
      .Event("EagerExecute", 100 * kUs, 50 * kUs, {{"is_func", int64_t{0}}})
      .Event("z/Neg:Neg", 110 * kUs, 10 * kUs);
  cpu.Line(2, "t2").Event("y/Recv:Recv", 30 * kUs, 10 * kUs,
                          {{"_ct", int64_t{1}}, {"_c", int64_t{7}}, {"_pt", int64_t{1}}, {"_p", int64_t{8}}});
  Host h = ReadBuilt(b);
  EventBits bits = MarkEagerEvents(h);
  CHECK(!Eager(bits, 0, 0, 0));  // x/Send: in the cycle.
  CHECK(Eager(bits, 0, 0, 2));   // z/Neg: under is_func=0.
  CHECK(!Eager(bits, 0, 1, 0));  // y/Recv: in the cycle.
}

// TensorFlow <= 2.13 grouped its captures itself and wrote is_eager stats by
// the rule of its day (an "EagerKernelExecute" ancestor and no
// ExecutorState::Process one); its eager TraceMes were "EagerExecute: <op>"
// without is_func. The reference uses those stats as they are, and so do we:
// today's rule finds nothing eager in these captures.
TEST_CASE("Corpus captures grouped when taken: their is_eager stats are the answer", "[eager][corpus]") {
  struct Run {
    const char* folder;
    double host_percent, device_percent;  // From the run's <host>.overview_page.pb.
  };
  const Run runs[] = {
      {"e4040-2023fall-assign2-hd2551/logs/fit/20231107-182500/train/plugins/profile/2023_11_07_18_25_02",
       72.7131313436917, 0.042903530187764174},
      {"e4040-2022fall-assign2-yg2820/logs/fit/20221104-213654/train/plugins/profile/2022_11_04_21_36_56",
       39.459483965726925, 0.081688289934680844},
      {"e4040-2022fall-assign2-vi2158/logs/fit/20221104-065558/train/plugins/profile/2022_11_04_10_56_01",
       6.5171926488507141, 0.0},
  };
  for (const Run& run : runs) {
    REQUIRE_CORPUS(folder, run.folder);
    INFO(run.folder);
    DiscoveredInput input = DiscoverInput(folder, "", false);
    REQUIRE(input.selected.files.size() == 1);
    Diagnostics d;
    Host h = LoadCapture(input.selected.files[0], d);
    EventGroups g = GroupEvents(h, d);
    CHECK(g.from_capture);
    CHECK(g.eager.empty());
    CHECK(MarkEagerEvents(h, /*even_if_grouped=*/true).empty());  // Today's rule: nothing.
    uint64_t marked_by_tensorflow = 0;
    for (const Plane& plane : h.planes) {
      StatFinder is_eager(h, plane, "is_eager");
      for (const Line& line : plane.lines)
        for (size_t e = 0; e < line.events.size(); ++e)
          if (auto s = is_eager.In(line.EventStats(e)); s && s->AsInt() != 0) ++marked_by_tensorflow;
    }
    CHECK(marked_by_tensorflow > 0);
    HostSummary s = SummarizeHostOps(h, d, {}, &g.eager);
    CHECK(EagerPercent(s.host_ops) == Approx(run.host_percent).epsilon(1e-9));
    CHECK(EagerPercent(DeviceOpsToTfOps(s.device_ops, /*with_idle=*/false)) ==
          Approx(run.device_percent).epsilon(1e-9).margin(1e-12));
  }
}

// The references' numbers for a corpus run where most host op time is eager.
TEST_CASE("Eager percentages of a corpus run match TensorFlow's overview_page.pb and xprof", "[eager][corpus]") {
  REQUIRE_CORPUS(folder,
                 "e4040-2023fall-assign2-hd2551/logs/fit/20231107-182500/train/plugins/profile/2023_11_07_18_25_02");
  for (Compat compat : {Compat::kDefault, Compat::kXprof}) {
    const AnalysisOptions options{compat};
    // As `overview` reads the run.
    SummaryOptions summary;
    summary.analysis = options;
    summary.parts = SummaryPart::kOps | SummaryPart::kEagerMarks | SummaryPart::kSteps;
    const Overview o = RunSummaryToOverview(
        CapturesToRunSummary(DiscoverInput(folder, "", options.xprof()), RunReadOptions{}, summary));
    if (compat == Compat::kDefault) {
      // instance-2.overview_page.pb: 72.7131313436917, 0.042903530187764174.
      CHECK(o.host_eager_percent == Approx(72.7131313436917).epsilon(1e-9));
      CHECK(o.device_eager_percent == Approx(0.042903530187764174).epsilon(1e-9));
      CHECK(o.eager_statement ==
            "72.7% of Op time on the host used eager execution. Performance could be improved with tf.function.");
    } else {
      // xprof 2.24.2: "72.7%", and "0.0%" on the device (it reads no device
      // ops from this TensorFlow's captures).
      CHECK(fmt::format("{:.1f}", o.host_eager_percent) == "72.7");
      CHECK(o.device_eager_percent == 0.0);
    }
  }
}
