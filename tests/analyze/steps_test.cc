// Grouping and step breakdown on a small GPU capture built in code; every
// number checked by hand.
#include <catch2/catch.hpp>

#include "lib/analyze/overview_analysis.h"
#include "lib/analyze/step_summary.h"
#include "lib/model/step_markers.h"
#include "lib/read/xplane_reader.h"
#include "lib/summary/event_forest.h"
#include "lib/summary/event_grouping.h"
#include "lib/summary/planes_to_step_db.h"
#include "tests/support/xspace_builder.h"

using namespace tfprof;
using tfprof::testing::XSpaceBuilder;

namespace {

constexpr int64_t kUs = 1'000'000;

// Step "train 7" on the host [0, 100us]: the executor launches a kernel
// (launch call [20, 25us], correlation 5) and then waits for input
// [60, 80us]; the kernel runs on the GPU [30, 70us].
Host OneGpuStep() {
  XSpaceBuilder b;
  auto& cpu = b.Plane("/host:CPU");
  cpu.Line(1, "python3")
      .Event("train", 0, 100 * kUs, {{"_r", int64_t{1}}, {"step_num", int64_t{7}}})
      .Event("ExecutorState::Process", 10 * kUs, 50 * kUs)
      .Event("cuLaunchKernel", 20 * kUs, 5 * kUs, {{"correlation_id", uint64_t{5}}})
      .Event("IteratorGetNextOp::DoCompute", 60 * kUs, 20 * kUs);
  b.Plane("/device:GPU:0", 0)
      .Line(7, "Stream #7(Compute)", 0)
      .Event("gemm", 30 * kUs, 40 * kUs, {{"correlation_id", uint64_t{5}}});
  Diagnostics d;
  return ReadXSpaceBytes(b.Serialize(), "gpu.xplane.pb", d);
}

double Ms(const StepRow& r, Category c) { return r.category_ms[static_cast<size_t>(c)]; }

}  // namespace

TEST_CASE("Grouping: a train root takes its thread's events and the kernel it launched", "[steps]") {
  Host h = OneGpuStep();
  Diagnostics d;
  EventGroups g = GroupEvents(h, d);
  REQUIRE(g.groups.size() == 1);
  CHECK(g.groups[0].name == "train 7");
  CHECK(g.groups[0].step_number == 7);
  for (size_t e = 0; e < 4; ++e) CHECK(g.Of(0, 0, e) == 0);
  CHECK(g.Of(1, 0, 0) == 0);  // The GPU kernel, through its correlation id.
}

TEST_CASE("Grouping: events keep their places across empty, derived and later lines and planes", "[steps]") {
  // The forest numbers the events of the lines it groups one after another
  // (no node for an empty or derived line) and finds an event's place back
  // from its number: each group, name and named root must land on the
  // event it came from. Two steps of different levels on two threads after
  // an empty line, a derived line between them, a kernel on the second
  // plane after an empty stream.
  XSpaceBuilder b;
  auto& cpu = b.Plane("/host:CPU");
  cpu.Line(1, "empty thread");
  cpu.Line(2, "python3")
      .Event("fit", 0, 40 * kUs, {{"_r", int64_t{2}}, {"iter_num", int64_t{3}}})
      .Event("cuLaunchKernel", 5 * kUs, 1 * kUs, {{"correlation_id", uint64_t{11}}});
  cpu.Line(static_cast<int32_t>(0xdeadbeefu) + 1, "TensorFlow Ops").Event("MatMul:MatMul", 5 * kUs, 1 * kUs);
  cpu.Line(3, "worker")
      .Event("idle", 0, 1 * kUs)
      .Event("eval", 50 * kUs, 30 * kUs, {{"_r", int64_t{1}}, {"step_num", int64_t{9}}})
      .Event("cuLaunchKernel", 60 * kUs, 1 * kUs, {{"correlation_id", uint64_t{12}}});
  auto& gpu = b.Plane("/device:GPU:0", 1);
  gpu.Line(6, "Stream #6(Empty)", 0);
  gpu.Line(7, "Stream #7(Compute)", 0)
      .Event("gemm", 7 * kUs, 3 * kUs, {{"correlation_id", uint64_t{11}}})
      .Event("relu", 62 * kUs, 3 * kUs, {{"correlation_id", uint64_t{12}}});
  Diagnostics read_diag, d;
  const Host h = ReadXSpaceBytes(b.Serialize(), "places.xplane.pb", read_diag);
  REQUIRE(h.planes[0].lines.size() == 4);
  const EventGroups g = GroupEvents(h, d);
  // Level 2 before level 1: "fit 3" is group 0, "eval 9" group 1.
  REQUIRE(g.groups.size() == 2);
  CHECK(g.groups[0].name == "fit 3");
  CHECK(g.groups[0].step_number == 3);
  REQUIRE(g.groups[0].named_root.has_value());
  CHECK(*g.groups[0].named_root == EventRef{0, 1, 0});
  CHECK(g.groups[1].name == "eval 9");
  REQUIRE(g.groups[1].named_root.has_value());
  CHECK(*g.groups[1].named_root == EventRef{0, 3, 1});
  CHECK(g.Of(0, 1, 0) == 0);
  CHECK(g.Of(0, 1, 1) == 0);
  CHECK(g.Of(0, 2, 0) == kNoGroup);  // The derived line is not grouped.
  CHECK(g.Of(0, 3, 0) == kNoGroup);  // Before either step, on its own thread.
  CHECK(g.Of(0, 3, 1) == 1);
  CHECK(g.Of(0, 3, 2) == 1);
  CHECK(g.Of(1, 1, 0) == 0);  // Through correlation 11.
  CHECK(g.Of(1, 1, 1) == 1);  // Through correlation 12.
  CHECK(g.group.Line(0, 0).empty());
  CHECK(g.group.Line(1, 0).empty());
}

