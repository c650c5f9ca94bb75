// The XSpace decoder reads the stat layout the profiler writes (metadata id
// first, one value) in place, and any other through its general path
// (xplane_event_decoder.h). Whichever path a stat takes, what is read must
// be what protobuf itself parses from the same bytes: here stats of every
// value type, id width, value length and odd encoding are written by hand,
// parsed with the classes protoc generates, and compared stat by stat with
// the reader's model, read in one piece and in chunks on threads, with and
// without a stat filter.
#include <catch2/catch.hpp>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "lib/model/diagnostic_kinds.h"
#include "lib/read/xplane_reader.h"
#include "proto/xplane.pb.h"
#include "tests/support/xspace_builder.h"

using namespace tfprof;
using tfprof::testing::wire::BytesField;
using tfprof::testing::wire::Varint;
using tfprof::testing::wire::VarintField;

namespace {

// Stat metadata ids of one, two and three varint bytes. The reader keeps
// ids up to about a thousand in a flat table and sparser ones in a hash map
// (IdMap); the planes below are read with each.
struct StatName {
  uint64_t id;
  const char* name;
};
using StatNames = std::vector<StatName>;
const StatNames kSparse = {{1, "one"}, {2, "two"}, {200, "wide"}, {20000, "wider"}};
const StatNames kDense = {{1, "one"}, {2, "two"}, {200, "wide"}, {1000, "wider"}};

std::string Fixed64Field(uint32_t field, uint64_t bits) {
  std::string out = Varint((uint64_t{field} << 3) | 1);
  char b[8];
  std::memcpy(b, &bits, 8);
  return out + std::string(b, 8);
}
std::string DoubleField(uint32_t field, double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, 8);
  return Fixed64Field(field, bits);
}

// XStat fields: 1 metadata id, 2 double, 3 uint64, 4 int64, 5 str, 6 bytes,
// 7 ref.
std::vector<std::string> StatLayouts(const StatNames& names) {
  std::vector<std::string> stats;
  const int64_t ints[] = {0,
                          1,
                          127,
                          128,
                          300,
                          16383,
                          16384,
                          int64_t{1} << 21,
                          int64_t{1} << 28,
                          int64_t{1} << 35,
                          (int64_t{1} << 49) - 1,
                          int64_t{1} << 49,
                          (int64_t{1} << 56) - 1,  // The longest varint of 8 bytes.
                          int64_t{1} << 56,        // 9 bytes.
                          std::numeric_limits<int64_t>::max(),
                          -1,  // 10 bytes.
                          std::numeric_limits<int64_t>::min()};
  for (const StatName& n : names) {
    for (int64_t v : ints) {
      stats.push_back(VarintField(1, n.id) + VarintField(4, static_cast<uint64_t>(v)));
      stats.push_back(VarintField(1, n.id) + VarintField(3, static_cast<uint64_t>(v)));
    }
    stats.push_back(VarintField(1, n.id) + VarintField(3, std::numeric_limits<uint64_t>::max()));
    stats.push_back(VarintField(1, n.id) + DoubleField(2, 0.625));
    stats.push_back(VarintField(1, n.id) + DoubleField(2, -1e300));
    // Up to 124 bytes a string's stat is under 128 (one length byte).
    for (size_t len : {size_t{0}, size_t{1}, size_t{7}, size_t{100}, size_t{121}, size_t{122}, size_t{123}, size_t{124},
                       size_t{125}, size_t{127}, size_t{128}, size_t{300}})
      stats.push_back(VarintField(1, n.id) + BytesField(5, std::string(len, 'a' + static_cast<char>(len % 26))));
    for (const StatName& r : names) stats.push_back(VarintField(1, n.id) + VarintField(7, r.id));
    stats.push_back(VarintField(1, n.id) + BytesField(6, std::string(40, '\x01')));
  }
  // Varints written longer than they need (protobuf reads them all the
  // same): a metadata id, a value, a string's length.
  stats.push_back(std::string("\x08\x81\x00", 3) + VarintField(4, 5));                          // id 1 in two bytes
  stats.push_back(VarintField(1, 2) + std::string("\x20\x85\x80\x00", 4));                      // 5 in three bytes
  stats.push_back(VarintField(1, 2) + std::string("\x20\x80\x80\x80\x80\x80\x80\x80\x00", 9));  // 0 in 8 bytes
  stats.push_back(VarintField(1, 2) + std::string("\x20\x85\x80\x80\x80\x80\x80\x80\x80\x00", 10));  // 5 in 9 bytes
  // A tenth byte with bits past the 64th (protobuf drops them).
  stats.push_back(VarintField(1, 2) + std::string("\x20\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7e", 11));
  stats.push_back(VarintField(1, 2) + std::string("\x18\x81\x80\x80\x80\x80\x80\x80\x80\x80\x03", 11));
  stats.push_back(VarintField(1, 1) + std::string("\x2a\x83\x00xyz", 6));  // "xyz"
  stats.push_back(VarintField(1, 1) + std::string("\x38\x82\x00", 3));     // ref to id 2
  // Other field orders and counts: the value first, two values (the last
  // wins), the id twice (the last wins), no value, an unknown field.
  stats.push_back(VarintField(4, 9) + VarintField(1, 2));
  stats.push_back(BytesField(5, "abc") + VarintField(1, 200));
  stats.push_back(VarintField(1, 1) + VarintField(4, 9) + VarintField(3, 10));
  // Two values that take nine and ten bytes together (the first ends
  // within eight).
  stats.push_back(VarintField(1, 2) + VarintField(4, 9) + VarintField(3, uint64_t{1} << 42));
  stats.push_back(VarintField(1, 2) + VarintField(4, 9) + VarintField(3, uint64_t{1} << 49));
  stats.push_back(VarintField(1, 1) + VarintField(4, 9) + BytesField(5, "last"));
  stats.push_back(VarintField(1, 1) + BytesField(5, "first") + VarintField(7, 200));
  stats.push_back(VarintField(1, 1) + VarintField(1, 2) + VarintField(4, 11));
  stats.push_back(VarintField(1, 200));
  stats.push_back(VarintField(1, 1) + VarintField(4, 12) + VarintField(9, 99));
  return stats;
}

