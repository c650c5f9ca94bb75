// The XSpace reader keeps allocator events' own stats as typed records for
// commands that build a memory profile (lib/model/allocator_stats.h), and
// leaves them in the stat pools otherwise. The profile must read the same
// from either, under every compatibility mode, however the lines are cut
// into chunks: on captures built in code (strings spelled out and by
// reference, repeated stats, numbers of other types than the reference
// reads, an unsorted line, events written in other field orders) and on a
// real TensorFlow capture.
#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "lib/model/xplane_schema.h"
#include "lib/read/xplane_reader.h"
#include "lib/summary/analysed_event_stats.h"
#include "lib/summary/memory_events_to_profile.h"
#include "tests/support/corpus.h"
#include "tests/support/memory_profile_checks.h"
#include "tests/support/xspace_builder.h"

using namespace tfprof;
using tfprof::testing::Ref;
using tfprof::testing::StatList;
using tfprof::testing::XSpaceBuilder;
using tfprof::testing::wire::BytesField;
using tfprof::testing::wire::VarintField;

namespace {

constexpr int64_t kUs = 1'000'000;  // ps

// Stat metadata ids of the hand-framed plane below.
enum : uint64_t {
  kName = 1,
  kReserved,
  kAllocated,
  kAvailable,
  kFragmentation,
  kPeak,
  kRequested,
  kAllocation,
  kAddr,
  kTfOp,
  kRegion,
  kDataType,
  kShape,
  kIndex,
  kOther,
  kA,  // Named "a": what a reference to the allocator's name points at.
};
const char* const kStatNames[] = {"",
                                  "allocator_name",
                                  "bytes_reserved",
                                  "bytes_allocated",
                                  "bytes_available",
                                  "fragmentation",
                                  "peak_bytes_in_use",
                                  "requested_bytes",
                                  "allocation_bytes",
                                  "addr",
                                  "tf_op",
                                  "region_type",
                                  "data_type",
                                  "shape",
                                  "index_on_host",
                                  "group_id",
                                  "a"};

// XStat fields: 1 metadata id, 2 double, 3 uint64, 4 int64, 5 str, 7 ref.
std::string Int(uint64_t id, int64_t v) {
  return BytesField(4, VarintField(1, id) + VarintField(4, static_cast<uint64_t>(v)));
}
std::string Uint(uint64_t id, uint64_t v) { return BytesField(4, VarintField(1, id) + VarintField(3, v)); }
std::string Str(uint64_t id, const std::string& v) { return BytesField(4, VarintField(1, id) + BytesField(5, v)); }
std::string RefTo(uint64_t id, uint64_t name_id) { return BytesField(4, VarintField(1, id) + VarintField(7, name_id)); }
// The value before the id: the general path.
std::string IntValueFirst(uint64_t id, int64_t v) {
  return BytesField(4, VarintField(4, static_cast<uint64_t>(v)) + VarintField(1, id));
}
std::string State(int64_t heap) {
  return Int(kReserved, 0) + Int(kAllocated, heap) + Int(kAvailable, 1000 - heap) + Int(kAllocation, 64);
}

// XEvent fields: 1 metadata id, 2 offset, 3 duration, 4 stats, 5
// num_occurrences. Metadata: 1 MemoryAllocation, 2 MemoryDeallocation, 3
// an op. Allocator "a", line start 1 us; the events in capture order:
//  0 alloc  10 us  heap 100 at 0x10, tf_op spelled out twice (the last
//                  wins), shape spelled out then an integer (reads empty)
//  1 free   20 us  metadata id after the offset (its stats stay generic),
//                  allocator by reference: releases 0x10
//  2 alloc  30 us  a stat after num_occurrences: heap 200, not 150
//  3 alloc  40 us  op metadata first, then allocator metadata (generic)
//  4 op     45 us  allocator metadata first, then the op's: no allocator
//                  event (its record is skipped)
//  5 alloc  70 us  stats in the general layout; region by reference
//  6 alloc  60 us  (out of order: the line is sorted) named by index 3
//                  after a name; address unsigned, fragmentation an integer
// and on a second line, 80-82 us, three allocations of "opF".
std::string HandFramedSpace() {
  const std::string a = Str(kName, "a");
  std::vector<std::string> events;
  events.push_back(VarintField(1, 1) + VarintField(2, 10 * kUs) + a + State(100) + Int(kAddr, 0x10) +
                   Str(kTfOp, "first") + Str(kShape, "[1]") + Int(kShape, 5) + Str(kTfOp, "opA") + Int(kOther, 7));
  events.push_back(VarintField(2, 20 * kUs) + VarintField(1, 2) + RefTo(kName, kA) + State(36) + Int(kAddr, 0x10));
  events.push_back(VarintField(1, 1) + VarintField(2, 30 * kUs) + a + State(150) + Int(kAddr, 0x20) +
                   Str(kTfOp, "opB") + VarintField(5, 2) + Int(kAllocated, 200));
  events.push_back(VarintField(1, 3) + VarintField(2, 40 * kUs) + a + State(250) + Int(kAddr, 0x30) +
                   Str(kTfOp, "opC") + VarintField(1, 1));
  events.push_back(VarintField(1, 1) + VarintField(2, 45 * kUs) + a + State(999) + VarintField(1, 3));
  events.push_back(VarintField(1, 1) + VarintField(2, 70 * kUs) + IntValueFirst(kReserved, 0) +
                   IntValueFirst(kAllocated, 300) + IntValueFirst(kAvailable, 700) + IntValueFirst(kAllocation, 64) +
                   a + RefTo(kRegion, kShape) + Str(kTfOp, "opD") + Uint(kAddr, 0x40));
  events.push_back(VarintField(1, 1) + VarintField(2, 60 * kUs) + a + Int(kIndex, 3) + State(280) +
                   Int(kFragmentation, 1) + Uint(kAddr, 0x50) + Int(kDataType, 1) + Str(kTfOp, "opE"));
  std::string line = VarintField(1, 1) + BytesField(2, "t") + VarintField(3, 1000);
  for (const std::string& e : events) line += BytesField(4, e);
  // A second line whose timestamp comes again after its events: chunks
  // handed over early are dropped and the line handed over again.
  std::string again = VarintField(1, 2) + BytesField(2, "u") + VarintField(3, 1000);
  for (int i = 0; i < 3; ++i)
    again += BytesField(4, VarintField(1, 1) + VarintField(2, (80 + i) * kUs) + a + State(40 + i) +
                               Int(kAddr, 0x60 + i) + Str(kTfOp, "opF"));
  again += VarintField(3, 1000);
  std::string plane = VarintField(1, 1) + BytesField(2, "/host:CPU") + BytesField(3, line) + BytesField(3, again);
  const char* const event_names[] = {"", "MemoryAllocation", "MemoryDeallocation", "op"};
  for (uint64_t m = 1; m <= 3; ++m)
    plane += BytesField(4, VarintField(1, m) + BytesField(2, VarintField(1, m) + BytesField(2, event_names[m])));
  for (uint64_t id = kName; id <= kA; ++id)
    plane += BytesField(5, VarintField(1, id) + BytesField(2, VarintField(1, id) + BytesField(2, kStatNames[id])));
  return BytesField(1, plane);
}

// Two allocators on three threads, with strings spelled out and by
// reference, odd types and repeats, and steps to group the events in.
XSpaceBuilder BuiltSpace() {
  XSpaceBuilder b;
  auto& cpu = b.Plane("/host:CPU");
  cpu.Line(9, "steps", 1000)
      .Event("train", 0, 50 * kUs, {{"_r", int64_t{1}}, {"step_num", int64_t{1}}})
      .Event("train", 60 * kUs, 50 * kUs, {{"_r", int64_t{1}}, {"step_num", int64_t{2}}});
  for (int t = 0; t < 3; ++t) {
    auto line = cpu.Line(t + 1, "thread_" + std::to_string(t), 1000);
    for (int i = 0; i < 40; ++i) {
      const int64_t time = (i * 5 + t) % 110 * kUs;
      const std::string allocator = (i + t) % 3 == 0 ? "gpu_host_bfc" : "GPU_0_bfc";
      StatList stats = {{"allocator_name", i % 2 ? testing::StatValue(Ref{allocator}) : testing::StatValue(allocator)},
                        {"bytes_reserved", int64_t{0}},
                        {"bytes_allocated", int64_t{(i * 13 + t) % 17 * 1000}},
                        {"bytes_available", i % 4 ? testing::StatValue(int64_t{5000}) : testing::StatValue(5000.0)},
                        {"fragmentation", i % 3 ? testing::StatValue(0.5) : testing::StatValue(int64_t{1})},
                        {"peak_bytes_in_use", int64_t{9000 + i}},
                        {"requested_bytes", uint64_t{100}},
                        {"allocation_bytes", int64_t{128}},
                        {"addr", uint64_t{0x1000} + static_cast<uint64_t>((i / 2) * 4 + t) * 0x100},
                        {"id", int64_t{77}}};
      if (i % 2 == 0) {
        stats.push_back({"tf_op", i % 4 ? testing::StatValue(Ref{"op" + std::to_string(i % 5)})
                                        : testing::StatValue("op" + std::to_string(i % 5))});
        stats.push_back({"region_type", Ref{"output"}});
        stats.push_back({"data_type", int64_t{i % 4}});
        stats.push_back({"shape", "[" + std::to_string(i) + "]"});
        if (i % 6 == 0) stats.push_back({"tf_op", int64_t{3}});  // Repeated: the last wins, and reads empty.
        line.Event("MemoryAllocation", time, 0, stats);
      } else {
        line.Event("MemoryDeallocation", time, 0, stats);
      }
    }
  }
  return b;
}

// The host read with the memory command's stat filter, its allocator
// stats as records or not, in chunks of `chunk_events` (0: whole lines),
// at most `max_events` events (0: all); what the reader said in `d`.
Host ReadWith(const std::string& bytes, bool records, size_t chunk_events, Diagnostics& d, uint64_t max_events = 0) {
  ReadOptions options;
  options.event_stats = EventStatsFor(SummaryPart::kMemory, AnalysisOptions{});
  options.event_stats.allocator_records = records;
  options.max_events = max_events;
  if (chunk_events) {
    options.decode_chunk_events = chunk_events;
    options.decode_threads = 3;
  }
  return ReadXSpaceBytes(bytes, "records.xplane.pb", d, options);
}
Host ReadWith(const std::string& bytes, bool records, size_t chunk_events) {
  Diagnostics d;
  return ReadWith(bytes, records, chunk_events, d);
}

size_t RecordCount(const Host& h) {
  size_t n = 0;
  for (const Plane& p : h.planes)
    for (const AllocatorRecordBlock& b : p.allocator_records) n += b.records.size();
  return n;
}

// The profiles from records and from pooled stats agree, every mode. The
// records are complete (Plane::allocator_records_complete) when every
// allocator event has one and no other event does.
void CheckRecordsReadAsStats(const std::string& bytes, size_t allocator_events, bool complete) {
  for (size_t chunk_events : {size_t{0}, size_t{1}, size_t{2}, size_t{5}}) {
    Diagnostics pooled_read, records_read;
    const Host pooled = ReadWith(bytes, false, chunk_events, pooled_read);
    const Host records = ReadWith(bytes, true, chunk_events, records_read);
    testing::CheckSameDiagnostics(records_read, pooled_read);
    REQUIRE(records.planes.size() == pooled.planes.size());
    CHECK(records.planes[0].allocator_stats_as_records);
    CHECK(records.planes[0].allocator_records_complete == complete);
    CHECK_FALSE(pooled.planes[0].allocator_stats_as_records);
    CHECK(RecordCount(records) == allocator_events);
    CHECK(RecordCount(pooled) == 0);
    for (Compat compat : {Compat::kDefault, Compat::kXprof, Compat::kTfLegacy}) {
      INFO("chunks of " << chunk_events << " events, compat " << static_cast<int>(compat));
      Diagnostics pooled_diag, records_diag;
      const HostMemoryProfile want = BuildMemoryProfile(pooled, MemoryProfileOptionsFor(compat), pooled_diag);
      const HostMemoryProfile got = BuildMemoryProfile(records, MemoryProfileOptionsFor(compat), records_diag);
      REQUIRE_FALSE(want.allocators.empty());
      testing::CheckSameProfile(want, got);
      testing::CheckSameDiagnostics(records_diag, pooled_diag);
      // The capture-order pass in pieces on threads: from records (whole
      // blocks, or events mid-line when they are not complete) as from
      // one piece.
      for (size_t piece : {size_t{1}, size_t{3}, size_t{64}}) {
        for (size_t threads : {size_t{1}, size_t{3}}) {
          INFO("pieces of " << piece << " on " << threads << " threads");
          MemoryProfileOptions options = MemoryProfileOptionsFor(compat);
          options.collect_piece_events = piece;
          options.collect_threads = threads;
          Diagnostics split_diag;
          testing::CheckSameProfile(want, BuildMemoryProfile(records, options, split_diag));
          testing::CheckSameDiagnostics(split_diag, pooled_diag);
        }
      }
    }
  }
  // A read cut by --max-events keeps the records of what it read.
  for (uint64_t max_events : {uint64_t{3}, uint64_t{7}}) {
    INFO("at most " << max_events << " events");
    Diagnostics pooled_read, records_read;
    const Host pooled = ReadWith(bytes, false, 2, pooled_read, max_events);
    const Host records = ReadWith(bytes, true, 2, records_read, max_events);
    testing::CheckSameDiagnostics(records_read, pooled_read);
    Diagnostics pooled_diag, records_diag;
    testing::CheckSameProfile(BuildMemoryProfile(pooled, MemoryProfileOptionsFor(Compat::kDefault), pooled_diag),
                              BuildMemoryProfile(records, MemoryProfileOptionsFor(Compat::kDefault), records_diag));
    testing::CheckSameDiagnostics(records_diag, pooled_diag);
  }
}

}  // namespace

