// The XSpace reader's event-stat filter (ReadOptions::event_stats): stats no
// analysis reads are dropped and counted, the kept ones stay intact, plane
// and event-metadata stats are never dropped, and a corrupt stat is refused
// whether it would be kept or not.
#include <catch2/catch.hpp>

#include <string>

#include "lib/model/diagnostic_kinds.h"
#include "lib/model/errors.h"
#include "lib/model/stat_finder.h"
#include "lib/read/xplane_reader.h"
#include "tests/support/model_lookup.h"
#include "tests/support/xspace_builder.h"

using namespace tfprof;
using tfprof::testing::EventStat;
using tfprof::testing::Ref;
using tfprof::testing::XSpaceBuilder;

namespace {

// What a command reading kernels and ops would keep (the real lists are
// lib/summary/analysed_event_stats.cc's).
const EventStatFilter kAnalysed = EventStatFilter::Only({"correlation_id", "tf_op", "kernel_details", "step_name"});
const EventStatFilter kAll;
const EventStatFilter kNone = EventStatFilter::Only({});

Host Read(const std::string& bytes, const EventStatFilter& kept, Diagnostics& diag) {
  ReadOptions options;
  options.event_stats = kept;
  return ReadXSpaceBytes(bytes, "filter.xplane.pb", diag, options);
}

// A host line with analysed stats (correlation_id, tf_op as a ref) mixed
// with stats no analysis reads (a string, a double, an int, in between), a
// GPU plane with plane stats and an event-metadata stat of an unanalysed
// name.
XSpaceBuilder MixedCapture() {
  XSpaceBuilder space;
  auto& host = space.Plane("/host:CPU", 0);
  host.Line(1, "python3", 1'000)
      .Event("MatMul:MatMul", 0, 2'000,
             {{"python_source", std::string("model.py:12")},
              {"correlation_id", uint64_t{42}},
              {"memory_footprint", 1.5},
              {"tf_op", Ref{"dense/MatMul:MatMul"}},
              {"thread_priority", int64_t{7}}})
      .Event("idle", 3'000, 10, {{"python_source", std::string("model.py:13")}})
      .Event("Relu:Relu", 4'000, 100, {{"tf_op", Ref{"dense/Relu:Relu"}}});
  auto& gpu = space.Plane("/device:GPU:0", 1);
  gpu.Stat("gpu_device_name", std::string("Tesla T4")).Stat("clock_rate", int64_t{1'590'000});
  gpu.Line(7, "Stream #7(Compute)", 1'000)
      .Event("sgemm", 500, 1'000,
             {{"occupancy_hint", 0.25}, {"kernel_details", std::string("regs:64 grid:2,1,1 block:256,1,1")}});
  // An event-metadata stat of a name no analysis reads on events: kept.
  auto& meta = (*gpu.proto()->mutable_event_metadata())[gpu.EventMetadataId("sgemm")];
  gpu.FillStat(meta.add_stats(), "launch_site", std::string("conv.cu"));
  return space;
}

}  // namespace

TEST_CASE("XPlane reader drops the event stats no analysis reads, counts them, keeps the rest intact",
          "[xplane][filter]") {
  const std::string bytes = MixedCapture().Serialize();
  Diagnostics all_diag, some_diag;
  const Host all = Read(bytes, kAll, all_diag);
  const Host some = Read(bytes, kAnalysed, some_diag);
  CHECK(all.event_stats_dropped == 0);
  // python_source x2, memory_footprint, thread_priority, occupancy_hint.
  CHECK(some.event_stats_dropped == 5);

  const Plane& cpu = some.planes.at(0);
  const Line& py = cpu.lines.at(0);
  REQUIRE(py.events.size() == 3);
  CHECK(all.planes[0].lines[0].stats.size() == 7);
  REQUIRE(py.stats.size() == 3);
  // The kept stats in their order, each with its own event.
  REQUIRE(py.EventStats(0).size() == 2);
  CHECK(EventStat(some, cpu, py, 0, "correlation_id")->AsUint() == 42);
  CHECK(EventStat(some, cpu, py, 0, "correlation_id")->type() == StatType::kUint64);
  CHECK(some.Str(EventStat(some, cpu, py, 0, "tf_op")->AsString()) == "dense/MatMul:MatMul");
  CHECK(py.EventStats(1).empty());
  REQUIRE(py.EventStats(2).size() == 1);
  CHECK(some.Str(EventStat(some, cpu, py, 2, "tf_op")->AsString()) == "dense/Relu:Relu");
  // The names stay known (an analysis asking for one finds no value, as
  // when an event lacks it); a dropped string value is not even interned.
  CHECK(cpu.FindStatKey(some.strings, "python_source"));
  CHECK_FALSE(EventStat(some, cpu, py, 0, "python_source"));
  CHECK(all.strings.Find("model.py:12") != StringPool::kNotFound);
  CHECK(some.strings.Find("model.py:12") == StringPool::kNotFound);

  const Plane& gpu = some.planes.at(1);
  const Line& stream = gpu.lines.at(0);
  REQUIRE(stream.EventStats(0).size() == 1);
  CHECK(some.Str(EventStat(some, gpu, stream, 0, "kernel_details")->AsString()) == "regs:64 grid:2,1,1 block:256,1,1");
  // Plane stats and event-metadata stats are all kept.
  CHECK(gpu.plane_stats.size() == 2);
  CHECK(gpu.device.name == "Tesla T4");
  CHECK(gpu.device.clock_rate_khz == 1'590'000);
  const StatFinder launch_site(some, gpu, "launch_site");
  CHECK(some.Str(launch_site.InEventOrMetadata(gpu, stream, 0)->AsString()) == "conv.cu");
  CHECK(some_diag.empty());
  CHECK(all_diag.empty());
}

TEST_CASE("XPlane reader keeps no event stat for kNone, and every one for the default", "[xplane][filter]") {
  const std::string bytes = MixedCapture().Serialize();
  Diagnostics diag;
  const Host none = Read(bytes, kNone, diag);
  CHECK(none.event_stats_dropped == 9);  // 7 on the host line, 2 on the stream.
  CHECK(none.planes[0].lines[0].stats.empty());
  CHECK(none.planes[1].lines[0].stats.empty());
  CHECK(none.planes[1].plane_stats.size() == 2);
  CHECK(none.planes[0].lines[0].events.size() == 3);
  const Host fallback = ReadXSpaceBytes(bytes, "filter.xplane.pb", diag);  // ReadOptions{}: keep all.
  CHECK(fallback.event_stats_dropped == 0);
  CHECK(fallback.planes[0].lines[0].stats.size() == 7);
}

TEST_CASE("XPlane reader checks dropped event stats like kept ones", "[xplane][filter][bad]") {
  SECTION("a dropped stat without a value is still counted") {
    XSpaceBuilder space;
    auto& p = space.Plane("/host:CPU");
    p.Line(1, "t").Event("e", 0, 10, {{"python_source", std::string("x")}});
    p.proto()->mutable_lines(0)->mutable_events(0)->mutable_stats(0)->clear_str_value();
    Diagnostics all_diag, some_diag;
    Read(space.Serialize(), kAll, all_diag);
    const Host some = Read(space.Serialize(), kAnalysed, some_diag);
    CHECK(all_diag.Count("xplane.stat_without_value") == 1);
    CHECK(some_diag.Count("xplane.stat_without_value") == 1);
    CHECK(some.event_stats_dropped == 1);
  }
  SECTION("a dropped string stat whose ref points nowhere is refused") {
    XSpaceBuilder space;
    auto& p = space.Plane("/host:CPU");
    p.Line(1, "t").Event("e", 0, 10, {{"python_source", Ref{"x"}}});
    p.proto()->mutable_lines(0)->mutable_events(0)->mutable_stats(0)->set_ref_value(12345);
    Diagnostics diag;
    CHECK_THROWS_AS(Read(space.Serialize(), kAnalysed, diag), InputError);
  }
  SECTION("a stat of no stat metadata is refused") {
    XSpaceBuilder space;
    auto& p = space.Plane("/host:CPU");
    p.Line(1, "t").Event("e", 0, 10, {{"python_source", std::string("x")}});
    p.proto()->mutable_lines(0)->mutable_events(0)->mutable_stats(0)->set_metadata_id(999);
    Diagnostics diag;
    CHECK_THROWS_AS(Read(space.Serialize(), kAnalysed, diag), InputError);
  }
}

TEST_CASE("XPlane reader filters event stats the same on the parallel path", "[xplane][filter]") {
  // Past 8 MB of events the reader decodes chunks of 16,384 events on
  // several threads: a line of 300,000 events, each with a kept and two
  // dropped stats (the string one differs per event, so string values set
  // aside by the threads must stay with their own stat).
  XSpaceBuilder space;
  auto& p = space.Plane("/host:CPU");
  auto line = p.Line(1, "t");
  constexpr int64_t kEvents = 300'000;
  for (int64_t i = 0; i < kEvents; ++i)
    line.Event("e", i * 10, 5,
               {{"python_source", std::string("source line ") + std::to_string(i)},
                {"step_name", std::string("step ") + std::to_string(i)},
                {"device_id", int64_t{i}}});
  const std::string bytes = space.Serialize();
  REQUIRE(bytes.size() > (8u << 20));
  Diagnostics diag;
  const Host h = Read(bytes, kAnalysed, diag);
  CHECK(h.event_stats_dropped == 2 * kEvents);
  const Plane& plane = h.planes[0];
  const Line& l = plane.lines[0];
  REQUIRE(l.events.size() == kEvents);
  REQUIRE(l.stats.size() == kEvents);
  for (int64_t i : {int64_t{0}, int64_t{65'535}, int64_t{65'536}, int64_t{200'001}, kEvents - 1}) {
    INFO(i);
    REQUIRE(l.EventStats(i).size() == 1);
    CHECK(h.Str(EventStat(h, plane, l, i, "step_name")->AsString()) == "step " + std::to_string(i));
  }
}

namespace {

// A GPU plane as TensorFlow writes it: a stream, then lines the profiler
// derived from it (TensorFlow Ops, Name Scope) and the Steps line, ids in
// the 0xdeadbeef block. The derived lines come first in the file, so they
// set the host's time origin and meet --max-events first.
XSpaceBuilder DerivedLinesCapture() {
  XSpaceBuilder space;
  auto& gpu = space.Plane("/device:GPU:0", 1);
  const auto derived = [](uint32_t id) { return static_cast<int64_t>(static_cast<int32_t>(id)); };
  gpu.Line(derived(0xdeadbeef + 3), "TensorFlow Ops", 1'000)
      .Event("dense/MatMul", 0, 900, {{"tf_op", Ref{"dense/MatMul:MatMul"}}})
      .Event("dense/Relu", 1'000, 50);
  gpu.Line(derived(0xdeadbeef + 2), "TensorFlow Name Scope", 1'000).Event("dense", 0, 1'050);
  gpu.Line(derived(0xdeadbeef), "Steps", 1'000).Event("1", 0, 2'000, {{"group_id", int64_t{1}}});
  gpu.Line(7, "Stream #7(Compute)", 1'001)
      .Event("sgemm", 0, 800, {{"correlation_id", uint64_t{5}}})
      .Event("relu", 1'000, 40, {{"correlation_id", uint64_t{6}}});
  return space;
}

}  // namespace

TEST_CASE("XPlane reader leaves derived lines' events undecoded when asked, but the Steps line", "[xplane][filter]") {
  const std::string bytes = DerivedLinesCapture().Serialize();
  EventStatFilter analysed = kAnalysed;
  analysed.keep_derived_line_events = false;
  Diagnostics diag;
  const Host all = Read(bytes, kAll, diag);
  const Host some = Read(bytes, analysed, diag);
  CHECK(all.derived_lines_skipped == 0);
  CHECK(some.derived_lines_skipped == 2);  // TensorFlow Ops and Name Scope.
  const Plane& gpu = some.planes.at(0);
  REQUIRE(gpu.lines.size() == 4);
  // Every line is there with its own fields; only the events are left out.
  CHECK(some.LineName(gpu.lines[0]) == "TensorFlow Ops");
  CHECK(gpu.lines[0].events.empty());
  CHECK(gpu.lines[1].events.empty());
  REQUIRE(gpu.lines[2].events.size() == 1);  // Steps: grouped captures read it.
  CHECK(some.Str(gpu.event_metadata[gpu.lines[2].events[0].metadata].name) == "1");
  REQUIRE(gpu.lines[3].events.size() == 2);
  // The time origin is the first line's, read or not: the stream's events
  // start where they do in the whole read.
  CHECK(some.time_origin_ns == all.time_origin_ns);
  CHECK(gpu.lines[3].events[1].start_ps == all.planes[0].lines[3].events[1].start_ps);
  CHECK(gpu.lines[3].events[1].start_ps == 2'000);
  CHECK(gpu.lines[3].stats.size() == 2);
  CHECK(diag.empty());
}

TEST_CASE("XPlane reader counts skipped derived events against --max-events as read ones", "[xplane][filter]") {
  const std::string bytes = DerivedLinesCapture().Serialize();
  EventStatFilter analysed = kAnalysed;
  analysed.keep_derived_line_events = false;
  ReadOptions options;
  options.max_events = 5;  // Three derived, the Steps event, one kernel.
  Diagnostics all_diag, some_diag;
  const Host all = ReadXSpaceBytes(bytes, "filter.xplane.pb", all_diag, options);
  options.event_stats = analysed;
  const Host some = ReadXSpaceBytes(bytes, "filter.xplane.pb", some_diag, options);
  CHECK(all.planes[0].lines[3].events.size() == 1);
  CHECK(some.planes[0].lines[3].events.size() == 1);
  CHECK(some.derived_lines_skipped == 2);
  CHECK(all_diag.Count(diag_kind::kReadMaxEventsReached.id) == 1);
  CHECK(some_diag.Count(diag_kind::kReadMaxEventsReached.id) == 1);
}

TEST_CASE("XPlane reader refuses a corrupt event in a derived line only where it reads the line", "[xplane][filter]") {
  // An event naming event metadata its plane lacks: corrupt. A command that
  // leaves the line's events unread never meets it (nor frames them). The
  // line's own length is still checked, and a truncated capture refused.
  XSpaceBuilder space = DerivedLinesCapture();
  space.proto().mutable_planes(0)->mutable_lines(1)->mutable_events(0)->set_metadata_id(999);
  const std::string bytes = space.Serialize();
  EventStatFilter analysed = kAnalysed;
  analysed.keep_derived_line_events = false;
  Diagnostics diag;
  CHECK_THROWS_WITH(Read(bytes, kAll, diag), Catch::Contains("event metadata id 999"));
  CHECK(Read(bytes, analysed, diag).derived_lines_skipped == 2);
  CHECK_THROWS_AS(Read(bytes.substr(0, bytes.size() - 3), analysed, diag), InputError);
}

namespace {

using tfprof::testing::wire::BytesField;
using tfprof::testing::wire::VarintField;

EventStatFilter LeavingAllocatorEventsOut() {
  EventStatFilter kept = kAnalysed;
  kept.keep_allocator_events = false;
  return kept;
}

// Allocator events between two ops on a host thread (as BFC writes them:
// instants with a dozen stats), and an event of the same name on a GPU
// plane, which is no allocator event there.
XSpaceBuilder AllocatorCapture() {
  XSpaceBuilder space;
  auto& host = space.Plane("/host:CPU", 0);
  const tfprof::testing::StatList allocation = {{"allocator_name", std::string("GPU_0_bfc")},
                                                {"bytes_allocated", int64_t{4096}},
                                                {"tf_op", Ref{"dense/MatMul:MatMul"}},
                                                {"region_type", std::string("output")}};
  host.Line(1, "tf_Compute", 1'000)
      .Event("MatMul:MatMul", 0, 2'000, {{"tf_op", Ref{"dense/MatMul:MatMul"}}, {"correlation_id", uint64_t{3}}})
      .Event("MemoryAllocation", 100, 0, allocation)
      .Event("MemoryDeallocation", 1'500, 0, allocation)
      .Event("Relu:Relu", 3'000, 100, {{"tf_op", Ref{"dense/Relu:Relu"}}});
  auto& gpu = space.Plane("/device:GPU:0", 1);
  gpu.Line(7, "Stream #7(Compute)", 1'000).Event("MemoryAllocation", 0, 10, {{"correlation_id", uint64_t{3}}});
  return space;
}

}  // namespace

TEST_CASE("XPlane reader leaves the host's allocator events out of its lines when asked", "[xplane][filter]") {
  const std::string bytes = AllocatorCapture().Serialize();
  Diagnostics diag;
  const Host all = Read(bytes, kAnalysed, diag);
  const Host some = Read(bytes, LeavingAllocatorEventsOut(), diag);
  CHECK(all.allocator_events_skipped == 0);
  CHECK(some.allocator_events_skipped == 2);
  REQUIRE(all.planes[0].lines[0].events.size() == 4);
  const Line& line = some.planes[0].lines[0];
  REQUIRE(line.events.size() == 2);
  // The ops keep their times and their own stats, the stats of the events
  // left out between them gone.
  CHECK(some.Str(some.planes[0].event_metadata[line.events[0].metadata].name) == "MatMul:MatMul");
  CHECK(some.Str(some.planes[0].event_metadata[line.events[1].metadata].name) == "Relu:Relu");
  CHECK(line.events[1].start_ps == all.planes[0].lines[0].events[3].start_ps);
  CHECK(line.events[1].start_ps == 3'000);
  CHECK(line.stats.size() == 3);
  const StatFinder tf_op(some, some.planes[0], "tf_op");
  CHECK(some.Str(tf_op.In(line.EventStats(1))->AsString()) == "dense/Relu:Relu");
  CHECK(tf_op.In(line.EventStats(0))->AsString() != tf_op.In(line.EventStats(1))->AsString());
  // The same name on a device plane is kept.
  CHECK(some.planes[1].lines[0].events.size() == 1);
  // The names stay in the metadata: only the events are left out.
  CHECK(some.planes[0].event_metadata.size() == all.planes[0].event_metadata.size());
  CHECK(diag.empty());
}

TEST_CASE("XPlane reader leaves allocator events out across chunks, each op where it was", "[xplane][filter]") {
  // More events than a decoding chunk holds, every third an allocation:
  // each chunk puts its ops right after the previous chunk's.
  XSpaceBuilder space;
  auto line = space.Plane("/host:CPU", 0).Line(1, "tf_Compute", 0);
  constexpr int64_t kEvents = 150'000;
  for (int64_t i = 0; i < kEvents; ++i) {
    if (i % 3 == 1) line.Event("MemoryAllocation", i * 10, 0, {{"bytes_allocated", i}});
    else line.Event("Op:Op", i * 10, 5, {{"tf_op", i}});
  }
  Diagnostics diag;
  EventStatFilter kept = LeavingAllocatorEventsOut();
  kept.names.push_back("bytes_allocated");
  const Host h = Read(space.Serialize(), kept, diag);
  CHECK(h.allocator_events_skipped == kEvents / 3);
  const Line& read = h.planes[0].lines[0];
  REQUIRE(read.events.size() == kEvents - kEvents / 3);
  REQUIRE(read.stats.size() == read.events.size());
  const StatFinder tf_op(h, h.planes[0], "tf_op");
  bool all_in_place = true;
  for (size_t k = 0; k < read.events.size(); ++k) {
    const int64_t i = static_cast<int64_t>(k / 2 * 3 + k % 2 * 2);  // 0, 2, 3, 5, 6, ...
    auto op = tf_op.In(read.EventStats(k));
    all_in_place = all_in_place && read.events[k].start_ps == i * 10 && op && op->AsInt() == i;
  }
  CHECK(all_in_place);
  CHECK(diag.empty());
}

TEST_CASE("XPlane reader keeps the allocator events of a line --max-events cuts", "[xplane][filter]") {
  const std::string bytes = AllocatorCapture().Serialize();
  ReadOptions options;
  options.max_events = 3;
  options.event_stats = LeavingAllocatorEventsOut();
  Diagnostics diag;
  const Host h = ReadXSpaceBytes(bytes, "filter.xplane.pb", diag, options);
  CHECK(h.allocator_events_skipped == 0);
  CHECK(h.planes[0].lines[0].events.size() == 3);  // MatMul and both allocator events.
  CHECK(h.planes[1].lines[0].events.empty());
  CHECK(diag.Count(diag_kind::kReadMaxEventsReached.id) == 2);  // Relu, and the GPU's event.
}

TEST_CASE("XPlane reader keeps an allocator event whose metadata id is not its first field", "[xplane][filter]") {
  // Every writer puts the metadata id first (protobuf's field order); one
  // that does not is decoded, so the pre-scan and the decoder, which both
  // look at the first field only, agree on the line's count.
  const std::string first = VarintField(1, 1) + VarintField(2, 0) + VarintField(3, 10);
  const std::string second = VarintField(2, 20) + VarintField(1, 1) + VarintField(3, 0);
  const std::string op = VarintField(1, 2) + VarintField(2, 40) + VarintField(3, 5);
  const std::string line =
      VarintField(1, 1) + BytesField(2, "t") + BytesField(4, first) + BytesField(4, second) + BytesField(4, op);
  const std::string metadata =
      BytesField(4, VarintField(1, 1) + BytesField(2, VarintField(1, 1) + BytesField(2, "MemoryAllocation"))) +
      BytesField(4, VarintField(1, 2) + BytesField(2, VarintField(1, 2) + BytesField(2, "Op:Op")));
  const std::string bytes =
      BytesField(1, VarintField(1, 1) + BytesField(2, "/host:CPU") + BytesField(3, line) + metadata);
  Diagnostics diag;
  const Host h = Read(bytes, LeavingAllocatorEventsOut(), diag);
  CHECK(h.allocator_events_skipped == 1);
  const Line& read = h.planes[0].lines[0];
  REQUIRE(read.events.size() == 2);
  CHECK(read.events[0].start_ps == 20);
  CHECK(h.Str(h.planes[0].event_metadata[read.events[0].metadata].name) == "MemoryAllocation");
  CHECK(read.events[1].start_ps == 40);
  CHECK(Read(bytes, kAnalysed, diag).planes[0].lines[0].events.size() == 3);
}

TEST_CASE("XPlane reader never meets a corrupt stat of an allocator event it leaves out", "[xplane][filter]") {
  XSpaceBuilder space = AllocatorCapture();
  space.proto().mutable_planes(0)->mutable_lines(0)->mutable_events(1)->mutable_stats(0)->set_metadata_id(999);
  const std::string bytes = space.Serialize();
  Diagnostics diag;
  CHECK_THROWS_WITH(Read(bytes, kAnalysed, diag), Catch::Contains("stat metadata id 999"));
  CHECK(Read(bytes, LeavingAllocatorEventsOut(), diag).planes[0].lines[0].events.size() == 2);
}

TEST_CASE("XPlane reader skips the lines a command does not read by their length, unless their events come first",
          "[xplane][filter]") {
  // kernel-stats reads no host-thread line: where a line's id and timestamp
  // come before its events (as writers put them), the pre-scan jumps over
  // its events unframed. A line written events first is framed (and skipped
  // all the same). The time origin is the first host line's either way.
  XSpaceBuilder space;
  auto& cpu = space.Plane("/host:CPU", 2);
  cpu.Line(11, "python3", 1'000).Event("train", 0, 5'000).Event("step", 100, 200);
  cpu.Line(12, "tf_Compute", 1'000).Event("MatMul", 50, 30);
  cpu.Line(13, "tf_Compute/2", 1'003).Event("Relu", 10, 20).Event("Relu", 40, 20);
  auto& gpu = space.Plane("/device:GPU:0", 1);
  gpu.Line(7, "Stream #7(Compute)", 1'002).Event("sgemm", 0, 800, {{"correlation_id", uint64_t{5}}});
  // Written after the events (field 9): read only where a line is framed.
  space.proto().mutable_planes(0)->mutable_lines(1)->set_duration_ps(777);
  // Line 13 again by hand: its events, then its id, name, timestamp and
  // duration.
  xplane::XPlane host = space.proto().planes(0);
  const xplane::XLine odd = host.lines(2);
  host.mutable_lines()->RemoveLast();
  std::string odd_bytes;
  for (const auto& e : odd.events()) odd_bytes += tfprof::testing::wire::BytesField(4, e.SerializeAsString());
  odd_bytes += tfprof::testing::wire::VarintField(1, static_cast<uint64_t>(odd.id())) +
               tfprof::testing::wire::BytesField(2, odd.name()) +
               tfprof::testing::wire::VarintField(3, static_cast<uint64_t>(odd.timestamp_ns())) +
               tfprof::testing::wire::VarintField(9, 888);
  const std::string host_bytes = host.SerializeAsString() + tfprof::testing::wire::BytesField(3, odd_bytes);
  const std::string bytes = tfprof::testing::wire::BytesField(1, host_bytes) +
                            tfprof::testing::wire::BytesField(1, space.proto().planes(1).SerializeAsString());

  EventStatFilter device_only = kAll;
  device_only.keep_host_thread_events = false;
  Diagnostics all_diag, some_diag;
  const Host all = Read(bytes, kAll, all_diag);
  const Host some = Read(bytes, device_only, some_diag);
  REQUIRE(all.planes.size() == 2);
  REQUIRE(some.planes.size() == 2);
  CHECK(all.host_thread_lines_skipped == 0);
  CHECK(some.host_thread_lines_skipped == 3);
  const Plane& host_plane = some.planes[0];
  REQUIRE(host_plane.lines.size() == 3);
  for (const Line& line : host_plane.lines) CHECK(line.events.empty());
  // Fields before the events are read, those after them are not: the jump
  // goes to the line's end. The odd line is framed, so all of its are.
  CHECK(some.LineName(host_plane.lines[0]) == "python3");
  CHECK(all.planes[0].lines[1].duration_ps == 777);
  CHECK(host_plane.lines[1].duration_ps == 0);
  CHECK(host_plane.lines[2].id == 13);
  CHECK(some.LineName(host_plane.lines[2]) == "tf_Compute/2");
  CHECK(host_plane.lines[2].duration_ps == 888);
  CHECK(all.planes[0].lines[2].events.size() == 2);
  // The device line as in the whole read: same origin, same times.
  CHECK(some.time_origin_ns == 1'000);
  CHECK(some.time_origin_ns == all.time_origin_ns);
  REQUIRE(some.planes[1].lines[0].events.size() == 1);
  CHECK(some.planes[1].lines[0].events[0].start_ps == all.planes[1].lines[0].events[0].start_ps);
  CHECK(some.planes[1].lines[0].events[0].start_ps == 2'000);  // Its line starts 2 ns after the origin.
  CHECK(some_diag.empty());
  // With --max-events every line is framed: the skipped events count.
  ReadOptions options;
  options.event_stats = device_only;
  options.max_events = 5;  // Five host events, then the kernel is cut.
  Diagnostics cut_diag;
  const Host cut = ReadXSpaceBytes(bytes, "filter.xplane.pb", cut_diag, options);
  CHECK(cut.host_thread_lines_skipped == 3);
  CHECK(cut.planes[0].lines[1].duration_ps == 777);  // Framed: read to its end.
  CHECK(cut.planes[1].lines[0].events.empty());
  CHECK(cut_diag.Count(diag_kind::kReadMaxEventsReached.id) == 1);
}

TEST_CASE("XPlane reader skips every device plane's lines for a command that reads only the host threads",
          "[xplane][filter]") {
  // memory reads the host threads alone: a GPU's and a TPU's lines go
  // unread, a plane that is not a device's (here a host plane of another
  // name) is read. The device plane comes first in the file, so its first
  // line still sets the time origin, as in the whole read.
  XSpaceBuilder space;
  auto& gpu = space.Plane("/device:GPU:0", 1);
  gpu.Line(7, "Stream #7(Compute)", 500).Event("sgemm", 0, 800, {{"correlation_id", uint64_t{5}}});
  gpu.Line(8, "Stream #8(Memcpy)", 600).Event("MemcpyH2D", 10, 20);
  auto& cpu = space.Plane("/host:CPU", 2);
  cpu.Line(11, "python3", 1'000).Event("train", 0, 5'000).Event("MemoryAllocation", 100, 0, {{"addr", uint64_t{64}}});
  auto& tpu = space.Plane("/device:TPU:0", 3);
  tpu.Line(1, "XLA Ops", 900).Event("fusion", 5, 10);
  auto& python = space.Plane("/host:python-tracer", 4);
  python.Line(2, "main", 1'100).Event("fit", 0, 50);
  const std::string bytes = space.Serialize();

  EventStatFilter host_only = kAll;
  host_only.keep_device_events = false;
  Diagnostics all_diag, some_diag;
  const Host all = Read(bytes, kAll, all_diag);
  const Host some = Read(bytes, host_only, some_diag);
  CHECK(all.device_lines_skipped == 0);
  CHECK(some.device_lines_skipped == 3);
  CHECK(some.host_thread_lines_skipped == 0);
  const Plane& g = testing::PlaneNamed(some, "/device:GPU:0");
  REQUIRE(g.lines.size() == 2);
  for (const Line& line : g.lines) CHECK(line.events.empty());
  CHECK(some.LineName(g.lines[1]) == "Stream #8(Memcpy)");
  CHECK(testing::PlaneNamed(some, "/device:TPU:0").lines[0].events.empty());
  // The host planes as in the whole read, on the same origin: the GPU's
  // first line's 500 ns.
  CHECK(all.time_origin_ns == 500);
  CHECK(some.time_origin_ns == 500);
  const Plane& h = testing::PlaneNamed(some, "/host:CPU");
  REQUIRE(h.lines[0].events.size() == 2);
  CHECK(h.lines[0].events[1].start_ps == 500'100);  // 500 ns after the origin, then 100 ps in.
  CHECK(h.lines[0].events[1].start_ps == testing::PlaneNamed(all, "/host:CPU").lines[0].events[1].start_ps);
  CHECK(h.lines[0].EventStats(1).size() == 1);
  REQUIRE(testing::PlaneNamed(some, "/host:python-tracer").lines[0].events.size() == 1);
  CHECK(testing::PlaneNamed(some, "/host:python-tracer").lines[0].events[0].duration_ps == 50);
  CHECK(some_diag.empty());
}

TEST_CASE("XPlane reader leaves a stat out of the host's allocator events only, where asked", "[xplane][filter]") {
  // TensorFlow's pending step id: on every allocator event, read on none
  // (EventStatFilter::not_on_allocator_events). Ops keep theirs, and so does
  // an event of the same name on a GPU plane, which is no allocator event.
  XSpaceBuilder space;
  auto& host = space.Plane("/host:CPU", 0);
  auto allocation = [](int64_t id) -> tfprof::testing::StatList {
    return {{"allocator_name", std::string("GPU_0_bfc")},
            {"bytes_allocated", int64_t{4096}},
            {"tf_op", Ref{"dense/MatMul:MatMul"}},
            {"id", id},
            {"region_type", std::string("output")}};
  };
  host.Line(1, "tf_Compute", 1'000)
      .Event("MatMul:MatMul", 0, 2'000, {{"tf_op", Ref{"dense/MatMul:MatMul"}}, {"id", int64_t{100}}})
      .Event("MemoryAllocation", 100, 0, allocation(101))
      .Event("MemoryDeallocation", 1'500, 0, allocation(102))
      .Event("Relu:Relu", 3'000, 100, {{"tf_op", Ref{"dense/Relu:Relu"}}});
  space.Plane("/device:GPU:0", 1)
      .Line(7, "Stream #7(Compute)", 1'000)
      .Event("MemoryAllocation", 0, 10, {{"id", int64_t{7}}});
  const std::string bytes = space.Serialize();
  EventStatFilter kept = kAnalysed;
  kept.names.push_back("id");
  kept.names.push_back("bytes_allocated");
  kept.not_on_allocator_events = {"id"};
  Diagnostics diag;
  const Host h = Read(bytes, kept, diag);
  const Line& line = h.planes[0].lines[0];
  REQUIRE(line.events.size() == 4);
  const StatFinder id(h, h.planes[0], "id"), bytes_allocated(h, h.planes[0], "bytes_allocated");
  REQUIRE(id.In(line.EventStats(0)));
  CHECK(id.In(line.EventStats(0))->AsInt() == 100);  // MatMul keeps it.
  CHECK_FALSE(id.In(line.EventStats(1)));            // The allocation,
  CHECK_FALSE(id.In(line.EventStats(2)));            // and the free, do not.
  CHECK(bytes_allocated.In(line.EventStats(1))->AsInt() == 4096);
  CHECK(bytes_allocated.In(line.EventStats(2))->AsInt() == 4096);
  // allocator_name and region_type are not asked for; tf_op is, on both.
  CHECK(line.EventStats(1).size() == 2);
  CHECK(h.event_stats_dropped == 2 * 3);  // allocator_name, region_type and id on each allocator event.
  CHECK(StatFinder(h, h.planes[1], "id").In(h.planes[1].lines[0].EventStats(0))->AsInt() == 7);
  // Without the list, every event keeps its id; read whole, too.
  kept.not_on_allocator_events.clear();
  const Host with_ids = Read(bytes, kept, diag);
  CHECK(StatFinder(with_ids, with_ids.planes[0], "id").In(with_ids.planes[0].lines[0].EventStats(1))->AsInt() == 101);
  const Host all = Read(bytes, kAll, diag);
  CHECK(StatFinder(all, all.planes[0], "id").In(all.planes[0].lines[0].EventStats(2))->AsInt() == 102);
  CHECK(diag.empty());
}

TEST_CASE(
    "XPlane reader leaves a stat out of allocator events across chunks and keeps it where the metadata id "
    "comes later",
    "[xplane][filter]") {
  XSpaceBuilder space;
  auto line = space.Plane("/host:CPU", 0).Line(1, "tf_Compute", 0);
  constexpr int64_t kEvents = 150'000;
  for (int64_t i = 0; i < kEvents; ++i) {
    if (i % 3 == 1) line.Event("MemoryAllocation", i * 10, 0, {{"bytes_allocated", i}, {"id", i}});
    else line.Event("Op:Op", i * 10, 5, {{"id", i}});
  }
  EventStatFilter kept = EventStatFilter::Only({"bytes_allocated", "id"});
  kept.not_on_allocator_events = {"id"};
  Diagnostics diag;
  const Host h = Read(space.Serialize(), kept, diag);
  const Line& read = h.planes[0].lines[0];
  REQUIRE(read.events.size() == static_cast<size_t>(kEvents));
  CHECK(read.stats.size() == static_cast<size_t>(kEvents));  // One stat an event either way.
  const StatFinder id(h, h.planes[0], "id"), bytes_allocated(h, h.planes[0], "bytes_allocated");
  bool all_right = true;
  for (size_t k = 0; k < read.events.size(); ++k) {
    const auto stats = read.EventStats(k);
    const bool allocation = k % 3 == 1;
    all_right = all_right && stats.size() == 1 &&
                (allocation ? !id.In(stats) && bytes_allocated.In(stats)->AsInt() == static_cast<int64_t>(k)
                            : id.In(stats)->AsInt() == static_cast<int64_t>(k));
  }
  CHECK(all_right);
  CHECK(h.event_stats_dropped == static_cast<uint64_t>(kEvents / 3));

  // An allocator event written with its metadata id after its offset keeps
  // the stat (as one leaves out the allocator events only when the id
  // comes first).
  const std::string id_stat = BytesField(4, VarintField(1, 7) + VarintField(4, 55));
  const std::string first = VarintField(1, 1) + VarintField(2, 0) + VarintField(3, 0) + id_stat;
  const std::string second = VarintField(2, 20) + VarintField(1, 1) + VarintField(3, 0) + id_stat;
  const std::string bytes = BytesField(
      1, VarintField(1, 1) + BytesField(2, "/host:CPU") +
             BytesField(3, VarintField(1, 1) + BytesField(2, "t") + BytesField(4, first) + BytesField(4, second)) +
             BytesField(4, VarintField(1, 1) + BytesField(2, VarintField(1, 1) + BytesField(2, "MemoryAllocation"))) +
             BytesField(5, VarintField(1, 7) + BytesField(2, VarintField(1, 7) + BytesField(2, "id"))));
  const Host odd = Read(bytes, kept, diag);
  const Line& l = odd.planes[0].lines[0];
  REQUIRE(l.events.size() == 2);
  const StatFinder odd_id(odd, odd.planes[0], "id");
  CHECK_FALSE(odd_id.In(l.EventStats(0)));
  REQUIRE(odd_id.In(l.EventStats(1)));
  CHECK(odd_id.In(l.EventStats(1))->AsInt() == 55);
  CHECK(diag.empty());
}
