// The reader leaves out of a host whose names give it no step the events
// no analysis of the command reads (lib/summary/events_read_without_steps.h):
// which events it keeps, when it keeps them all, and that each rule the
// summaries need has teeth. That every summary comes out the same on the
// test and corpus captures is event_stat_filter_summary_test.cc's check.
#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "lib/model/stat_finder.h"
#include "lib/model/xplane_schema.h"
#include "lib/read/xplane_reader.h"
#include "lib/summary/analysed_event_stats.h"
#include "lib/summary/events_read_without_steps.h"
#include "lib/summary/tf_data_events_to_pipelines.h"
#include "tests/support/corpus.h"
#include "tests/support/files.h"
#include "tests/support/filtered_summary.h"
#include "tests/support/skip.h"
#include "tests/support/xspace_builder.h"

namespace tfprof {
namespace {

using testing::Ref;
using testing::XSpaceBuilder;
using Use = EventStatFilter::StepLessUse;

// overview's parts.
constexpr SummaryParts kOverview = SummaryPart::kOps | SummaryPart::kEagerMarks | SummaryPart::kSteps;

Host Read(const std::string& bytes, const EventStatFilter& kept, uint64_t max_events = 0) {
  ReadOptions options;
  options.event_stats = kept;
  options.max_events = max_events;
  Diagnostics diag;
  return ReadXSpaceBytes(bytes, "stepless.xplane.pb", diag, options);
}

std::vector<std::string> Names(const Host& h, const Line& line) {
  std::vector<std::string> out;
  for (const Event& e : line.events) out.emplace_back(h.EventName(h.planes[0], e));
  return out;
}

// A JAX-like host: no group id, root or ProfilerStep#N. A TF op's name, a
// launch (correlation_id), an XLA:CPU op (hlo_op) and, unread by overview,
// a Python frame, an allocation and a PjRt call linked to another
// (`_p`: grouping's, but no forest is built here).
testing::LineBuilder StepLessHost(XSpaceBuilder& space) {
  return space.Plane("/host:CPU", 0)
      .Line(1, "python", 1'000)
      .Event("MatMul:MatMul", 0, 2'000)
      .Event("$ train.py:12 step", 100, 50)
      .Event("hipModuleLaunchKernel", 200, 10, {{"correlation_id", int64_t{7}}})
      .Event("MemoryAllocation", 300, 0, {{"bytes_allocated", int64_t{1}}})
      .Event("thunk", 400, 20, {{"hlo_op", Ref{"dot.1"}}, {"hlo_module", Ref{"jit_f"}}})
      .Event("PjitFunction(f)", 500, 30, {{"_p", int64_t{3}}});
}

TEST_CASE("A step-less host is read with only the events the command's analyses read", "[filter][stepless]") {
  XSpaceBuilder space;
  StepLessHost(space);
  const std::string bytes = space.Serialize();
  const Host h = Read(bytes, EventStatsFor(kOverview, {}));
  const Plane& cpu = h.planes[0];
  CHECK(Names(h, cpu.lines[0]) == std::vector<std::string>{"MatMul:MatMul", "hipModuleLaunchKernel", "thunk"});
  CHECK(cpu.lines[0].events_left_out == 3);
  CHECK(h.events_left_out_without_steps == 3);
  CHECK(h.allocator_events_skipped == 0);  // Counted as left out without steps.
  // The kept events keep their times and stats.
  CHECK(cpu.lines[0].events[2].start_ps == 400);
  CHECK(StatFinder(h, cpu, "hlo_op").In(cpu.lines[0].EventStats(2)).has_value());

  // With the memory profile, its allocation is read; tf.data alone reads
  // nothing here (no iterator), the memory profile alone its allocation.
  const Host all = Read(bytes, EventStatsFor(SummaryParts::All(), {}));
  CHECK(Names(all, all.planes[0].lines[0]) ==
        std::vector<std::string>{"MatMul:MatMul", "hipModuleLaunchKernel", "MemoryAllocation", "thunk"});
  CHECK(Read(bytes, EventStatsFor(SummaryPart::kTfData, {})).planes[0].lines[0].events.empty());
  const Host memory = Read(bytes, EventStatsFor(SummaryPart::kMemory, {}));
  CHECK(Names(memory, memory.planes[0].lines[0]) == std::vector<std::string>{"MemoryAllocation"});
  CHECK(memory.events_left_out_without_steps == 5);
}

TEST_CASE("A step-less host is read whole where a name or option needs every event", "[filter][stepless]") {
  auto left_out = [](const std::string& bytes, const EventStatFilter& kept, uint64_t max_events = 0) {
    return Read(bytes, kept, max_events).events_left_out_without_steps;
  };
  {
    XSpaceBuilder space;
    StepLessHost(space);
    REQUIRE(left_out(space.Serialize(), EventStatsFor(kOverview, {})) == 3);
    // --max-events counts every event; the options that choose the steps
    // themselves read names and times of any event.
    CHECK(left_out(space.Serialize(), EventStatsFor(kOverview, {}), 100) == 0);
    AnalysisOptions whole, marker, between, xprof;
    whole.whole_trace = true;
    marker.step_marker = "Pjit.*";
    between.steps_between = "Pjit.*";
    xprof.compat = Compat::kXprof;
    for (const AnalysisOptions& a : {whole, marker, between, xprof})
      CHECK(left_out(space.Serialize(), EventStatsFor(kOverview, a)) == 0);
    // Memory alone under --compat xprof reads its events as by default.
    CHECK(left_out(space.Serialize(), EventStatsFor(SummaryPart::kMemory, xprof)) == 5);
  }
  {
    // An EagerExecute: its forest is built for the eager marks.
    XSpaceBuilder space;
    StepLessHost(space).Event("EagerExecute", 600, 10);
    CHECK(left_out(space.Serialize(), EventStatsFor(kOverview, {})) == 0);
    // Only for the marks: memory and steps alone make none.
    CHECK(left_out(space.Serialize(), EventStatsFor(SummaryPart::kMemory, {})) == 6);
    CHECK(left_out(space.Serialize(), EventStatsFor(SummaryPart::kSteps, {})) == 7);
  }
  {
    // A tf.data name, for tf.data: an iterator's parent is the nearest
    // event around it. Not for overview.
    XSpaceBuilder space;
    StepLessHost(space).Event("Iterator::Root", 600, 10);
    CHECK(left_out(space.Serialize(), EventStatsFor(SummaryParts::All(), {})) == 0);
    CHECK(left_out(space.Serialize(), EventStatsFor(kOverview, {})) == 3);
  }
  {
    // A later plane whose stats may give the host steps: read again whole.
    XSpaceBuilder space;
    StepLessHost(space);
    space.Plane("/device:GPU:0", 1).Line(2, "Stream #1", 1'000).Event("kernel", 0, 5, {{"group_id", int64_t{1}}});
    const Host h = Read(space.Serialize(), EventStatsFor(kOverview, {}));
    CHECK(h.planes[0].lines[0].events.size() == 5);  // The allocation is left out for overview on any host.
    CHECK(h.planes[0].EventsLeftOut() == 1);
    CHECK(h.allocator_events_skipped == 1);
    CHECK(h.events_left_out_without_steps == 0);
  }
}

// A TensorFlow-like host with steps: a root (`_r`) around a TF op, which
// runs an allocation (its tf_op stat names the op), and a producer event
// (`_p`, a link for grouping) beside a Python frame.
testing::LineBuilder HostWithSteps(XSpaceBuilder& space) {
  return space.Plane("/host:CPU", 0)
      .Line(1, "python", 1'000)
      .Event("train", 0, 5'000, {{"_r", int64_t{1}}, {"step_num", int64_t{0}}})
      .Event("MatMul:MatMul", 100, 2'000)
      .Event("MemoryAllocation", 300, 0, {{"bytes_allocated", int64_t{1}}, {"tf_op", Ref{"MatMul"}}})
      .Event("$ train.py:12 step", 2'500, 50)
      .Event("FunctionRun", 3'000, 30, {{"_p", int64_t{3}}, {"_pt", int64_t{1}}});
}

TEST_CASE("A host with steps is read with only the events a command that groups none reads", "[filter][stepless]") {
  XSpaceBuilder space;
  HostWithSteps(space);
  const std::string bytes = space.Serialize();
  // placement (the op metrics, no eager marks), op-stats on a host with no
  // EagerExecute (no mark to make) and tf-data build no forest: none
  // follows nesting or links, so steps change nothing of what they read.
  // The op metrics read the TF op; the allocation's tf_op makes no op (its
  // name leaves it out, its stats unread).
  const SummaryParts op_stats = SummaryPart::kOps | SummaryPart::kEagerMarks;
  for (SummaryParts ops : {SummaryParts(SummaryPart::kOps), op_stats}) {
    INFO("parts " << ops.bits);
    const Host h = Read(bytes, EventStatsFor(ops, {}));
    CHECK_FALSE(EventStatsFor(ops, {}).analyses_group);
    CHECK(Names(h, h.planes[0].lines[0]) == std::vector<std::string>{"MatMul:MatMul"});
    CHECK(h.events_left_out_without_steps == 4);
  }
  CHECK(Read(bytes, EventStatsFor(SummaryPart::kTfData, {})).planes[0].lines[0].events.empty());
  // With an EagerExecute, op-stats builds the forest for its marks and
  // reads the plane whole; placement makes none and leaves it out.
  XSpaceBuilder eager;
  HostWithSteps(eager).Event("EagerExecute", 4'000, 10);
  CHECK(Read(eager.Serialize(), EventStatsFor(op_stats, {})).events_left_out_without_steps == 0);
  CHECK(Read(eager.Serialize(), EventStatsFor(SummaryPart::kOps, {})).events_left_out_without_steps == 5);
  // Every command that groups reads the host whole (but the allocation,
  // for those that build no memory profile).
  for (SummaryParts grouping : {kOverview, SummaryPart::kHostOps | SummaryPart::kEagerMarks | SummaryPart::kSteps,
                                SummaryParts(SummaryPart::kSteps), SummaryParts(SummaryPart::kMemory)}) {
    INFO("parts " << grouping.bits);
    CHECK(EventStatsFor(grouping, {}).analyses_group);
    const Host h = Read(bytes, EventStatsFor(grouping, {}));
    CHECK(h.events_left_out_without_steps == 0);
    CHECK(h.planes[0].lines[0].events.size() + h.allocator_events_skipped == 5);
  }
  // The tf_op stat that left the allocation out unread (by its name) keeps
  // an event of any other name: a TF op named by its tf_op alone.
  XSpaceBuilder named_by_stat;
  HostWithSteps(named_by_stat).Event("ProcessOp", 3'500, 40, {{"tf_op", Ref{"Conv2D:Conv2D"}}});
  const Host h = Read(named_by_stat.Serialize(), EventStatsFor(SummaryPart::kOps, {}));
  CHECK(Names(h, h.planes[0].lines[0]) == std::vector<std::string>{"MatMul:MatMul", "ProcessOp"});
}

// The summary of `parts` of the capture `bytes` (written to `name`), read
// whole; the command reading it for those parts must make the same.
std::string SummaryReadBothWays(const std::string& bytes, const std::string& name, SummaryParts parts,
                                std::string* path) {
  *path = testing::TempDir() + "/" + name;
  testing::WriteFile(*path, bytes);
  const std::string whole = testing::SummariseKeeping(*path, parts, EventStatFilter(), {}).bytes;
  CHECK(testing::SummariseKeeping(*path, parts, EventStatsFor(parts, {}), {}).bytes == whole);
  return whole;
}

// tf.data's pipeline of a step-less host: Root holds Foo, which holds Map.
std::string NestedIterators() {
  XSpaceBuilder space;
  space.Plane("/host:CPU", 0)
      .Line(1, "tf_data_iterator_get_next", 1'000)
      .Event("Iterator::Root", 0, 100'000'000, {{"id", int64_t{1}}})
      .Event("Foo", 10'000'000, 80'000'000)
      .Event("Iterator::Root::Map", 20'000'000, 60'000'000, {{"id", int64_t{2}}, {"parent_id", int64_t{1}}});
  return space.Serialize();
}

TEST_CASE("tf.data on a step-less host needs the events between its iterators", "[filter][stepless][summary]") {
  const SummaryParts tf_data = SummaryPart::kTfData;
  std::string path;
  const std::string whole = SummaryReadBothWays(NestedIterators(), "nested_iterators.xplane.pb", tf_data, &path);
  // Teeth: read by the iterators' names alone, Foo is left out and Map
  // becomes Root's child, which changes the pipeline.
  EventStatFilter by_name = EventStatsFor(tf_data, {});
  by_name.use_without_steps = [](uint32_t, std::string_view name, std::string_view) {
    return IsTfDataEventName(name) ? Use::kRead : Use::kUnread;
  };
  CHECK(testing::SummariseKeeping(path, tf_data, by_name, {}).bytes != whole);
}

// A step-less host's ops told by a stat, not by their names: an XLA:CPU
// thunk (hlo_op), an op named by its tf_op, an input-pipeline stage
// (_ipl_stage_id), and on a line of its own an op the capture types
// (tf_op_type) with a runtime call inside it (correlation_id).
std::string OpsByStats() {
  XSpaceBuilder space;
  auto& host = space.Plane("/host:CPU", 0);
  host.Line(1, "tf_XLAEigen", 1'000)
      .Event("dot.1", 0, 4'000'000, {{"hlo_op", Ref{"dot.1"}}, {"hlo_module", Ref{"jit_f"}}})
      .Event("run", 5'000'000, 2'000'000, {{"tf_op", Ref{"dense/MatMul:MatMul"}}})
      .Event("stage", 8'000'000, 1'000'000, {{"_ipl_stage_id", int64_t{3}}, {"_ipl_stage_cat", Ref{"preprocess"}}})
      .Event("$ train.py:3 f", 9'500'000, 100'000);
  host.Line(2, "cpu_ops", 1'000)
      .Event("aten::mm", 0, 3'000'000, {{"tf_op", Ref{"aten::mm"}}, {"tf_op_type", Ref{"aten::mm"}}})
      .Event("cudaLaunchKernel", 1'000'000, 10'000, {{"correlation_id", int64_t{11}}});
  return space.Serialize();
}

TEST_CASE("Host op metrics on a step-less host need the events an op's stat names", "[filter][stepless][summary]") {
  const SummaryParts ops = SummaryPart::kOps;
  std::string path;
  const std::string whole = SummaryReadBothWays(OpsByStats(), "ops_by_stats.xplane.pb", ops, &path);
  const EventStatFilter kept = EventStatsFor(ops, {});
  // The Python frame alone was left out.
  CHECK(Read(OpsByStats(), kept).events_left_out_without_steps == 1);
  // Teeth: without any one of the stats, its events are left out and the
  // op metrics change.
  for (std::string_view stat : kept.stats_read_without_steps) {
    INFO(stat);
    EventStatFilter without = kept;
    std::erase(without.stats_read_without_steps, stat);
    CHECK(testing::SummariseKeeping(path, ops, without, {}).bytes != whole);
  }
}

// The host-thread events of `whole` (read with every event) that the
// analyses of `parts` leave out, counted on the model: those of a name
// they do not read that carry none of the stats that make an op, and the
// allocator events of a command reading none, whatever their stats.
// `python`: how many of them are on the Python tracer's line ("python",
// "python3").
uint64_t LeftOutOnWholeModel(const Host& whole, const Plane& cpu, SummaryParts parts, uint64_t* python) {
  const EventStatFilter kept = EventStatsFor(parts, {});
  std::vector<StatFinder> op_stats;
  for (std::string_view s : kept.stats_read_without_steps) op_stats.emplace_back(whole, cpu, std::string(s));
  uint64_t unread = 0;
  *python = 0;
  for (const Line& line : cpu.lines)
    for (size_t e = 0; e < line.events.size(); ++e) {
      const EventMetadata& m = cpu.event_metadata[line.events[e].metadata];
      if (UseOfHostEventWithoutSteps(parts.bits, whole.Str(m.name), whole.Str(m.display_name)) != Use::kUnread)
        continue;
      bool op = false;
      for (const StatFinder& f : op_stats) op = op || f.In(line.EventStats(e)).has_value();
      if (op && (kept.keep_allocator_events || !schema::IsAllocatorEvent(whole.Str(m.name)))) continue;
      ++unread;
      *python += whole.LineName(line).starts_with("python");
    }
  return unread;
}

// Checks that `parts` read of the corpus capture `path` leaves out of its
// host what LeftOutOnWholeModel counts; returns that count, and the host's
// events in `host_events`.
uint64_t CheckLeftOutOfRealHost(const std::string& path, SummaryParts parts, uint64_t* python, uint64_t* host_events) {
  Diagnostics diag;
  const Host whole = ReadXSpaceFile(path, diag, ReadOptions());
  const Plane* cpu = whole.FindPlane(schema::kHostThreadsPlane);
  REQUIRE(cpu);
  const uint64_t unread = LeftOutOnWholeModel(whole, *cpu, parts, python);
  *host_events = cpu->EventCount();
  ReadOptions options;
  options.event_stats = EventStatsFor(parts, {});
  const Host read = ReadXSpaceFile(path, diag, options);
  const Plane* kept = read.FindPlane(schema::kHostThreadsPlane);
  REQUIRE(kept);
  CHECK(kept->EventsLeftOut() == unread);
  CHECK(kept->EventCount() + unread == cpu->EventCount());
  CHECK(read.events_left_out_without_steps == unread);
  REQUIRE(unread > 0);
  return unread;
}

TEST_CASE("A real JAX GPU capture's host is read with only its events overview reads", "[filter][stepless][corpus]") {
  const std::string path = testing::CorpusPath("tracelens/mi300/jax08_attention/tw003.xplane.pb");
  if (path.empty()) {
    testing::SkipTest("no corpus (set TFPROF_CORPUS)");
    return;
  }
  uint64_t python = 0, host_events = 0;
  const uint64_t unread = CheckLeftOutOfRealHost(path, kOverview, &python, &host_events);
  REQUIRE(unread > host_events / 2);
  CHECK(python > unread / 2);  // The Python tracer's line is most of them.
}

TEST_CASE("A real T4 capture's host, with steps, is read with only its events op-stats reads",
          "[filter][stepless][corpus]") {
  const std::string path = testing::CorpusPath(
      "e4040-2023fall-assign2-hd2551/logs/fit/20231107-184716/train/plugins/profile/2023_11_07_18_47_18/"
      "instance-2.xplane.pb");
  if (path.empty()) {
    testing::SkipTest("no corpus (set TFPROF_CORPUS)");
    return;
  }
  // Grouped when taken and without an EagerExecute: op-stats makes no eager
  // marks, so it groups nothing. Its allocator events (a tf_op on each) and
  // its Python tracer's events are among those it leaves out.
  const SummaryParts op_stats = SummaryPart::kOps | SummaryPart::kEagerMarks;
  CHECK_FALSE(EventStatsFor(op_stats, {}).analyses_group);
  uint64_t python = 0, host_events = 0;
  const uint64_t unread = CheckLeftOutOfRealHost(path, op_stats, &python, &host_events);
  CHECK(python > 0);
  CHECK(unread < host_events);  // Its TF ops are read.
}

}  // namespace
}  // namespace tfprof