TEST_CASE("Memory profile from allocator records: events framed every way, worked out by hand", "[memory]") {
  const std::string bytes = HandFramedSpace();
  // Records for the eight events whose metadata id comes first (one of
  // them, event 4, turns out to be no allocator event).
  CheckRecordsReadAsStats(bytes, 8, false);
  Diagnostics d;
  const Host h = ReadWith(bytes, true, 2);
  const HostMemoryProfile p = BuildMemoryProfile(h, MemoryProfileOptionsFor(Compat::kDefault), d);
  REQUIRE(p.allocators.size() == 2);
  CHECK(p.allocators[0].memory_id == "3");  // Event 6: the index came last.
  const AllocatorMemoryProfile& a = p.allocators[1];
  CHECK(a.memory_id == "a");
  CHECK(a.allocations == 7);  // Events 0, 2, 3, 5 and the second line's.
  CHECK(a.deallocations == 1);
  REQUIRE(a.timeline.size() == 8);
  CHECK(p.Str(a.timeline[7].op_name) == "opF");
  CHECK(p.Str(a.timeline[0].op_name) == "opA");
  CHECK(p.Str(a.timeline[0].shape).empty());
  CHECK(p.Str(a.timeline[1].op_name) == "opA");  // The free takes its allocation's op.
  CHECK(a.timeline[2].heap_bytes == 200);
  CHECK(p.Str(a.timeline[3].op_name) == "opC");
  CHECK(p.Str(a.timeline[4].region_type) == "shape");  // A reference to a stat's name.
  CHECK(a.timeline[4].address == 0x40);
  CHECK(a.peak_bytes == 300);
  const AllocatorMemoryProfile& three = p.allocators[0];
  REQUIRE(three.timeline.size() == 1);
  CHECK(three.timeline[0].fragmentation == 1.0);
  CHECK(three.timeline[0].address == 0x50);
  // The reference reads an unsigned address and an integer fragmentation as 0.
  Diagnostics x;
  const HostMemoryProfile xprof = BuildMemoryProfile(h, MemoryProfileOptionsFor(Compat::kXprof), x);
  CHECK(xprof.allocators[0].timeline[0].fragmentation == 0.0);
  CHECK(xprof.allocators[0].timeline[0].address == 0);
  CHECK(xprof.allocators[1].timeline[0].address == 0x10);
}