TEST_CASE("Grouping: a step takes its nesting, less async events and what an earlier step took", "[steps]") {
  // The level-2 root "produce 5" is grouped first: through the context
  // (type 1, id 42) it takes "inner", and with it "leaf", nested in it.
  // "train 1" then takes the rest of its thread's nesting: not "inner" and
  // "leaf" (already step 0's), nor the async event inside "outer" (async
  // events nest in nothing), but "after" behind it, and through the context
  // (2, 7) that "after" produces, the consumer on a third thread.
  XSpaceBuilder b;
  auto& cpu = b.Plane("/host:CPU");
  cpu.Line(1, "main")
      .Event("train", 0, 100 * kUs, {{"_r", int64_t{1}}, {"step_num", int64_t{1}}})
      .Event("outer", 10 * kUs, 50 * kUs)
      .Event("inner", 20 * kUs, 10 * kUs, {{"_ct", int64_t{1}}, {"_c", int64_t{42}}})
      .Event("leaf", 22 * kUs, 3 * kUs)
      .Event("async", 35 * kUs, 15 * kUs, {{"_a", int64_t{1}}})
      .Event("after", 40 * kUs, 15 * kUs, {{"_pt", int64_t{2}}, {"_p", int64_t{7}}})
      .Event("tail", 70 * kUs, 10 * kUs);
  cpu.Line(2, "producer")
      .Event("produce", 0, 10 * kUs,
             {{"_r", int64_t{2}}, {"step_num", int64_t{5}}, {"_pt", int64_t{1}}, {"_p", int64_t{42}}});
  cpu.Line(3, "consumer").Event("consume", 56 * kUs, 2 * kUs, {{"_ct", int64_t{2}}, {"_c", int64_t{7}}});
  Diagnostics read_diag, d;
  const Host h = ReadXSpaceBytes(b.Serialize(), "nesting.xplane.pb", read_diag);
  const EventGroups g = GroupEvents(h, d);
  REQUIRE(g.groups.size() == 2);
  CHECK(g.groups[0].name == "produce 5");
  CHECK(g.groups[1].name == "train 1");
  CHECK(g.Of(0, 1, 0) == 0);
  CHECK(g.Of(0, 0, 2) == 0);         // inner
  CHECK(g.Of(0, 0, 3) == 0);         // leaf
  CHECK(g.Of(0, 0, 0) == 1);         // train
  CHECK(g.Of(0, 0, 1) == 1);         // outer
  CHECK(g.Of(0, 0, 4) == kNoGroup);  // async
  CHECK(g.Of(0, 0, 5) == 1);         // after
  CHECK(g.Of(0, 0, 6) == 1);         // tail
  CHECK(g.Of(0, 2, 0) == 1);         // consume, through after's context
}

