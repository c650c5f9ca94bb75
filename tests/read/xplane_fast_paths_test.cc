// The XSpace reader's shortcuts for the layouts the profiler writes must
// decide and store what its general readings do:
// - PlaneContext::OnlyGroupLeft reads most stats through ShortStat. Stats
//   of every layout, id width, value type and length, well formed and
//   broken, are generated here at random (fixed seed) and both readings
//   compared event by event: verdict and group id.
// - The decoder stores an allocator event's int64 stats, references to
//   names and fragmentation straight into its record
//   (PlaneContext::record_lane). A stat the command drops must stay out of
//   the record; one of another type, or repeated, is read as
//   AllocatorStats::Set reads it: the records are compared with what Set
//   makes of the same events' stats kept in the pool.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "lib/model/allocator_stats.h"
#include "lib/read/xplane_plane_context.h"
#include "lib/read/xplane_reader.h"
#include "tests/support/xspace_builder.h"

using namespace tfprof;
using tfprof::testing::StatList;
using tfprof::testing::XSpaceBuilder;
using tfprof::testing::wire::Varint;

namespace {

// The plane's stat metadata ids (one, two and three varint bytes), and ids
// it does not define.
const std::vector<int64_t> kDefined = {1, 2, 3, 200, 300, 5000, 20000};
const std::vector<uint64_t> kAnyId = {1, 2, 3, 200, 300, 5000, 20000, 4, 201, 70000};
constexpr uint32_t kGroupIdKey = 1;   // id 2
constexpr uint32_t kStepNameKey = 2;  // id 3

// Any id, group_id's more often than others: an event is taken with its
// group id only when it has one.
uint64_t RandomId(std::mt19937_64& rng) { return rng() % 3 == 0 ? 2 : kAnyId[rng() % kAnyId.size()]; }

// A varint of 1 to 10 bytes (a negative int64 takes 10).
uint64_t RandomValue(std::mt19937_64& rng) {
  switch (rng() % 5) {
    case 0: return rng() % 128;
    case 1: return rng() % 20000;
    case 2: return rng() >> (rng() % 64);
    case 3: return static_cast<uint64_t>(-static_cast<int64_t>(rng() % 1000 + 1));
    default: return rng();
  }
}

// A varint in one byte more than it needs (protobuf reads it the same).
std::string Overlong(uint64_t v) {
  std::string out = Varint(v);
  out.back() = static_cast<char>(out.back() | 0x80);
  return out + std::string(1, '\0');
}

// Mostly as protobuf writes a varint, sometimes one byte longer.
std::string AnyVarint(std::mt19937_64& rng, uint64_t v) { return rng() % 16 == 0 ? Overlong(v) : Varint(v); }

std::string RandomBytes(std::mt19937_64& rng, size_t n) {
  std::string out(n, '\0');
  for (char& c : out) c = static_cast<char>(rng());
  return out;
}

// One stat's bytes after the event's stats tag: its length, then its
// fields; mostly as protobuf writes them, sometimes not.
std::string RandomStat(std::mt19937_64& rng) {
  std::string body = Varint(1 << 3) + AnyVarint(rng, RandomId(rng));
  switch (rng() % 8) {
    case 0: body += Varint(4 << 3) + AnyVarint(rng, RandomValue(rng)); break;                         // int64
    case 1: body += Varint(3 << 3) + AnyVarint(rng, RandomValue(rng)); break;                         // uint64
    case 2: body += Varint(7 << 3) + AnyVarint(rng, kAnyId[rng() % kAnyId.size()]); break;            // ref
    case 3: body += Varint((2 << 3) | 1) + RandomBytes(rng, rng() % 8 == 0 ? rng() % 10 : 8); break;  // double
    case 4:
    case 5: {  // str or bytes, up to 200 bytes (a length of one or two bytes)
      const size_t n = rng() % 3 == 0 ? rng() % 201 : rng() % 20;
      body += Varint(((rng() % 2 ? 5 : 6) << 3) | 2) + Varint(n) + RandomBytes(rng, n);
      break;
    }
    case 6: body = Varint(4 << 3) + Varint(RandomValue(rng)) + body; break;  // value first, then the id
    default: body += Varint(rng() % 2 ? (9 << 3) : ((4 << 3) | 2)) + Varint(rng() % 5); break;  // odd field
  }
  if (rng() % 16 == 0) body += Varint(1 << 3) + Varint(kAnyId[rng() % kAnyId.size()]);  // a second id
  std::string stat = Varint(body.size());
  // Sometimes the length in two bytes where one would do.
  if (body.size() < 128 && rng() % 16 == 0) stat = std::string{static_cast<char>(0x80 | body.size()), '\0'};
  return stat + body;
}

// An event's fields after its metadata id: offset, duration, stats.
std::string RandomEvent(std::mt19937_64& rng) {
  std::string out;
  if (rng() % 4) out += Varint(2 << 3) + Varint(RandomValue(rng));
  if (rng() % 4) out += Varint(3 << 3) + Varint(RandomValue(rng));
  for (size_t n = rng() % 6; n > 0; --n) out += Varint((4 << 3) | 2) + RandomStat(rng);
  if (!out.empty() && rng() % 8 == 0) out[rng() % out.size()] = static_cast<char>(rng());  // a byte changed
  if (!out.empty() && rng() % 8 == 0) out.resize(rng() % out.size());                      // cut short
  return out;
}

}  // namespace