TEST_CASE("Memory profile from allocator records equals the one from pooled stats", "[memory]") {
  CheckRecordsReadAsStats(BuiltSpace().Serialize(), 120, true);
  const std::string real = tfprof::testing::SourcePath(
      "testdata/captures/tf_memory/plugins/profile/2026_11_21_08_22_42/tfprof-capture.xplane.pb");
  Diagnostics d;
  const Host whole = ReadXSpaceFile(real, d);
  size_t allocator_events = 0;
  for (const Line& line : whole.planes[0].lines)
    for (const Event& e : line.events)
      allocator_events += schema::IsAllocatorEvent(whole.Str(whole.planes[0].event_metadata[e.metadata].name));
  CHECK(allocator_events == 115);
  std::ifstream in(real, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(bytes.size() > 1000);
  CheckRecordsReadAsStats(bytes, allocator_events, true);
}

TEST_CASE("AllocatorStats reads each type as the lenient and the strict rule say", "[memory]") {
  using F = AllocatorField;
  double d = 2.75;
  uint64_t d_bits;
  std::memcpy(&d_bits, &d, 8);
  // Integer fields: int64 both ways; uint64, double (truncated) and
  // anything else read 0 under the strict rule; strings and bytes 0 always.
  struct Case {
    Stat stat;
    int64_t lenient, strict;
  };
  const Case cases[] = {{Stat::Int(0, -5), -5, -5},
                        {Stat::Uint(0, 7), 7, 0},
                        {Stat::Make(0, StatType::kDouble, d_bits), 2, 0},
                        {Stat::String(0, 3), 0, 0},
                        {Stat::Make(0, StatType::kBytes, 9), 0, 0}};
  for (F f : {F::kBytesReserved, F::kBytesAllocated, F::kBytesAvailable, F::kPeakBytesInUse, F::kRequestedBytes,
              F::kAllocationBytes, F::kDataType, F::kAddress}) {
    for (const Case& c : cases) {
      INFO("field " << static_cast<int>(f) << " type " << static_cast<int>(c.stat.type()));
      AllocatorStats a;
      a.Set(f, c.stat);
      const int64_t stored = f == F::kBytesReserved     ? a.bytes_reserved
                             : f == F::kBytesAllocated  ? a.bytes_allocated
                             : f == F::kBytesAvailable  ? a.bytes_available
                             : f == F::kPeakBytesInUse  ? a.peak_bytes_in_use
                             : f == F::kRequestedBytes  ? a.requested_bytes
                             : f == F::kAllocationBytes ? a.allocation_bytes
                             : f == F::kDataType        ? a.data_type
                                                        : static_cast<int64_t>(a.address);
      CHECK(a.Int(stored, f, false) == c.lenient);
      CHECK(a.Int(stored, f, true) == c.strict);
      // The last stat of a field decides its type too.
      a.Set(f, Stat::Int(0, 11));
      CHECK(a.odd_types == 0);
    }
  }
  AllocatorStats a;
  a.Set(F::kFragmentation, Stat::Int(0, 1));
  CHECK(a.fragmentation == 1.0);
  CHECK((a.odd_types & AllocatorStats::Bit(F::kFragmentation)) != 0);  // Strict: 0.
  a.Set(F::kFragmentation, Stat::Double(0, 0.5));
  CHECK(a.fragmentation == 0.5);
  CHECK(a.odd_types == 0);
  // Strings: a string id, or empty for any other type.
  a.Set(F::kTfOp, Stat::String(0, 4));
  a.Set(F::kShape, Stat::Int(0, 4));
  CHECK(a.tf_op == 4);
  CHECK(a.shape == StringPool::kEmpty);
  // The allocator: the last of a name and an index.
  a.Set(F::kAllocatorName, Stat::String(0, 6));
  a.Set(F::kDeviceIndex, Stat::Uint(0, 2));
  CHECK(a.memory_is_index);
  CHECK(a.Int(a.memory_value, F::kDeviceIndex, false) == 2);
  CHECK(a.Int(a.memory_value, F::kDeviceIndex, true) == 0);
  a.Set(F::kAllocatorName, Stat::String(0, 6));
  CHECK_FALSE(a.memory_is_index);
  CHECK(a.memory_value == 6);
  CHECK(a.seen == (AllocatorStats::kSeenAllocator));
  for (F f : {F::kBytesReserved, F::kBytesAllocated, F::kBytesAvailable, F::kAllocationBytes})
    a.Set(f, Stat::Int(0, 1));
  CHECK(a.seen == AllocatorStats::kSeenAll);
}

TEST_CASE("Allocator records are kept only for commands that build a memory profile", "[memory][filter]") {
  CHECK(EventStatsFor(SummaryPart::kMemory, {}).allocator_records);
  CHECK(EventStatsFor(SummaryParts::All(), {}).allocator_records);
  CHECK_FALSE(EventStatsFor(SummaryPart::kOps, {}).allocator_records);
  AnalysisOptions xprof;
  xprof.compat = Compat::kXprof;
  // There the host op metrics count allocator events by their tf_op stat.
  CHECK_FALSE(EventStatsFor(SummaryParts::All(), xprof).allocator_records);
  CHECK(EventStatsFor(SummaryPart::kMemory, xprof).allocator_records);
  // Keeping every stat keeps them in the pools.
  const std::string bytes = HandFramedSpace();
  Diagnostics d;
  const Host all = ReadXSpaceBytes(bytes, "all.xplane.pb", d);
  CHECK_FALSE(all.planes[0].allocator_stats_as_records);
  CHECK(RecordCount(all) == 0);
}
