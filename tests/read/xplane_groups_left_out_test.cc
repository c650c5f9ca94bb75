// The XSpace reader leaving out, for the memory profile alone, the host
// events beside the allocator events of a capture grouped when taken
// (EventStatFilter::only_allocator_events_when_steps_allow): which events it
// keeps, the group ids it keeps aside, the lines cut into chunks of any
// size, and the captures it reads again with every event.
#include <catch2/catch.hpp>

#include <algorithm>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "lib/model/stat_finder.h"
#include "lib/model/tf1_timeline.h"
#include "lib/model/xplane_schema.h"
#include "lib/read/xplane_reader.h"
#include "lib/summary/events_read_without_steps.h"
#include "tests/support/corpus.h"
#include "tests/support/skip.h"
#include "tests/support/xspace_builder.h"

using namespace tfprof;
using tfprof::testing::Ref;
using tfprof::testing::StatList;
using tfprof::testing::XSpaceBuilder;

namespace {

EventStatFilter MemoryAlone() {
  EventStatFilter kept = EventStatFilter::Only({"group_id", "step_name", "bytes_allocated", "allocator_name"});
  kept.allocator_records = true;
  kept.only_allocator_events_when_steps_allow = true;
  // On a host whose names give it no step: the allocator events alone.
  LeaveOutWhatNoStepsLeaveUnread(kept, SummaryPart::kMemory, AnalysisOptions());
  return kept;
}

// A capture file as `memory` alone reads it.
Host ReadFileAsMemoryAlone(const std::string& path) {
  ReadOptions options;
  options.event_stats = MemoryAlone();
  Diagnostics diag;
  return ReadXSpaceFile(path, diag, options);
}

Host Read(const std::string& bytes, const EventStatFilter& kept, size_t chunk_events = 0, size_t threads = 0,
          bool by_offsets = true) {
  ReadOptions options;
  options.event_stats = kept;
  options.decode_chunk_events = chunk_events;
  options.decode_threads = threads;
  options.decode_kept_by_offsets = by_offsets;
  Diagnostics diag;
  return ReadXSpaceBytes(bytes, "groups.xplane.pb", diag, options);
}

StatList Allocation(int64_t group) {
  return {{"allocator_name", std::string("GPU_0_bfc")}, {"bytes_allocated", int64_t{4096}}, {"group_id", group}};
}

// A host threads' line of an op and an allocation, with no step name: the
// line the tests below add a name to, or a plane after it.
tfprof::testing::LineBuilder OpAndAllocation(XSpaceBuilder& space) {
  return space.Plane("/host:CPU", 0)
      .Line(1, "tf_Compute", 1'000)
      .Event("MatMul:MatMul", 0, 2'000, {{"tf_op", Ref{"m"}}})
      .Event("MemoryAllocation", 100, 0, {{"bytes_allocated", int64_t{1}}});
}

// The names of a line's events, in order.
std::vector<std::string> Names(const Host& h, const Line& line) {
  std::vector<std::string> out;
  for (const Event& e : line.events) out.emplace_back(h.Str(h.planes[0].event_metadata[e.metadata].name));
  return out;
}

}  // namespace

TEST_CASE("Memory alone keeps the allocator events and those naming a step, and the others' group ids",
          "[xplane][filter]") {
  XSpaceBuilder space;
  auto& host = space.Plane("/host:CPU", 0);
  host.Line(1, "tf_Compute", 1'000)
      .Event("MatMul:MatMul", 0, 2'000, {{"group_id", int64_t{1}}, {"tf_op", Ref{"dense/MatMul:MatMul"}}})
      .Event("MemoryAllocation", 100, 0, Allocation(1))
      .Event("train", 0, 9'000, {{"group_id", int64_t{1}}, {"step_name", std::string("train 1")}})
      .Event("Twice", 200, 10, {{"group_id", int64_t{1}}, {"group_id", int64_t{2}}})
      .Event("AsText", 300, 10, {{"group_id", std::string("3")}})
      .Event("NoGroup", 400, 10, {{"tf_op", Ref{"x"}}})
      .Event("Elsewhere", 500, 10, {{"group_id", int64_t{9}}})
      .Event("Unsigned", 600, 10, {{"group_id", uint64_t{11}}})
      .Event("MemoryDeallocation", 700, 0, Allocation(1));
  const std::string bytes = space.Serialize();
  const Host whole = Read(bytes, EventStatFilter());
  const Host memory = Read(bytes, MemoryAlone());
  REQUIRE(whole.planes[0].lines[0].events.size() == 9);
  CHECK(whole.planes[0].EventsLeftOut() == 0);
  const Plane& cpu = memory.planes[0];
  // Kept: the allocator events, the step's root, the event with two group
  // ids and the one with a text group id (grouping reads their first), in
  // time order as every line.
  CHECK(Names(memory, cpu.lines[0]) ==
        std::vector<std::string>{"train", "MemoryAllocation", "Twice", "AsText", "MemoryDeallocation"});
  CHECK(cpu.EventsLeftOut() == 4);  // MatMul, NoGroup, Elsewhere, Unsigned.
  CHECK(cpu.left_out_group_ids == std::vector<int64_t>{1, 9, 11});
  // The kept events keep their times and stats (the whole line, sorted:
  // train, MatMul, MemoryAllocation, Twice, AsText, ..., MemoryDeallocation).
  const Line& all = whole.planes[0].lines[0];
  for (auto [kept, at] : {std::pair{0, 0}, {1, 2}, {2, 3}, {3, 4}, {4, 8}})
    CHECK(cpu.lines[0].events[kept].start_ps == all.events[at].start_ps);
  const StatFinder step_name(memory, cpu, "step_name");
  CHECK(memory.Str(step_name.In(cpu.lines[0].EventStats(0))->AsString()) == "train 1");
  CHECK(cpu.lines[0].events_left_out == 4);
  // Every other command reads them all.
  EventStatFilter other = MemoryAlone();
  other.only_allocator_events_when_steps_allow = false;
  CHECK(Read(bytes, other).planes[0].lines[0].events.size() == 9);
}

TEST_CASE(
    "Memory alone leaves events out the same in chunks of any size, on any number of threads, decoding "
    "the kept events by their offsets or by the marks",
    "[xplane][filter]") {
  // Ops of two groups in turn between allocations, every fifth naming its
  // step: the kept events and the group ids do not depend on the cuts.
  XSpaceBuilder space;
  auto line = space.Plane("/host:CPU", 0).Line(1, "tf_Compute", 0);
  constexpr int64_t kEvents = 1'000;
  std::vector<int64_t> kept_starts;
  for (int64_t i = 0; i < kEvents; ++i) {
    const int64_t group = i / 100;
    if (i % 3 == 0) {
      line.Event("MemoryAllocation", i * 10, 0, Allocation(group));
      kept_starts.push_back(i * 10);
    } else if (i % 5 == 0) {
      line.Event("step", i * 10, 5, {{"group_id", group}, {"step_name", std::string("s")}});
      kept_starts.push_back(i * 10);
    } else {
      line.Event("Op:Op", i * 10, 5, {{"group_id", group + 100}});
    }
  }
  const std::string bytes = space.Serialize();
  std::vector<int64_t> ids;
  for (int64_t g = 100; g < 110; ++g) ids.push_back(g);
  for (size_t chunk : {size_t{1}, size_t{3}, size_t{64}, size_t{100}, size_t{128}, size_t{0}})
    for (size_t threads : {size_t{1}, size_t{2}})
      for (bool by_offsets : {true, false}) {
        INFO("chunk " << chunk << " threads " << threads << " by offsets " << by_offsets);
        const Host h = Read(bytes, MemoryAlone(), chunk, threads, by_offsets);
        const Line& read = h.planes[0].lines[0];
        std::vector<int64_t> starts;
        for (const Event& e : read.events) starts.push_back(e.start_ps);
        CHECK(starts == kept_starts);
        CHECK(h.planes[0].EventsLeftOut() == kEvents - kept_starts.size());
        CHECK(h.planes[0].left_out_group_ids == ids);
        // The allocator records point at their events where they now are.
        size_t records = 0;
        bool at_allocations = true;
        for (const AllocatorRecordBlock& block : h.planes[0].allocator_records)
          for (const AllocatorStats& r : block.records) {
            ++records;
            at_allocations = at_allocations && r.event < read.events.size() &&
                             read.events[r.event].start_ps % 30 == 0 &&
                             h.EventName(h.planes[0], read.events[r.event]) == "MemoryAllocation";
          }
        CHECK(records == static_cast<size_t>((kEvents + 2) / 3));
        CHECK(at_allocations);
      }
}

TEST_CASE("Memory alone reads a line whose timestamp comes again after its first events as a full read places them",
          "[xplane][filter]") {
  // The pre-scan hands the first chunks over as it frames them, then finds
  // the line's timestamp again (another one): those chunks are dropped and
  // the line's chunks handed over anew, their kept events found by offset
  // or by mark as before.
  using tfprof::testing::wire::BytesField;
  using tfprof::testing::wire::VarintField;
  auto metadata = [](int field, int id, const std::string& name) {
    return BytesField(field, VarintField(1, id) + BytesField(2, VarintField(1, id) + BytesField(2, name)));
  };
  // Stats: group_id (1), bytes_allocated (2), allocator_name (3).
  auto allocation = [](int offset, int group) {
    return BytesField(4, VarintField(1, 1) + VarintField(2, offset) + VarintField(3, 0) +
                             BytesField(4, VarintField(1, 3) + BytesField(5, "GPU_0_bfc")) +
                             BytesField(4, VarintField(1, 2) + VarintField(4, 4096)) +
                             BytesField(4, VarintField(1, 1) + VarintField(4, group)));
  };
  auto op = [](int offset, int group) {
    return BytesField(4, VarintField(1, 2) + VarintField(2, offset) + VarintField(3, 5) +
                             BytesField(4, VarintField(1, 1) + VarintField(4, group)));
  };
  std::string events;
  std::vector<int64_t> allocation_offsets;
  for (int i = 0; i < 40; ++i) {
    if (i % 3 == 0) {
      events += allocation(i * 10, i / 10);
      allocation_offsets.push_back(i * 10);
    } else {
      events += op(i * 10, 100 + i / 10);
    }
  }
  // A first line sets the time origin (0 ns); the second has timestamp 1
  // ns before its events and 2 ns after them: the last one is the line's.
  const std::string first = VarintField(1, 2) + BytesField(2, "other") + VarintField(3, 0) + op(0, 100);
  const std::string line =
      VarintField(1, 1) + BytesField(2, "tf_Compute") + VarintField(3, 1) + events + VarintField(3, 2);
  const std::string bytes =
      BytesField(1, VarintField(1, 1) + BytesField(2, "/host:CPU") + BytesField(3, first) + BytesField(3, line) +
                        metadata(4, 1, "MemoryAllocation") + metadata(4, 2, "Op:Op") + metadata(5, 1, "group_id") +
                        metadata(5, 2, "bytes_allocated") + metadata(5, 3, "allocator_name"));
  ReadOptions every;
  every.decode_chunk_events = 4;
  every.decode_threads = 2;
  Diagnostics diag;
  const Host whole = ReadXSpaceBytes(bytes, "again.xplane.pb", diag, every);
  std::vector<int64_t> expected;
  for (const Event& e : whole.planes[0].lines[1].events)
    if (whole.EventName(whole.planes[0], e) == "MemoryAllocation") expected.push_back(e.start_ps);
  REQUIRE(expected.size() == allocation_offsets.size());
  // The events' times count from the timestamp that came last.
  CHECK(expected.front() == 2'000);
  for (bool by_offsets : {true, false}) {
    INFO("by offsets " << by_offsets);
    const Host h = Read(bytes, MemoryAlone(), 4, 2, by_offsets);
    const Line& read = h.planes[0].lines[1];
    std::vector<int64_t> starts;
    for (const Event& e : read.events) starts.push_back(e.start_ps);
    CHECK(starts == expected);
    CHECK(h.planes[0].EventsLeftOut() == 41 - allocation_offsets.size());
    CHECK(h.planes[0].left_out_group_ids == std::vector<int64_t>{100, 101, 102, 103});
    size_t records = 0;
    for (const AllocatorRecordBlock& block : h.planes[0].allocator_records) records += block.records.size();
    CHECK(records == allocation_offsets.size());
  }
}

TEST_CASE("Memory alone reads every event of a capture whose events left out hold no group id", "[xplane][filter]") {
  // Grouping reads a capture's own groups only when some event has one;
  // with none among those left out it could build its forest instead, from
  // every event: the reader reads the capture again, whole.
  XSpaceBuilder space;
  auto& host = space.Plane("/host:CPU", 0);
  host.Line(1, "tf_Compute", 1'000)
      .Event("MatMul:MatMul", 0, 2'000, {{"tf_op", Ref{"dense/MatMul:MatMul"}}})
      .Event("MemoryAllocation", 100, 0, Allocation(1))
      .Event("Relu:Relu", 3'000, 100, {});
  const Host h = Read(space.Serialize(), MemoryAlone());
  CHECK(h.planes[0].lines[0].events.size() == 3);
  CHECK(h.planes[0].EventsLeftOut() == 0);
  CHECK(h.planes[0].left_out_group_ids.empty());
}

TEST_CASE("Memory alone reads every event of a capture with a TF1 session.run line", "[xplane][filter]") {
  // That line's events are the steps (GroupTf1SessionRuns), whatever their
  // stats.
  XSpaceBuilder space;
  auto& host = space.Plane("/host:CPU", 0);
  host.Line(kTf1SessionRunLineId, "session.run", 1'000).Event("session.run", 0, 9'000, {{"group_id", int64_t{4}}});
  host.Line(1, "tf_Compute", 1'000)
      .Event("MatMul:MatMul", 0, 2'000, {{"group_id", int64_t{4}}})
      .Event("MemoryAllocation", 100, 0, Allocation(4));
  const Host h = Read(space.Serialize(), MemoryAlone());
  CHECK(h.planes[0].lines[0].events.size() == 1);
  CHECK(h.planes[0].lines[1].events.size() == 2);
  CHECK(h.planes[0].EventsLeftOut() == 0);
}

TEST_CASE("Memory alone reads only the allocator events of a host whose names give no step", "[xplane][filter]") {
  // No group_id, no root (_r, TraceContext, ...), no ProfilerStep#N: as a
  // JAX capture. Grouping finds no step there, so every other event is left
  // out by its name, its stats unread, and no group id is kept aside.
  XSpaceBuilder no_groups;
  no_groups.Plane("/host:CPU", 0)
      .Line(1, "tf_Compute", 1'000)
      .Event("MatMul:MatMul", 0, 2'000, {{"tf_op", Ref{"m"}}})
      .Event("MemoryAllocation", 100, 0,
             {{"allocator_name", std::string("GPU_0_bfc")}, {"bytes_allocated", int64_t{1}}})
      .Event("jit_step", 200, 50, {})
      .Event("MemoryDeallocation", 300, 0,
             {{"allocator_name", std::string("GPU_0_bfc")}, {"bytes_allocated", int64_t{0}}});
  const Host h = Read(no_groups.Serialize(), MemoryAlone());
  const Plane& cpu = h.planes[0];
  CHECK(Names(h, cpu.lines[0]) == std::vector<std::string>{"MemoryAllocation", "MemoryDeallocation"});
  CHECK(cpu.lines[0].events[0].start_ps == 100);  // From the line's start, the time origin.
  CHECK(cpu.lines[0].events_left_out == 2);
  CHECK(cpu.left_out_group_ids.empty());
  CHECK(h.allocator_events_skipped == 0);
  // Their stats as records, as when grouped.
  size_t records = 0;
  for (const AllocatorRecordBlock& block : cpu.allocator_records) records += block.records.size();
  CHECK(records == 2);
  CHECK(cpu.allocator_records_complete);

  // Any name that may give a step keeps every event: a root-level stat, a
  // root's name, a TF1 loop's executor, PyTorch's step marker.
  const std::vector<std::pair<std::string, StatList>> markers = {{"train", {{"_r", int64_t{1}}}},
                                                                 {"TraceContext", {}},
                                                                 {"ExecutorState::Process", {}},
                                                                 {"ProcessBatch", {}},
                                                                 {"OrbaxServing::ProcessBatch", {}},
                                                                 {"BatchingSessionRun", {}},
                                                                 {"ProfilerStep#3", {}}};
  for (const auto& [name, stats] : markers) {
    INFO(name);
    XSpaceBuilder marked;
    OpAndAllocation(marked).Event(name, 200, 50, stats);
    const Host all = Read(marked.Serialize(), MemoryAlone());
    CHECK(all.planes[0].lines[0].events.size() == 3);
    CHECK(all.planes[0].EventsLeftOut() == 0);
  }
}

TEST_CASE("Memory alone reads a host again whole when a plane after its threads' may give it steps",
          "[xplane][filter]") {
  // The host threads' plane comes first and has no step name, so its other
  // events are left out; a device plane read after it has a root-level
  // stat: grouping could find steps in the host's events, which are read
  // again.
  XSpaceBuilder space;
  OpAndAllocation(space);
  space.Plane("/device:GPU:0", 1).Line(7, "Stream #7", 1'000).Event("gemm", 0, 10, {{"_r", int64_t{1}}});
  const Host h = Read(space.Serialize(), MemoryAlone());
  CHECK(h.planes[0].lines[0].events.size() == 2);
  CHECK(h.planes[0].EventsLeftOut() == 0);
}

TEST_CASE("Memory alone leaves nothing out of a host without allocator events", "[xplane][filter]") {
  XSpaceBuilder no_allocator;
  no_allocator.Plane("/host:CPU", 0)
      .Line(1, "tf_Compute", 1'000)
      .Event("MatMul:MatMul", 0, 2'000, {{"group_id", int64_t{1}}})
      .Event("Relu:Relu", 100, 10, {{"group_id", int64_t{1}}});
  const Host h = Read(no_allocator.Serialize(), MemoryAlone());
  CHECK(h.planes[0].lines[0].events.size() == 2);
  CHECK(h.planes[0].EventsLeftOut() == 0);
}

TEST_CASE("Memory alone keeps an event whose stat it cannot place, so that decoding says what is wrong",
          "[xplane][filter][bad]") {
  // A stat naming no stat metadata: the event is decoded, and refused.
  XSpaceBuilder space;
  space.Plane("/host:CPU", 0)
      .Line(1, "tf_Compute", 1'000)
      .Event("MatMul:MatMul", 0, 2'000, {{"group_id", int64_t{1}}, {"tf_op", Ref{"m"}}})
      .Event("MemoryAllocation", 100, 0, Allocation(1));
  space.proto().mutable_planes(0)->mutable_lines(0)->mutable_events(0)->mutable_stats(1)->set_metadata_id(999);
  const std::string bytes = space.Serialize();
  CHECK_THROWS_WITH(Read(bytes, MemoryAlone()), Catch::Contains("stat metadata id 999"));
}

TEST_CASE("Memory alone keeps an event with a stat written otherwise than protobuf writes one", "[xplane][filter]") {
  // A stat whose metadata id comes again after its value: the decoder takes
  // the last id (group_id here), so the event's group is 5, and it is kept.
  using tfprof::testing::wire::BytesField;
  using tfprof::testing::wire::VarintField;
  auto stat_metadata = [](int id, const std::string& name) {
    return BytesField(5, VarintField(1, id) + BytesField(2, VarintField(1, id) + BytesField(2, name)));
  };
  auto event_metadata = [](int id, const std::string& name) {
    return BytesField(4, VarintField(1, id) + BytesField(2, VarintField(1, id) + BytesField(2, name)));
  };
  auto event = [](int meta, int offset, const std::string& stats) {
    return BytesField(4, VarintField(1, meta) + VarintField(2, offset) + VarintField(3, 0) + stats);
  };
  const std::string group_of_5 = BytesField(4, VarintField(1, 1) + VarintField(4, 5));
  const std::string twice = BytesField(4, VarintField(1, 2) + VarintField(4, 5) + VarintField(1, 1));
  const std::string group_of_7 = BytesField(4, VarintField(1, 1) + VarintField(4, 7));
  const std::string line = VarintField(1, 1) + BytesField(2, "t") + event(1, 10, group_of_5) + event(2, 20, twice) +
                           event(2, 30, group_of_7);
  const std::string bytes = BytesField(1, VarintField(1, 1) + BytesField(2, "/host:CPU") + BytesField(3, line) +
                                              event_metadata(1, "MemoryAllocation") + event_metadata(2, "Op:Op") +
                                              stat_metadata(1, "group_id") + stat_metadata(2, "tf_op"));
  const Host h = Read(bytes, MemoryAlone());
  const Line& read = h.planes[0].lines[0];
  REQUIRE(read.events.size() == 2);
  CHECK(read.events[1].start_ps == 20);
  const StatFinder group_id(h, h.planes[0], "group_id");
  CHECK(group_id.In(read.EventStats(1))->AsInt() == 5);
  CHECK(h.planes[0].EventsLeftOut() == 1);
  CHECK(h.planes[0].left_out_group_ids == std::vector<int64_t>{7});
}

TEST_CASE("Memory alone leaves out of a real capture grouped when taken exactly the events its rule names",
          "[xplane][filter][corpus]") {
  // The T4 Keras capture: TensorFlow grouped it when taken. Counted on the
  // whole model: the host events that are no allocator events, hold one
  // integer group_id and no step_name (the wire-level conditions hold for
  // every event protobuf wrote).
  const std::string path = tfprof::testing::CorpusPath(
      "e4040-2023fall-assign2-hd2551/logs/fit/20231107-181856/train/plugins/profile/2023_11_07_18_18_59/"
      "instance-2.xplane.pb");
  if (path.empty()) {
    tfprof::testing::SkipTest("no corpus (set TFPROF_CORPUS)");
    return;
  }
  ReadOptions whole_options;
  Diagnostics diag;
  const Host whole = ReadXSpaceFile(path, diag, whole_options);
  const Plane* cpu = whole.FindPlane(schema::kHostThreadsPlane);
  REQUIRE(cpu);
  const StatFinder group_id(whole, *cpu, "group_id"), step_name(whole, *cpu, "step_name");
  uint64_t expected = 0, allocator = 0;
  std::vector<int64_t> ids;
  for (const Line& line : cpu->lines)
    for (size_t e = 0; e < line.events.size(); ++e) {
      if (schema::IsAllocatorEvent(whole.EventName(*cpu, line.events[e]))) {
        ++allocator;
        continue;
      }
      int groups = 0;
      bool integer = true;
      for (const Stat& s : line.EventStats(e))
        if (group_id.In(std::span<const Stat>(&s, 1))) {
          ++groups;
          integer = s.type() == StatType::kInt64 || s.type() == StatType::kUint64;
        }
      if (step_name.In(line.EventStats(e)) || groups > 1 || !integer) continue;
      ++expected;
      if (groups == 1) ids.push_back(group_id.In(line.EventStats(e))->AsInt());
    }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  REQUIRE(expected > 100);
  const Host memory = ReadFileAsMemoryAlone(path);
  const Plane* read = memory.FindPlane(schema::kHostThreadsPlane);
  REQUIRE(read);
  CHECK(read->EventsLeftOut() == expected);
  CHECK(read->EventCount() + expected == cpu->EventCount());
  CHECK(read->left_out_group_ids == ids);
  CHECK(allocator > 0);
}

TEST_CASE("Memory alone reads only the allocator events of a real JAX capture, which gives no step",
          "[xplane][filter][corpus]") {
  // JAX 0.8 on an MI300X: no group ids, roots or ProfilerStep#N. Counted on
  // the whole model: every host event but the allocator events is left out.
  const std::string path = tfprof::testing::CorpusPath("tracelens/mi300/jax08_attention/tw003.xplane.pb");
  if (path.empty()) {
    tfprof::testing::SkipTest("no corpus (set TFPROF_CORPUS)");
    return;
  }
  Diagnostics diag;
  const Host whole = ReadXSpaceFile(path, diag, ReadOptions());
  const Plane* cpu = whole.FindPlane(schema::kHostThreadsPlane);
  REQUIRE(cpu);
  uint64_t allocator = 0;
  for (const Line& line : cpu->lines)
    for (const Event& e : line.events) allocator += schema::IsAllocatorEvent(whole.EventName(*cpu, e));
  REQUIRE(allocator > 100);
  REQUIRE(cpu->EventCount() > 2 * allocator);
  const Host memory = ReadFileAsMemoryAlone(path);
  const Plane* read = memory.FindPlane(schema::kHostThreadsPlane);
  REQUIRE(read);
  CHECK(read->EventCount() == allocator);
  CHECK(read->EventsLeftOut() == cpu->EventCount() - allocator);
  CHECK(read->left_out_group_ids.empty());
  CHECK(read->allocator_records_complete);
  size_t records = 0;
  for (const AllocatorRecordBlock& block : read->allocator_records) records += block.records.size();
  CHECK(records == allocator);
}