// An event read by OnlyGroupLeft with ShortStat's shortcut and by its
// general reading alone. The bytes are exactly the event's, so that a read
// past its end is one a sanitizer build reports.
struct BothReadings {
  bool short_verdict = false, general_verdict = false;
  bool short_group = false, general_group = false;
  int64_t short_id = -1, general_id = -1;
};
BothReadings ReadBothWays(const xplane_wire::PlaneContext& ctx, const std::vector<uint8_t>& bytes) {
  BothReadings r;
  const uint8_t* const end = bytes.data() + bytes.size();
  r.short_verdict = ctx.OnlyGroupLeft<true>(bytes.data(), end, &r.short_group, &r.short_id);
  r.general_verdict = ctx.OnlyGroupLeft<false>(bytes.data(), end, &r.general_group, &r.general_id);
  return r;
}

TEST_CASE("OnlyGroupLeft decides every stat layout as its general reading does", "[xplane][filter]") {
  xplane_wire::PlaneContext ctx;
  ctx.stat_map.Build(kDefined);
  ctx.group_id_key = kGroupIdKey;
  ctx.RefuseEventsWith(kStepNameKey, kDefined.size());
  std::mt19937_64 rng(20261130);
  size_t taken = 0, with_group = 0, differ = 0;
  std::string first_differing;
  for (int i = 0; i < 200'000; ++i) {
    const std::string event = RandomEvent(rng);
    const std::vector<uint8_t> bytes(event.begin(), event.end());
    const auto [short_verdict, general_verdict, short_group, general_group, short_id, general_id] =
        ReadBothWays(ctx, bytes);
    const bool same = short_verdict == general_verdict &&
                      (!short_verdict || (short_group == general_group && (!short_group || short_id == general_id)));
    if (!same && differ++ == 0) {
      for (uint8_t b : bytes) first_differing += fmt::format("{:02x} ", b);
    }
    taken += general_verdict;
    with_group += general_verdict && general_group;
  }
  INFO("first event read differently: " << first_differing);
  INFO("taken " << taken << ", with a group id " << with_group);
  // ShortStat decides most stats itself (else the shortcut would be gone
  // and this test would still pass).
  size_t decided = 0;
  const int stats = 100'000;
  for (int i = 0; i < stats; ++i) {
    const std::string stat = RandomStat(rng);
    const std::vector<uint8_t> bytes(stat.begin(), stat.end());
    const uint8_t* p = bytes.data();
    bool has_group = false;
    int64_t group = 0;
    decided += ctx.ShortStat(p, bytes.data() + bytes.size(), &has_group, &group) !=
               xplane_wire::PlaneContext::Verdict::kGeneral;
  }
  INFO("decided by ShortStat: " << decided << " of " << stats);
  CHECK(decided > stats / 3);
  CHECK(differ == 0);
  // Both verdicts, with and without a group id, are well represented.
  CHECK(taken > 20'000);
  CHECK(taken < 180'000);
  CHECK(with_group > 2'000);
}

TEST_CASE("OnlyGroupLeft on a plane without steps refuses the stats of its table as its general reading does",
          "[xplane][filter]") {
  // As the reader sets it there: no group id to keep, and the stats that
  // make an analysis read an event (EventStatFilter::
  // stats_read_without_steps) refused; here the keys of ids 3 and 300.
  xplane_wire::PlaneContext ctx;
  ctx.stat_map.Build(kDefined);
  ctx.without_steps = true;
  ctx.reads_event_with_stat = {0, 0, 1, 0, 1, 0, 0};  // One per key of kDefined.
  // The same scan refusing none: what it takes that ctx refuses.
  xplane_wire::PlaneContext open = ctx;
  open.reads_event_with_stat.assign(kDefined.size(), 0);
  std::mt19937_64 rng(20261201);
  size_t taken = 0, differ = 0, refused = 0;
  for (int i = 0; i < 200'000; ++i) {
    const std::string event = RandomEvent(rng);
    const std::vector<uint8_t> bytes(event.begin(), event.end());
    const BothReadings r = ReadBothWays(ctx, bytes);
    differ += r.short_verdict != r.general_verdict || r.short_group || r.general_group;
    taken += r.general_verdict;
    refused += !r.general_verdict && ReadBothWays(open, bytes).general_verdict;
  }
  INFO("taken " << taken << ", refused for a stat " << refused);
  CHECK(differ == 0);
  CHECK(taken > 20'000);
  CHECK(refused > 2'000);
}

TEST_CASE("An allocator event's int64 stats go into its record as Set puts them, those dropped stay out",
          "[xplane][memory]") {
  XSpaceBuilder space;
  // Stat ids of two varint bytes (the builder numbers them from 1000).
  const StatList stats = {{"allocator_name", std::string("GPU_0_bfc")},
                          {"bytes_reserved", int64_t{7}},    // dropped: not kept at all
                          {"bytes_available", int64_t{11}},  // dropped: not on allocator events
                          {"bytes_allocated", int64_t{4096}},
                          {"peak_bytes_in_use", uint64_t{9}},  // not an int64: the general path
                          {"requested_bytes", int64_t{5}},
                          {"addr", uint64_t{0x99}},  // unsigned, then signed: the lane clears its mark
                          {"addr", int64_t{0x40}},
                          {"requested_bytes", int64_t{6}},  // again: the last wins
                          {"data_type", int64_t{1}},
                          {"group_id", int64_t{3}}};
  space.Plane("/host:CPU", 0).Line(1, "tf_Compute", 1'000).Event("MemoryAllocation", 100, 0, stats);
  EventStatFilter kept =
      EventStatFilter::Only({"allocator_name", "bytes_allocated", "bytes_available", "peak_bytes_in_use",
                             "requested_bytes", "addr", "data_type", "group_id"});
  kept.not_on_allocator_events = {"bytes_available"};
  kept.allocator_records = true;
  ReadOptions options;
  options.event_stats = kept;
  Diagnostics diag;
  const Host h = ReadXSpaceBytes(space.Serialize(), "lanes.xplane.pb", diag, options);
  const Plane& cpu = h.planes[0];
  REQUIRE(cpu.allocator_records.size() == 1);
  REQUIRE(cpu.allocator_records[0].records.size() == 1);
  const AllocatorStats& r = cpu.allocator_records[0].records[0];
  CHECK(r.bytes_reserved == 0);
  CHECK(r.bytes_available == 0);
  CHECK(r.bytes_allocated == 4096);
  CHECK(r.peak_bytes_in_use == 9);
  CHECK(r.requested_bytes == 6);
  CHECK(r.address == 0x40);
  CHECK(r.data_type == 1);
  CHECK(h.Str(static_cast<StringId>(r.memory_value)) == "GPU_0_bfc");
  // Seen: the allocator and the bytes allocated, not the reserved nor the
  // available bytes (dropped).
  CHECK(r.seen == (AllocatorStats::kSeenAllocator | AllocatorStats::kSeenAllocated));
  // Only the unsigned peak is of another type than the reference reads.
  CHECK(r.odd_types == AllocatorStats::Bit(AllocatorField::kPeakBytesInUse));
  // The group id is no field of the record: it stays in the pool.
  REQUIRE(cpu.lines[0].events.size() == 1);
  CHECK(cpu.lines[0].EventStats(0).size() == 1);
}

TEST_CASE("An allocator event's names and fragmentation go into its record as Set puts them", "[xplane][memory]") {
  XSpaceBuilder space;
  auto line = space.Plane("/host:CPU", 0).Line(1, "tf_Compute", 1'000);
  // Names as references (the lanes) and spelt out (the general path),
  // repeated, dropped (tf_op: not on allocator events), after a device
  // index; the fragmentation as a double (a lane) and as an integer (the
  // general path, an odd type).
  line.Event("MemoryAllocation", 100, 0,
             {{"device_ordinal", int64_t{2}},
              {"allocator_name", testing::Ref{"GPU_0_bfc"}},
              {"bytes_allocated", int64_t{4096}},
              {"fragmentation", 0.25},
              {"tf_op", testing::Ref{"MatMul"}},
              {"region_type", std::string("output")},
              {"shape", testing::Ref{"[2,2]"}},
              {"shape", testing::Ref{"[4]"}},
              {"kernel_name", testing::Ref{"ignored"}},
              {"group_id", int64_t{3}}});
  line.Event("MemoryDeallocation", 200, 0,
             {{"allocator_name", std::string("gpu_host_bfc")},
              {"fragmentation", int64_t{1}},
              {"tf_op", testing::Ref{"Conv2D"}},
              {"region_type", testing::Ref{"temp"}},
              {"allocator_name", testing::Ref{"GPU_0_bfc"}}});
  line.Event("MemoryAllocation", 300, 0,
             {{"allocator_name", testing::Ref{"GPU_0_bfc"}}, {"device_ordinal", int64_t{5}}, {"fragmentation", 0.5}});
  // A reference where a number belongs and a double where an integer
  // does: no lane takes them; the general path reads them as Set does.
  line.Event("MemoryAllocation", 400, 0,
             {{"allocator_name", testing::Ref{"GPU_0_bfc"}},
              {"device_ordinal", testing::Ref{"7"}},
              {"bytes_allocated", 3.5},
              {"shape", std::string("[8]")}});
  const std::string bytes = space.Serialize();
  auto read = [&](bool records) {
    EventStatFilter kept = EventStatFilter::Only({"device_ordinal", "allocator_name", "bytes_allocated",
                                                  "fragmentation", "tf_op", "region_type", "shape", "group_id"});
    kept.not_on_allocator_events = {"tf_op"};
    kept.allocator_records = records;
    ReadOptions options;
    options.event_stats = kept;
    Diagnostics diag;
    return ReadXSpaceBytes(bytes, "lanes.xplane.pb", diag, options);
  };
  const Host with_records = read(true);
  const Host pooled = read(false);
  const Plane& cpu = with_records.planes[0];
  REQUIRE(cpu.allocator_records.size() == 1);
  const std::vector<AllocatorStats>& records = cpu.allocator_records[0].records;
  REQUIRE(records.size() == 4);
  // Set over the pooled stats, field by field as the memory profile reads
  // them (SnapshotReader::Gather).
  const Plane& plain = pooled.planes[0];
  std::vector<AllocatorField> fields;
  for (const StatMetadata& m : plain.stat_metadata) fields.push_back(AllocatorFieldOf(pooled.Str(m.name)));
  for (uint32_t e = 0; e < 4; ++e) {
    INFO("event " << e);
    AllocatorStats expected;
    for (const Stat& stat : plain.lines[0].EventStats(e))
      if (stat.key() < fields.size() && fields[stat.key()] != AllocatorField::kNone)
        expected.Set(fields[stat.key()], stat);
    const AllocatorStats& r = records[e];
    CHECK(r.event == e);
    CHECK(r.memory_is_index == expected.memory_is_index);
    if (r.memory_is_index) CHECK(r.memory_value == expected.memory_value);
    else
      CHECK(with_records.Str(static_cast<StringId>(r.memory_value)) ==
            pooled.Str(static_cast<StringId>(expected.memory_value)));
    CHECK(r.bytes_allocated == expected.bytes_allocated);
    CHECK(r.fragmentation == expected.fragmentation);
    CHECK(with_records.Str(r.tf_op) == pooled.Str(expected.tf_op));
    CHECK(with_records.Str(r.region_type) == pooled.Str(expected.region_type));
    CHECK(with_records.Str(r.shape) == pooled.Str(expected.shape));
    CHECK(r.seen == expected.seen);
    CHECK(r.odd_types == expected.odd_types);
  }
  // And what that is, by hand.
  CHECK(!records[0].memory_is_index);
  CHECK(with_records.Str(static_cast<StringId>(records[0].memory_value)) == "GPU_0_bfc");
  CHECK(records[0].fragmentation == 0.25);
  CHECK(records[0].tf_op == StringPool::kEmpty);  // Dropped.
  CHECK(with_records.Str(records[0].region_type) == "output");
  CHECK(with_records.Str(records[0].shape) == "[4]");
  CHECK(records[0].odd_types == 0);
  CHECK(with_records.Str(static_cast<StringId>(records[1].memory_value)) == "GPU_0_bfc");
  CHECK(records[1].fragmentation == 1.0);
  CHECK(records[1].odd_types == AllocatorStats::Bit(AllocatorField::kFragmentation));
  CHECK(records[1].tf_op == StringPool::kEmpty);
  CHECK(with_records.Str(records[1].region_type) == "temp");
  CHECK(records[2].memory_is_index);
  CHECK(records[2].memory_value == 5);
  CHECK(records[2].fragmentation == 0.5);
  CHECK(records[3].memory_is_index);
  CHECK(records[3].memory_value == 0);  // A string read as a number.
  CHECK(records[3].bytes_allocated == 3);
  CHECK(records[3].odd_types ==
        (AllocatorStats::Bit(AllocatorField::kDeviceIndex) | AllocatorStats::Bit(AllocatorField::kBytesAllocated)));
  CHECK(with_records.Str(records[3].shape) == "[8]");
}