// A host plane with the stat names given, one line, and one event per
// stat layout (each with that stat, then a plain one that is always kept),
// as protobuf would frame them; the last event has a field after its stats
// (num_occurrences: an aggregated event). With `line_last` the line is the
// plane's last field, so the last stats' values lie within 8 bytes of the
// buffer's end.
std::string SpaceOf(const std::vector<std::string>& stats, const StatNames& names = kSparse, bool line_last = false) {
  std::string line = VarintField(1, 1) + BytesField(2, "t");
  int64_t offset = 0;
  const std::string kept = VarintField(1, 1) + VarintField(4, 7);
  for (size_t i = 0; i < stats.size(); ++i) {
    std::string event = VarintField(1, 1) + VarintField(2, static_cast<uint64_t>(offset)) + VarintField(3, 10) +
                        BytesField(4, stats[i]) + BytesField(4, kept);
    if (i + 1 == stats.size()) event += VarintField(5, 3);
    line += BytesField(4, event);
    offset += 20;
  }
  std::string metadata = BytesField(4, VarintField(1, 1) + BytesField(2, BytesField(2, "e")));
  for (const StatName& n : names)
    metadata += BytesField(5, VarintField(1, n.id) + BytesField(2, VarintField(1, n.id) + BytesField(2, n.name)));
  const std::string head = VarintField(1, 1) + BytesField(2, "/host:CPU");
  const std::string plane = line_last ? head + metadata + BytesField(3, line) : head + BytesField(3, line) + metadata;
  return BytesField(1, plane);
}

// What protobuf parsed a stat as, in the model's terms.
struct Expected {
  std::string name;
  StatType type;
  uint64_t bits = 0;  // Integers, a double's bits, a blob's length.
  std::string text;   // Strings and refs.
};

Expected ExpectedOf(const xplane::XPlane& plane, const xplane::XStat& s) {
  Expected e;
  e.name = plane.stat_metadata().at(s.metadata_id()).name();
  switch (s.value_case()) {
    case xplane::XStat::kInt64Value:
      e.type = StatType::kInt64;
      e.bits = static_cast<uint64_t>(s.int64_value());
      break;
    case xplane::XStat::kUint64Value:
      e.type = StatType::kUint64;
      e.bits = s.uint64_value();
      break;
    case xplane::XStat::kDoubleValue: {
      e.type = StatType::kDouble;
      const double d = s.double_value();
      std::memcpy(&e.bits, &d, 8);
      break;
    }
    case xplane::XStat::kStrValue:
      e.type = StatType::kString;
      e.text = s.str_value();
      break;
    case xplane::XStat::kRefValue:
      e.type = StatType::kString;
      e.text = plane.stat_metadata().at(static_cast<int64_t>(s.ref_value())).name();
      break;
    case xplane::XStat::kBytesValue:
      e.type = StatType::kBytes;
      e.bits = s.bytes_value().size();
      break;
    case xplane::XStat::VALUE_NOT_SET:  // Read as the integer 0 (and counted).
      e.type = StatType::kInt64;
      break;
  }
  return e;
}