TEST_CASE("Grouping: a context links its producers to its consumers unless both sides are 64 or more", "[steps]") {
  // "train 1" holds 64 producers of context (1, 5) and 64 of (1, 6); the
  // consumers line has 64 consumers of (1, 5), linked to nothing (64 x 64,
  // which the reference skips to bound the edges), then 63 of (1, 6),
  // linked and so in the step. The root "step 2" consumes (2, 9), which
  // "a" (graph_type "first") and then "b" ("second") produce: its name
  // takes the graph_type of its first ancestor, its producers in the order
  // they come.
  XSpaceBuilder b;
  auto& cpu = b.Plane("/host:CPU");
  auto main_line = cpu.Line(1, "main");
  main_line.Event("train", 0, 10'000 * kUs, {{"_r", int64_t{1}}, {"step_num", int64_t{1}}});
  for (int64_t i = 0; i < 128; ++i)
    main_line.Event("produce", (10 + 20 * i) * kUs, 10 * kUs, {{"_pt", int64_t{1}}, {"_p", int64_t{5 + i / 64}}});
  auto consumers = cpu.Line(2, "consumers");
  for (int64_t i = 0; i < 127; ++i)
    consumers.Event("consume", (3'000 + 20 * i) * kUs, 10 * kUs,
                    {{"_ct", int64_t{1}}, {"_c", int64_t{i < 64 ? 5 : 6}}});
  cpu.Line(3, "producers")
      .Event("a", 20'000 * kUs, 10 * kUs,
             {{"graph_type", std::string("first")}, {"_pt", int64_t{2}}, {"_p", int64_t{9}}})
      .Event("b", 20'020 * kUs, 10 * kUs,
             {{"graph_type", std::string("second")}, {"_pt", int64_t{2}}, {"_p", int64_t{9}}});
  cpu.Line(4, "steps")
      .Event("step", 20'100 * kUs, 50 * kUs,
             {{"_r", int64_t{1}}, {"step_num", int64_t{2}}, {"_ct", int64_t{2}}, {"_c", int64_t{9}}});
  Diagnostics diag;
  // The groups hold no reference to the host they were made from.
  const EventGroups g = GroupEvents(ReadXSpaceBytes(b.Serialize(), "contexts.xplane.pb", diag), diag);
  REQUIRE(g.groups.size() == 2);
  CHECK(g.groups[0].name == "train 1");
  CHECK(g.groups[1].name == "first 2");
  for (size_t e = 0; e < 129; ++e) CHECK(g.Of(0, 0, e) == 0);  // train and its producers
  for (size_t e = 0; e < 64; ++e) CHECK(g.Of(0, 1, e) == kNoGroup);
  for (size_t e = 64; e < 127; ++e) CHECK(g.Of(0, 1, e) == 0);
  CHECK(g.Of(0, 3, 0) == 1);
  CHECK(g.Of(0, 2, 0) == kNoGroup);  // a producer of a step's root is not in it
}

TEST_CASE("Grouping: TF1 loop iterations are the steps, and tf.data's function ids are no roots", "[steps]") {
  // Executor 7 runs iteration 0 on "main" and iteration 1 on "main" and
  // "worker": the iterations (one id, an iter_num other than 0) are the
  // steps, rooted at each iteration's earliest executor, and each holds
  // every executor of its iteration. Executor 8 (iteration 0 only) loops
  // nowhere and is no step.
  XSpaceBuilder loop;
  auto& cpu = loop.Plane("/host:CPU");
  cpu.Line(1, "main")
      .Event("ExecutorState::Process", 0, 10 * kUs, {{"id", int64_t{7}}, {"iter_num", int64_t{0}}})
      .Event("a", 1 * kUs, 2 * kUs)
      .Event("ExecutorState::Process", 20 * kUs, 10 * kUs, {{"id", int64_t{7}}, {"iter_num", int64_t{1}}})
      .Event("ExecutorState::Process", 40 * kUs, 10 * kUs, {{"id", int64_t{8}}, {"iter_num", int64_t{0}}});
  cpu.Line(2, "worker")
      .Event("ExecutorState::Process", 22 * kUs, 5 * kUs, {{"id", int64_t{7}}, {"iter_num", int64_t{1}}});
  Diagnostics diag;
  const EventGroups loops = GroupEvents(ReadXSpaceBytes(loop.Serialize(), "loop.xplane.pb", diag), diag);
  REQUIRE(loops.groups.size() == 2);
  CHECK(loops.groups[0].name == "0");
  CHECK(loops.groups[1].name == "1");
  CHECK(loops.Of(0, 0, 0) == 0);
  CHECK(loops.Of(0, 0, 1) == 0);  // nested in iteration 0's executor
  CHECK(loops.Of(0, 0, 2) == 1);
  CHECK(loops.Of(0, 1, 0) == 1);  // iteration 1's other executor
  CHECK(loops.Of(0, 0, 3) == kNoGroup);

  // "map" is a root (_r) whose step id is a tf.data function's
  // (InstantiatedCapturedFunction::Run, id 9): not a step; "train" is.
  XSpaceBuilder data;
  auto& host = data.Plane("/host:CPU");
  host.Line(1, "main").Event("train", 0, 100 * kUs, {{"_r", int64_t{1}}, {"id", int64_t{5}}, {"step_num", int64_t{3}}});
  host.Line(2, "tf_data")
      .Event("InstantiatedCapturedFunction::Run", 0, 10 * kUs, {{"id", int64_t{9}}})
      .Event("map", 20 * kUs, 10 * kUs, {{"_r", int64_t{1}}, {"id", int64_t{9}}});
  const EventGroups steps = GroupEvents(ReadXSpaceBytes(data.Serialize(), "tf_data.xplane.pb", diag), diag);
  REQUIRE(steps.groups.size() == 1);
  CHECK(steps.groups[0].name == "train 3");
  CHECK(steps.Of(0, 1, 1) == kNoGroup);
}

TEST_CASE("Grouping: the forest walked on two threads links across them as on one", "[steps]") {
  // 8,000 steps, 72,000 events: enough for the forest to walk its lines in
  // two pieces, the main thread's line in one and the worker's and the
  // GPU's in the other. Every link crosses them: the worker's get-next
  // finds its executor, its consumer the producer, the kernel its launch.
  // Per step s (µs from 100 s): main: train [0, 90) _r=1 producing (1, s) >
  // ExecutorState::Process (id s) [1, 80) > EagerExecute is_func=0 [2, 40) >
  // MatMul [3, 20) and a launch (correlation s + 1) [25, 26); worker:
  // IteratorGetNext (id s) [10, 30), the consumer of (1, s) [50, 55), Relu
  // [56, 57) outside both; GPU: the kernel [30, 35).
  constexpr int64_t kSteps = 8000;
  XSpaceBuilder b;
  auto& cpu = b.Plane("/host:CPU");
  auto main_line = cpu.Line(1, "main");
  auto worker = cpu.Line(2, "worker");
  auto stream = b.Plane("/device:GPU:0", 0).Line(7, "Stream #7(Compute)", 0);
  for (int64_t s = 0; s < kSteps; ++s) {
    const int64_t t = s * 100 * kUs;
    main_line.Event("train", t, 90 * kUs, {{"_r", int64_t{1}}, {"step_num", s}, {"_pt", int64_t{1}}, {"_p", s}})
        .Event("ExecutorState::Process", t + 1 * kUs, 79 * kUs, {{"id", s}, {"iter_num", int64_t{0}}})
        .Event("EagerExecute", t + 2 * kUs, 38 * kUs, {{"is_func", int64_t{0}}})
        .Event("MatMul:MatMul", t + 3 * kUs, 17 * kUs)
        .Event("cuLaunchKernel", t + 25 * kUs, 1 * kUs, {{"correlation_id", static_cast<uint64_t>(s + 1)}});
    worker.Event("IteratorGetNextOp::DoCompute", t + 10 * kUs, 20 * kUs, {{"id", s}, {"iter_num", int64_t{0}}})
        .Event("consume", t + 50 * kUs, 5 * kUs, {{"_ct", int64_t{1}}, {"_c", s}})
        .Event("Relu:Relu", t + 56 * kUs, 1 * kUs);
    stream.Event("gemm", t + 30 * kUs, 5 * kUs, {{"correlation_id", static_cast<uint64_t>(s + 1)}});
  }
  Diagnostics read_diag, d1, d2;
  const Host h = ReadXSpaceBytes(b.Serialize(), "pieces.xplane.pb", read_diag);
  const EventGroups one = GroupEvents(h, d1, {}, GroupingRun{1, {}});
  const EventGroups two = GroupEvents(h, d2, {}, GroupingRun{2, {}});
  REQUIRE(two.groups.size() == static_cast<size_t>(kSteps));
  for (const int64_t s : {int64_t{0}, int64_t{4321}, kSteps - 1}) {
    const auto g = static_cast<int32_t>(s);
    CHECK(two.groups[static_cast<size_t>(s)].name == "train " + std::to_string(s));
    for (size_t e = 0; e < 5; ++e) CHECK(two.Of(0, 0, static_cast<size_t>(5 * s) + e) == g);
    CHECK(two.Of(0, 1, static_cast<size_t>(3 * s)) == g);      // get-next, through its executor
    CHECK(two.Of(0, 1, static_cast<size_t>(3 * s) + 1) == g);  // the consumer, through the context
    CHECK(two.Of(0, 1, static_cast<size_t>(3 * s) + 2) == kNoGroup);
    CHECK(two.Of(1, 0, static_cast<size_t>(s)) == g);  // the kernel, through its launch
    REQUIRE_FALSE(two.eager.empty());
    CHECK(two.eager[0][0][static_cast<size_t>(5 * s) + 3]);        // MatMul
    CHECK(two.eager[1][0][static_cast<size_t>(s)]);                // the kernel, through its launch
    CHECK_FALSE(two.eager[0][1][static_cast<size_t>(3 * s) + 2]);  // Relu
  }
  // And everywhere what one thread makes.
  bool same = one.groups.size() == two.groups.size() && one.eager == two.eager;
  for (size_t i = 0; same && i < one.groups.size(); ++i) same = one.groups[i].name == two.groups[i].name;
  for (size_t p = 0; p < h.planes.size(); ++p)
    for (size_t l = 0; l < h.planes[p].lines.size(); ++l)
      for (size_t e = 0; e < h.planes[p].lines[l].events.size(); ++e) same = same && one.Of(p, l, e) == two.Of(p, l, e);
  CHECK(same);
  CHECK(d1.Count("grouping.kernel_without_launch") == 0);
  CHECK(d2.Count("grouping.kernel_without_launch") == 0);

  // Marks made beside the steps' grouping are handed over, once, and are
  // the same; the result then holds none.
  EventBits handed;
  int calls = 0;
  Diagnostics d3;
  const EventGroups beside = GroupEvents(h, d3, {}, GroupingRun{2, [&](EventBits&& bits) {
                                                                  handed = std::move(bits);
                                                                  ++calls;
                                                                }});
  CHECK(calls == 1);
  CHECK(beside.eager.empty());
  CHECK(handed == one.eager);
  CHECK(beside.groups.size() == one.groups.size());

  // Without marks (the memory profile's grouping): the same groups, no
  // marks, nothing handed over.
  GroupingRun groups_only{2, [&](EventBits&&) { ++calls; }};
  groups_only.eager = false;
  Diagnostics d4;
  const EventGroups unmarked = GroupEvents(h, d4, {}, groups_only);
  CHECK(calls == 1);
  CHECK(unmarked.eager.empty());
  CHECK(unmarked.groups.size() == one.groups.size());
  CHECK(unmarked.Of(0, 1, 3 * 4321) == 4321);
}

TEST_CASE("Grouping: kernels find their launches by correlation id, dense or sparse", "[steps]") {
  // Ids 7, 8 and 11 index a table; adding 10^12 spreads them too far for
  // one, so they are looked up in a hash map. Either way the kernel of id 9
  // has no launch, the call of id 11 no kernel, and the far id, launched in
  // both steps, is the later launch's.
  for (const uint64_t far : {uint64_t{8}, uint64_t{1'000'000'000'000}}) {
    XSpaceBuilder b;
    b.Plane("/host:CPU")
        .Line(1, "python3")
        .Event("train", 0, 100 * kUs, {{"_r", int64_t{1}}, {"step_num", int64_t{1}}})
        .Event("cuLaunchKernel", 10 * kUs, 5 * kUs, {{"correlation_id", uint64_t{7}}})
        .Event("cuLaunchKernel", 20 * kUs, 5 * kUs, {{"correlation_id", far}})
        .Event("train", 200 * kUs, 100 * kUs, {{"_r", int64_t{1}}, {"step_num", int64_t{2}}})
        .Event("cuLaunchKernel", 210 * kUs, 5 * kUs, {{"correlation_id", far}})
        .Event("cudaStreamSynchronize", 220 * kUs, 5 * kUs, {{"correlation_id", uint64_t{11}}});
    b.Plane("/device:GPU:0", 0)
        .Line(7, "Stream #7(Compute)", 0)
        .Event("gemm", 230 * kUs, 10 * kUs, {{"correlation_id", far}})
        .Event("gemm", 240 * kUs, 10 * kUs, {{"correlation_id", uint64_t{9}}})
        .Event("gemm", 250 * kUs, 10 * kUs, {{"correlation_id", uint64_t{7}}});
    Diagnostics d;
    Host h = ReadXSpaceBytes(b.Serialize(), "corr.xplane.pb", d);
    EventGroups g = GroupEvents(h, d);
    INFO("far id " << far);
    REQUIRE(g.groups.size() == 2);
    REQUIRE(g.Of(1, 0, 0) != kNoGroup);
    CHECK(g.groups[static_cast<size_t>(g.Of(1, 0, 0))].name == "train 2");
    REQUIRE(g.Of(1, 0, 2) != kNoGroup);
    CHECK(g.groups[static_cast<size_t>(g.Of(1, 0, 2))].name == "train 1");
    // Only id 9 is missed: a miss of 7 or of the far id would count too.
    CHECK(d.Count("grouping.kernel_without_launch") == 1);
  }
}

TEST_CASE("Grouping: a capture with no root and no marker finds no step, and counts no kernel without launch",
          "[steps]") {
  // As a JAX capture: no _r stat, no TraceContext, no ExecutorState::Process,
  // no ProfilerStep#N. The kernel of correlation 9 has no launch; a forest
  // would count it, though no step exists for it to take.
  // With `eager`, a second thread runs an op under an EagerExecute.
  auto capture = [](bool eager) {
    XSpaceBuilder b;
    auto& host = b.Plane("/host:CPU");
    host.Line(1, "python3")
        .Event("step", 0, 100 * kUs)
        .Event("cuLaunchKernel", 10 * kUs, 5 * kUs, {{"correlation_id", uint64_t{7}}})
        .Event("step", 200 * kUs, 100 * kUs)
        .Event("cuLaunchKernel", 210 * kUs, 5 * kUs, {{"correlation_id", uint64_t{8}}});
    if (eager)
      host.Line(2, "tf_eager")
          .Event("EagerExecute", 400 * kUs, 50 * kUs, {{"is_func", int64_t{0}}})
          .Event("b/MatMul:MatMul", 410 * kUs, 20 * kUs);
    b.Plane("/device:GPU:0", 0)
        .Line(7, "Stream #7(Compute)", 0)
        .Event("gemm", 20 * kUs, 10 * kUs, {{"correlation_id", uint64_t{7}}})
        .Event("gemm", 220 * kUs, 10 * kUs, {{"correlation_id", uint64_t{8}}})
        .Event("gemm", 240 * kUs, 10 * kUs, {{"correlation_id", uint64_t{9}}});
    return b.Serialize();
  };
  Diagnostics read;
  Host h = ReadXSpaceBytes(capture(false), "noroots.xplane.pb", read);

  Diagnostics d;
  EventGroups none = GroupEvents(h, d);
  CHECK(none.groups.empty());
  CHECK_THAT(none.no_groups_reason, Catch::Contains("no event has a root stat"));
  // Every event is placed, in no group.
  for (size_t e = 0; e < 4; ++e) CHECK(none.Of(0, 0, e) == kNoGroup);
  for (size_t e = 0; e < 3; ++e) CHECK(none.Of(1, 0, e) == kNoGroup);
  CHECK(d.Count("grouping.kernel_without_launch") == 0);
  CHECK(none.eager.empty());

  // Named by --step-marker, the same events are two steps: the forest is
  // built, the kernels take their launches' steps, and the one without a
  // launch takes the step of the kernel before it.
  AnalysisOptions marker;
  marker.step_marker = "^step$";
  Diagnostics dm;
  EventGroups two = GroupEvents(h, dm, marker);
  REQUIRE(two.groups.size() == 2);
  CHECK(two.Of(1, 0, 0) == two.Of(0, 0, 0));
  CHECK(two.Of(1, 0, 1) == two.Of(0, 0, 2));
  CHECK(two.Of(1, 0, 2) == two.Of(0, 0, 2));
  CHECK(two.Of(0, 0, 0) != two.Of(0, 0, 2));
  CHECK(dm.Count("grouping.kernel_without_launch") == 1);

  // With an EagerExecute the forest is built for the eager marks alone: it
  // still finds no step and says nothing of the kernel, with or without
  // the marks, as every command then reads the same.
  Diagnostics read_eager;
  Host he = ReadXSpaceBytes(capture(true), "noroots_eager.xplane.pb", read_eager);
  for (const bool marks : {true, false}) {
    INFO("eager marks " << marks);
    GroupingRun run;
    run.eager = marks;
    Diagnostics de;
    EventGroups g = GroupEvents(he, de, {}, run);
    CHECK(g.groups.empty());
    CHECK(g.eager.empty() != marks);
    CHECK(de.Count("grouping.kernel_without_launch") == 0);
  }
}

TEST_CASE("Grouping: the names that may give a host steps are the forest's roots", "[steps]") {
  // schema::IsStepRootEventName (the reader's and the forest skip's list)
  // against the forest's own kinds, over every name the forest knows.
  using grouping_internal::Kind;
  for (const char* name : {"TraceContext", "FunctionRun", "SessionRun", "RunGraph", "ExecutorState::Process",
                           "IteratorGetNextOp::DoCompute", "IteratorGetNextAsOptionalOp::DoCompute", "EagerExecute",
                           "InstantiatedCapturedFunction::Run", "ProcessBatch", "OrbaxServing::ProcessBatch",
                           "BatchingSessionRun", "ProfilerStep#1", "train", "MatMul:MatMul", "", "TraceContext "}) {
    INFO(name);
    const Kind k = grouping_internal::KindOfName(name);
    const bool root = k == Kind::kTraceContext || k == Kind::kProcessBatch || k == Kind::kBatchingSessionRun ||
                      k == Kind::kExecutorProcess;
    CHECK(schema::IsStepRootEventName(name) == root);
  }
  CHECK(schema::IsProfilerStepName("ProfilerStep#12"));
  CHECK_FALSE(schema::IsProfilerStepName("ProfilerStep#"));
  CHECK_FALSE(schema::IsProfilerStepName("ProfilerStep#1a"));
}

TEST_CASE("Step breakdown: priorities resolve overlaps, host events count by default", "[steps]") {
  Host h = OneGpuStep();
  Diagnostics d;
  StepSummary s = SummarizeSteps(CombineHostSteps({BuildStepDb(h, GroupEvents(h, d), {}, d)}));
  REQUIRE(s.rows.size() == 1);
  const StepRow& r = s.rows[0];
  CHECK(r.step_time_ms == Approx(0.100));                   // The host marker contains the device's.
  CHECK(Ms(r, Category::kKernelLaunch) == Approx(0.020));   // [10, 30us]
  CHECK(Ms(r, Category::kDeviceCompute) == Approx(0.040));  // [30, 70us] wins over the launch and the wait
  CHECK(Ms(r, Category::kInput) == Approx(0.010));          // [70, 80us]
  CHECK(Ms(r, Category::kAllOthers) == Approx(0.030));      // [0, 10] and [80, 100us]
  CHECK(Ms(r, Category::kHostCompute) == Approx(0.0));
  CHECK(r.input_percent == Approx(10.0));

  Overview o = BuildOverview(HostSummary{}, s);
  CHECK(o.bottleneck.verdict == "MODERATELY input-bound");
  CHECK(o.bottleneck.kernel_launch_classification == "high");
  CHECK(o.bottleneck.kernel_launch_statement == "20.0 % of the total step time sampled is spent on 'Kernel Launch'.");
  CHECK(o.compute_32bit_percent == Approx(100.0));
  CHECK_THAT(o.precision_statement, Catch::StartsWith("Only 0.0% of device computation is 16 bit."));
}

TEST_CASE("Step breakdown: a span nested in one of its type or higher adds nothing, one higher counts", "[steps]") {
  // One step [0, 100us] on one thread: the executor [10, 60us] (kernel
  // launch) holds a host op [12, 18us] and the launch [20, 25us]; the
  // input wait [60, 80us] holds a host op [65, 70us]; a host op [82, 98us]
  // holds an input wait [85, 90us], which outranks it. The kernel runs
  // [30, 40us]. AppendSpans leaves out the spans inside one of their type
  // or higher; the input wait inside the host op must stay.
  XSpaceBuilder b;
  b.Plane("/host:CPU")
      .Line(1, "python3")
      .Event("train", 0, 100 * kUs, {{"_r", int64_t{1}}, {"step_num", int64_t{7}}})
      .Event("ExecutorState::Process", 10 * kUs, 50 * kUs)
      .Event("MatMul", 12 * kUs, 6 * kUs)
      .Event("cuLaunchKernel", 20 * kUs, 5 * kUs, {{"correlation_id", uint64_t{5}}})
      .Event("IteratorGetNextOp::DoCompute", 60 * kUs, 20 * kUs)
      .Event("MatMul", 65 * kUs, 5 * kUs)
      .Event("Assign", 82 * kUs, 16 * kUs)
      .Event("IteratorGetNextOp::DoCompute", 85 * kUs, 5 * kUs);
  b.Plane("/device:GPU:0", 0)
      .Line(7, "Stream #7(Compute)", 0)
      .Event("gemm", 30 * kUs, 10 * kUs, {{"correlation_id", uint64_t{5}}});
  Diagnostics d;
  const Host h = ReadXSpaceBytes(b.Serialize(), "nested.xplane.pb", d);
  StepSummary s = SummarizeSteps(CombineHostSteps({BuildStepDb(h, GroupEvents(h, d), {}, d)}));
  REQUIRE(s.rows.size() == 1);
  const StepRow& r = s.rows[0];
  CHECK(r.step_time_ms == Approx(0.100));
  CHECK(Ms(r, Category::kKernelLaunch) == Approx(0.040));   // [10, 30] and [40, 60us]
  CHECK(Ms(r, Category::kDeviceCompute) == Approx(0.010));  // [30, 40us]
  CHECK(Ms(r, Category::kInput) == Approx(0.025));          // [60, 80] and [85, 90us]
  CHECK(Ms(r, Category::kHostCompute) == Approx(0.011));    // [82, 85] and [90, 98us]
  CHECK(Ms(r, Category::kAllOthers) == Approx(0.014));      // [0, 10], [80, 82] and [98, 100us]
}

TEST_CASE("Step breakdown as current xprof: device events only on GPU", "[steps]") {
  Host h = OneGpuStep();
  Diagnostics d;
  const AnalysisOptions xprof{Compat::kXprof};
  StepSummary s = SummarizeSteps(CombineHostSteps({BuildStepDb(h, GroupEvents(h, d, xprof), xprof, d)}));
  REQUIRE(s.rows.size() == 1);
  CHECK(s.rows[0].step_time_ms == Approx(0.040));
  CHECK(Ms(s.rows[0], Category::kDeviceCompute) == Approx(0.040));
  CHECK(Ms(s.rows[0], Category::kKernelLaunch) == Approx(0.0));
}

// Two "train" steps [0, 100us] and [100, 200us] whose kernels run on two
// streams; the capture has no Steps line, so each step's device span is
// derived from runs of consecutive (in time, over all streams) kernels of
// one step. `tie`: step 1's kernel starts and ends with step 0's first
// one, and comes first in its line.
Host TwoStreamSteps(bool tie) {
  XSpaceBuilder b;
  auto& cpu = b.Plane("/host:CPU");
  cpu.Line(1, "python3")
      .Event("train", 0, 100 * kUs, {{"_r", int64_t{1}}, {"step_num", int64_t{0}}})
      .Event("cuLaunchKernel", 10 * kUs, 5 * kUs, {{"correlation_id", uint64_t{1}}})
      .Event("cuLaunchKernel", 20 * kUs, 5 * kUs, {{"correlation_id", uint64_t{2}}})
      .Event("train", 100 * kUs, 100 * kUs, {{"_r", int64_t{1}}, {"step_num", int64_t{1}}})
      .Event("cuLaunchKernel", 101 * kUs, 1 * kUs, {{"correlation_id", uint64_t{3}}});
  auto& gpu = b.Plane("/device:GPU:0", 0);
  auto s7 = gpu.Line(7, "Stream #7(Compute)", 0);
  if (tie) s7.Event("gemm", 90 * kUs, 20 * kUs, {{"correlation_id", uint64_t{3}}});
  s7.Event("gemm", 90 * kUs, 20 * kUs, {{"correlation_id", uint64_t{1}}})
      .Event("gemm", 120 * kUs, 20 * kUs, {{"correlation_id", uint64_t{2}}});
  if (!tie) gpu.Line(8, "Stream #8(Compute)", 0).Event("gemm", 103 * kUs, 1 * kUs, {{"correlation_id", uint64_t{3}}});
  Diagnostics d;
  return ReadXSpaceBytes(b.Serialize(), "streams.xplane.pb", d);
}

TEST_CASE("Steps: device spans follow the kernels' order over all streams", "[steps]") {
  // Step 0's kernels [90, 110us] and [120, 140us] are split by step 1's
  // [103, 104us] on the other stream: step 0's device span is its longest
  // run, [90, 110us] (20us; the host's [0, 100us] does not hold it), not
  // [90, 140us] as one stream alone would make it. Step 1's kernel lies in
  // its host span: 100us.
  Host h = TwoStreamSteps(false);
  Diagnostics d;
  StepSummary s = SummarizeSteps(CombineHostSteps({BuildStepDb(h, GroupEvents(h, d), {}, d)}));
  REQUIRE(s.rows.size() == 2);
  CHECK(s.rows[0].step_time_ms == Approx(0.020));
  CHECK(Ms(s.rows[0], Category::kDeviceCompute) == Approx(0.020));
  CHECK(s.rows[1].step_time_ms == Approx(0.100));

  // Equal kernels of steps 1 and 0 at [90, 110us], step 1's first in the
  // line: in time order ties go by step, so step 0's [90, 110us] and
  // [120, 140us] are split by step 1's; both steps span [90, 110us].
  Host tie = TwoStreamSteps(true);
  StepSummary t = SummarizeSteps(CombineHostSteps({BuildStepDb(tie, GroupEvents(tie, d), {}, d)}));
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[0].step_time_ms == Approx(0.020));
  CHECK(t.rows[1].step_time_ms == Approx(0.020));
}

TEST_CASE("Steps: TF loop ops disable grouping, --step-marker and --whole-trace still work", "[steps]") {
  XSpaceBuilder b;
  b.Plane("/host:CPU")
      .Line(1, "t")
      .Event("WhileOp-EvalCond", 0, 10 * kUs)
      .Event("step", 20 * kUs, 30 * kUs)
      .Event("MatMul:MatMul", 25 * kUs, 10 * kUs)
      .Event("step", 60 * kUs, 30 * kUs)
      .Event("MatMul:MatMul", 65 * kUs, 20 * kUs);
  Diagnostics d;
  Host h = ReadXSpaceBytes(b.Serialize(), "loop.xplane.pb", d);
  EventGroups none = GroupEvents(h, d);
  CHECK(none.groups.empty());
  CHECK_THAT(none.no_groups_reason, Catch::Contains("TensorFlow loop ops (WhileOp-EvalCond)"));

  AnalysisOptions marker;
  marker.step_marker = "^step$";
  StepSummary s = SummarizeSteps(CombineHostSteps({BuildStepDb(h, GroupEvents(h, d, marker), marker, d)}));
  REQUIRE(s.rows.size() == 2);
  CHECK(s.rows[0].step_time_ms == Approx(0.030));
  CHECK(Ms(s.rows[0], Category::kHostCompute) == Approx(0.010));
  CHECK(Ms(s.rows[1], Category::kHostCompute) == Approx(0.020));

  AnalysisOptions whole;
  whole.whole_trace = true;
  StepSummary w = SummarizeSteps(CombineHostSteps({BuildStepDb(h, GroupEvents(h, d, whole), whole, d)}));
  REQUIRE(w.rows.size() == 1);
  CHECK(w.rows[0].step_time_ms == Approx(0.090));  // 0 .. 90us
}

TEST_CASE("Sample standard deviation as the reference's Stat", "[steps]") {
  Stats s = Summarize({2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0});
  CHECK(s.avg == Approx(5.0));
  CHECK(s.stddev == Approx(2.138089935));  // sqrt(32/7)
  CHECK(s.min == 2.0);
  CHECK(s.max == 9.0);
  CHECK(Summarize({3.0}).stddev == 0.0);
}

TEST_CASE("Grouping: lines cut into walk pieces nest as when walked whole, on one thread or two", "[steps]") {
  // Over 2^16 events, so that two threads walk eight pieces cut anywhere in
  // the lines: inside the long "outer", inside steps, between an op and its
  // child. Step k ("session k") holds its ops and their children but its
  // async ops, and the consumer (and its child) of the context it produces.
  constexpr int64_t kSteps = 40, kOps = 1300, kStepUs = 4 * kOps + 10;
  XSpaceBuilder b;
  auto& cpu = b.Plane("/host:CPU");
  auto main_line = cpu.Line(1, "main");
  // Its graph_type names every step nested in it (through the nesting
  // parents the cut pieces are given).
  main_line.Event("outer", 0, kSteps * kStepUs * kUs, {{"graph_type", std::string("session")}});
  for (int64_t k = 0; k < kSteps; ++k) {
    const int64_t s = k * kStepUs;
    main_line.Event("train", s * kUs, (kStepUs - 1) * kUs, {{"_r", int64_t{1}}, {"step_num", k}});
    main_line.Event("produce", (s + 1) * kUs, 1 * kUs, {{"_pt", int64_t{1}}, {"_p", k}});
    for (int64_t j = 0; j < kOps; ++j) {
      const int64_t at = s + 3 + 4 * j;
      if (j % 7 == 3) main_line.Event("async", at * kUs, 3 * kUs, {{"_a", int64_t{1}}});
      else main_line.Event("op", at * kUs, 3 * kUs);
      if (j % 3 == 0) main_line.Event("child", at * kUs, 2 * kUs);
    }
  }
  auto worker = cpu.Line(2, "worker");
  for (int64_t k = 0; k < kSteps; ++k)
    worker.Event("consume", (k * kStepUs + 5) * kUs, 2 * kUs, {{"_ct", int64_t{1}}, {"_c", k}})
        .Event("consume child", (k * kStepUs + 5) * kUs, 1 * kUs);
  Diagnostics diag;
  const Host host = ReadXSpaceBytes(b.Serialize(), "pieces.xplane.pb", diag);
  REQUIRE(host.planes[0].lines[0].events.size() > (size_t{1} << 16));
  // What each event's group must be.
  std::vector<int32_t> expected_main;
  expected_main.push_back(kNoGroup);  // outer
  for (int64_t k = 0; k < kSteps; ++k) {
    const auto g = static_cast<int32_t>(k);
    expected_main.push_back(g);  // train
    expected_main.push_back(g);  // produce
    for (int64_t j = 0; j < kOps; ++j) {
      expected_main.push_back(j % 7 == 3 ? kNoGroup : g);  // Async: not nested in the step.
      if (j % 3 == 0) expected_main.push_back(g);          // Its child nests in the step all the same.
    }
  }
  REQUIRE(expected_main.size() == host.planes[0].lines[0].events.size());
  for (const size_t threads : {size_t{1}, size_t{2}}) {
    INFO(threads << " thread(s)");
    GroupingRun run;
    run.threads = threads;
    const EventGroups g = GroupEvents(host, diag, {}, run);
    REQUIRE(g.groups.size() == static_cast<size_t>(kSteps));
    size_t misnamed = 0;
    for (int64_t k = 0; k < kSteps; ++k) misnamed += g.groups[k].name != "session " + std::to_string(k);
    CHECK(misnamed == 0);
    size_t wrong = 0;
    for (size_t e = 0; e < expected_main.size(); ++e) wrong += g.Of(0, 0, e) != expected_main[e];
    CHECK(wrong == 0);
    for (size_t e = 0; e < 2 * kSteps; ++e) CHECK(g.Of(0, 1, e) == static_cast<int32_t>(e / 2));
  }
}

namespace {

// The host grouped on `threads` threads with no floor on the events, so
// that even a tiny capture's walk and steps' search are split.
EventGroups GroupSplitAnywhere(const Host& host, size_t threads) {
  GroupingRun run;
  run.threads = threads;
  run.min_parallel_events = 1;
  Diagnostics d;
  return GroupEvents(host, d, {}, run);
}

}  // namespace

TEST_CASE("Grouping: roots searched in two halves label as one search, where a first-half root reaches into the second",
          "[steps]") {
  // Six "train" steps (root level 1) of 10 us on the main line, three ops
  // each, and on the worker line a "warmup" root of level 2 (searched
  // first: higher levels come first) with an op. The steps' search runs in
  // root order and a root's search takes whatever it reaches first.
  // Step 0 produces the context one op of step 4 consumes: that op (and
  // its child) is step 0's. The warmup produces the context that step 5's
  // root consumes: that root is reached, so it is no step of its own
  // (its level differs, so it is not left out as nested), and it and its
  // ops are the warmup's. With two threads and no floor on the nodes, the
  // warmup and steps 0-2 are searched on one thread, steps 3-5 on the
  // other, whose labels the first half's take over.
  XSpaceBuilder b;
  auto& cpu = b.Plane("/host:CPU");
  auto main_line = cpu.Line(1, "main");
  for (int64_t k = 0; k < 6; ++k) {
    const int64_t s = k * 10;
    if (k == 5)
      main_line.Event("train", s * kUs, 9 * kUs,
                      {{"_r", int64_t{1}}, {"step_num", k}, {"_ct", int64_t{1}}, {"_c", int64_t{71}}});
    else main_line.Event("train", s * kUs, 9 * kUs, {{"_r", int64_t{1}}, {"step_num", k}});
    if (k == 0) main_line.Event("produce", (s + 1) * kUs, 1 * kUs, {{"_pt", int64_t{1}}, {"_p", int64_t{70}}});
    for (int64_t j = 0; j < 3; ++j) {
      const int64_t at = s + 3 + 2 * j;
      if (k == 4 && j == 1) {
        main_line.Event("consume", at * kUs, 1 * kUs, {{"_ct", int64_t{1}}, {"_c", int64_t{70}}})
            .Event("consume child", at * kUs, kUs / 2);
      } else {
        main_line.Event("op", at * kUs, 1 * kUs);
      }
    }
  }
  cpu.Line(2, "worker")
      .Event("warmup", 1 * kUs, 3 * kUs,
             {{"_r", int64_t{2}}, {"step_num", int64_t{99}}, {"_pt", int64_t{1}}, {"_p", int64_t{71}}})
      .Event("warmup op", 2 * kUs, 1 * kUs);
  Diagnostics diag;
  const Host host = ReadXSpaceBytes(b.Serialize(), "halves.xplane.pb", diag);
  // Groups: the warmup 0, steps 0-4 are 1-5. Main line, in order: per step
  // its train, step 0's produce, then its ops (step 4's second op is the
  // consumer with its child).
  std::vector<int32_t> expected_main;
  for (int32_t k = 0; k < 6; ++k) {
    const int32_t g = k == 5 ? 0 : k + 1;
    expected_main.push_back(g);
    if (k == 0) expected_main.push_back(g);
    for (int j = 0; j < 3; ++j) {
      if (k == 4 && j == 1) {
        expected_main.push_back(1);
        expected_main.push_back(1);
      } else {
        expected_main.push_back(g);
      }
    }
  }
  REQUIRE(expected_main.size() == host.planes[0].lines[0].events.size());
  for (const size_t threads : {size_t{1}, size_t{2}}) {
    INFO(threads << " thread(s)");
    const EventGroups g = GroupSplitAnywhere(host, threads);
    REQUIRE(g.groups.size() == 6);
    CHECK(g.groups[0].name == "warmup 99");
    for (size_t k = 1; k < 6; ++k) {
      CHECK(g.groups[k].id == static_cast<int32_t>(k));
      CHECK(g.groups[k].name == "train " + std::to_string(k - 1));
    }
    for (size_t e = 0; e < expected_main.size(); ++e) {
      INFO("main event " << e);
      CHECK(g.Of(0, 0, e) == expected_main[e]);
    }
    CHECK(g.Of(0, 1, 0) == 0);  // The warmup
    CHECK(g.Of(0, 1, 1) == 0);  // and its op.
  }
}

TEST_CASE("Step breakdown of a host without GPU whose lines are read on two threads", "[steps]") {
  // Over 2^16 events on two lines, so that each line is read on its own
  // thread. Step k (100 us apart) on "main": train [0, 90) us, 1,650 ops
  // of 20 ns every 50 ns from 1 us (33 us in all, the last ending at 83.47
  // us), produce [85, 86) us naming context k. On "worker": a second
  // marker, train-worker [5, 95) us, consuming context k (so step k's),
  // holding consume [50, 60) us with 1,650 ops of 5 ns. The step's time is
  // its longest host marker, the first of equals in line order: main's,
  // 90 us from k * 100 us. Host compute is the union of the ops, produce
  // and consume: 33 + 1 + 10 us less the 200 main ops (980 to 1179) inside
  // [50, 60), 4 us: 40 us of the 90 us step; the other 50 us are "all
  // others".
  constexpr int64_t kSteps = 20, kOps = 1650, kNs = 1000;
  XSpaceBuilder b;
  auto& cpu = b.Plane("/host:CPU");
  auto main_line = cpu.Line(1, "main");
  auto worker = cpu.Line(2, "worker");
  for (int64_t k = 0; k < kSteps; ++k) {
    const int64_t s = k * 100 * kUs;
    main_line.Event("train", s, 90 * kUs, {{"_r", int64_t{1}}, {"step_num", k}});
    for (int64_t j = 0; j < kOps; ++j) main_line.Event("op", s + kUs + j * 50 * kNs, 20 * kNs);
    main_line.Event("produce", s + 85 * kUs, kUs, {{"_pt", int64_t{1}}, {"_p", k}});
    worker.Event("train-worker", s + 5 * kUs, 90 * kUs, {{"_ct", int64_t{1}}, {"_c", k}});
    worker.Event("consume", s + 50 * kUs, 10 * kUs);
    for (int64_t j = 0; j < kOps; ++j) worker.Event("worker op", s + 50 * kUs + j * 6 * kNs, 5 * kNs);
  }
  Diagnostics d;
  const Host h = ReadXSpaceBytes(b.Serialize(), "two_lines.xplane.pb", d);
  REQUIRE(h.planes[0].EventCount() >= (size_t{1} << 16));
  const StepDb db = BuildStepDb(h, GroupEvents(h, d), {}, d);
  REQUIRE(db.steps.size() == static_cast<size_t>(kSteps));
  for (int64_t k = 0; k < kSteps; ++k) {
    INFO("step " << k);
    const StepRecord& r = db.steps[static_cast<size_t>(k)];
    CHECK(r.name == "train " + std::to_string(k));
    CHECK(r.begin_ps == k * 100 * kUs);
    CHECK(r.duration_ps == static_cast<uint64_t>(90 * kUs));
    CHECK(r.type_ps[static_cast<size_t>(EventType::kHostCompute)] == static_cast<uint64_t>(40 * kUs));
    CHECK(r.type_ps[static_cast<size_t>(EventType::kUnknown)] == static_cast<uint64_t>(50 * kUs));
  }
}

TEST_CASE("Grouping: TF1 loop iterations are searched as one search does, on two threads too", "[steps]") {
  // Iterations of one ExecutorState::Process (id 7): 1 spans [0, 100) us
  // and holds iteration 2's first event; iteration 2's other event is on
  // the worker line; iteration 3 at 200 us. The steps' search starts from
  // each iteration's first event with all its events, unless the first is
  // reached already: iteration 1's search reaches iteration 2's first
  // event, so iteration 2 is no step and its worker event is left to
  // whatever reaches it. A search that reaches a root does not take the
  // root's other events, so these are searched on one thread whatever
  // the threads (halves of the roots would differ).
  for (const bool worker_consumes : {true, false}) {
    INFO((worker_consumes ? "iteration 3 produces, the worker's event consumes" : "the other way round"));
    const std::pair<std::string, int64_t> side3 =
        worker_consumes ? std::pair{std::string("_pt"), int64_t{1}} : std::pair{std::string("_ct"), int64_t{1}};
    XSpaceBuilder b;
    auto& cpu = b.Plane("/host:CPU");
    const std::string id3 = worker_consumes ? "_p" : "_c", id_worker = worker_consumes ? "_c" : "_p";
    const std::string type_worker = worker_consumes ? "_ct" : "_pt";
    cpu.Line(1, "main")
        .Event("ExecutorState::Process", 0, 100 * kUs, {{"id", int64_t{7}}, {"iter_num", int64_t{1}}})
        .Event("ExecutorState::Process", 10 * kUs, 10 * kUs, {{"id", int64_t{7}}, {"iter_num", int64_t{2}}})
        .Event("ExecutorState::Process", 200 * kUs, 10 * kUs,
               {{"id", int64_t{7}}, {"iter_num", int64_t{3}}, {side3.first, side3.second}, {id3, int64_t{70}}});
    cpu.Line(2, "worker")
        .Event("ExecutorState::Process", 12 * kUs, 3 * kUs,
               {{"id", int64_t{7}}, {"iter_num", int64_t{2}}, {type_worker, int64_t{1}}, {id_worker, int64_t{70}}});
    Diagnostics diag;
    const Host host = ReadXSpaceBytes(b.Serialize(), "loop.xplane.pb", diag);
    for (const size_t threads : {size_t{1}, size_t{2}}) {
      INFO(threads << " thread(s)");
      const EventGroups g = GroupSplitAnywhere(host, threads);
      // Iterations 1 (with 2's first event) and 3 are the steps.
      REQUIRE(g.groups.size() == 2);
      CHECK(g.Of(0, 0, 0) == 0);
      CHECK(g.Of(0, 0, 1) == 0);
      CHECK(g.Of(0, 0, 2) == 1);
      // Reached from iteration 3 when it consumes 3's context; else
      // nothing reaches it.
      CHECK(g.Of(0, 1, 0) == (worker_consumes ? 1 : kNoGroup));
    }
  }
}