void CheckReadAsProtobufParses(const std::string& bytes, const ReadOptions& options, bool drop_wide) {
  xplane::XSpace parsed;
  REQUIRE(parsed.ParseFromString(bytes));
  const xplane::XPlane& pp = parsed.planes(0);
  Diagnostics diag;
  const Host h = ReadXSpaceBytes(bytes, "layouts.xplane.pb", diag, options);
  REQUIRE(h.planes.size() == 1);
  const Plane& plane = h.planes[0];
  REQUIRE(plane.lines.size() == 1);
  const Line& line = plane.lines[0];
  REQUIRE(line.events.size() == static_cast<size_t>(pp.lines(0).events_size()));
  size_t without_value = 0;
  for (size_t e = 0; e < line.events.size(); ++e) {
    const xplane::XEvent& pe = pp.lines(0).events(static_cast<int>(e));
    std::vector<Expected> want;
    for (const xplane::XStat& s : pe.stats()) {
      if (s.value_case() == xplane::XStat::VALUE_NOT_SET) ++without_value;
      Expected x = ExpectedOf(pp, s);
      if (drop_wide && x.name == "wide") continue;
      want.push_back(x);
    }
    const auto got = line.EventStats(e);
    INFO("event " << e);
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      INFO("stat " << i << " named " << want[i].name);
      const Stat s = got[i];  // A copy: the packed value can't bind to CHECK's reference.
      CHECK(h.Str(plane.stat_metadata[s.key()].name) == want[i].name);
      CHECK(static_cast<int>(s.type()) == static_cast<int>(want[i].type));
      const uint64_t bits = s.bits;
      if (want[i].type == StatType::kString) CHECK(h.Str(s.AsString()) == want[i].text);
      else CHECK(bits == want[i].bits);
    }
  }
  // A stat without a value is counted whether or not the command keeps it.
  CHECK(without_value == 1);
  CHECK(diag.Count(diag_kind::kXplaneStatWithoutValue.id) == without_value);
  // The last event's field after its stats is read, and one stat's unknown
  // field.
  CHECK(diag.Count(diag_kind::kXplaneAggregatedEvent.id) == 1);
  CHECK(diag.Count(diag_kind::kXplaneUnknownField.id) == 1);
}

}  // namespace

TEST_CASE("XPlane reader reads every stat layout as protobuf parses it", "[xplane]") {
  for (const StatNames* names : {&kSparse, &kDense}) {
    for (bool line_last : {false, true}) {
      const std::string bytes = SpaceOf(StatLayouts(*names), *names, line_last);
      for (bool drop_wide : {false, true}) {
        for (size_t chunk_events : {size_t{0}, size_t{3}}) {
          INFO("ids up to " << names->back().id << ", line last: " << line_last << ", drop 'wide': " << drop_wide
                            << ", chunk events: " << chunk_events);
          ReadOptions options;
          if (drop_wide) options.event_stats = EventStatFilter::Only({"one", "two", "wider"});
          if (chunk_events > 0) {
            options.decode_chunk_events = chunk_events;
            options.decode_threads = 3;
          }
          CheckReadAsProtobufParses(bytes, options, drop_wide);
        }
      }
    }
  }
}

TEST_CASE("XPlane reader: a stat in the common layout with a dangling id is still an error", "[xplane][bad]") {
  // The in-place path hands anything it can't resolve to the general one,
  // which names the id.
  Diagnostics diag;
  const std::string dangling_meta = VarintField(1, 77) + VarintField(4, 5);
  REQUIRE_THROWS_WITH(ReadXSpaceBytes(SpaceOf({dangling_meta}), "bad.xplane.pb", diag),
                      Catch::Contains("bad.xplane.pb") && Catch::Contains("stat metadata id 77"));
  const std::string dangling_ref = VarintField(1, 1) + VarintField(7, 78);
  REQUIRE_THROWS_WITH(ReadXSpaceBytes(SpaceOf({dangling_ref}), "bad.xplane.pb", diag),
                      Catch::Contains("stat metadata id 78"));
  // A dropped stat's dangling reference is an error too.
  ReadOptions options;
  options.event_stats = EventStatFilter::Only({"two"});
  REQUIRE_THROWS_WITH(ReadXSpaceBytes(SpaceOf({dangling_ref}), "bad.xplane.pb", diag, options),
                      Catch::Contains("stat metadata id 78"));
  // A value that runs past its stat: truncated, not read from the next one.
  const std::string cut = VarintField(1, 1) + std::string("\x20\x85\x80", 3);
  REQUIRE_THROWS_WITH(ReadXSpaceBytes(SpaceOf({cut}), "bad.xplane.pb", diag), Catch::Contains("truncated varint"));
  // Values of nine and ten bytes (negative int64s) are read in place too,
  // and the same errors found: nine bytes that all go on (cut short), a
  // nine-byte value with one byte after it in the stat (read as a field
  // cut short), ten bytes that all go on (too long).
  const std::string cut9 = VarintField(1, 1) + "\x20" + std::string(9, '\x81');
  REQUIRE_THROWS_WITH(ReadXSpaceBytes(SpaceOf({cut9}), "bad.xplane.pb", diag), Catch::Contains("truncated varint"));
  const std::string nine_and_one = VarintField(1, 1) + "\x20" + std::string(8, '\x80') + std::string("\x00\x20", 2);
  REQUIRE_THROWS_WITH(ReadXSpaceBytes(SpaceOf({nine_and_one}), "bad.xplane.pb", diag),
                      Catch::Contains("truncated varint"));
  const std::string long10 = VarintField(1, 1) + "\x20" + std::string(10, '\x81');
  REQUIRE_THROWS_WITH(ReadXSpaceBytes(SpaceOf({long10}), "bad.xplane.pb", diag), Catch::Contains("more than 10 bytes"));
}
