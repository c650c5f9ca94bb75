// MakeRoomForStats: the room the Chrome trace conventions make in a line's
// stat pool for the stats they add, on lines built here (the stats the
// conventions write into it: chrome_trace_conventions_test.cc and the
// Kineto tests).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "lib/read/chrome_trace_reader.h"
#include "lib/read/stat_edit.h"

using namespace tfprof;

namespace {

// A line whose events hold `own[i]` stats each, stat values 100*i + k (k-th
// of event i), with `capacity` slots reserved.
Line LineWith(const std::vector<uint32_t>& own, size_t capacity) {
  Line line;
  line.stats.reserve(capacity);
  for (size_t i = 0; i < own.size(); ++i) {
    for (uint32_t k = 0; k < own[i]; ++k) line.stats.push_back(Stat::Int(1, static_cast<int64_t>(100 * i + k)));
    line.events.push_back(Event{static_cast<int64_t>(i), 1, 0, static_cast<uint32_t>(line.stats.size())});
  }
  return line;
}

// Event i's stats as their values; room slots (written here as -1) show as -1.
std::vector<int64_t> Values(const Line& line, size_t i) {
  std::vector<int64_t> v;
  for (const Stat& s : line.EventStats(i)) v.push_back(s.AsInt());
  return v;
}

void FillRoom(Line& line, const std::vector<uint32_t>& room) {
  for (size_t i = 0; i < room.size(); ++i)
    for (uint32_t k = 1; k <= room[i]; ++k) line.stats[line.events[i].stats_end - k] = Stat::Int(2, -1);
}

}  // namespace

TEST_CASE("MakeRoomForStats: each event keeps its stats, in order, and gets its room after them", "[stat_edit]") {
  const std::vector<uint32_t> own = {2, 0, 1, 3, 1};
  const std::vector<uint32_t> room = {0, 2, 0, 1, 3};
  // Room enough (moved in place) and none (one reallocation): the same line.
  for (size_t capacity : {size_t{7}, size_t{13}, size_t{64}}) {
    Line line = LineWith(own, capacity);
    const Stat* before = line.stats.data();
    CHECK(MakeRoomForStats(line, [&](size_t i) -> size_t { return room[i]; }) == 6);
    FillRoom(line, room);
    REQUIRE(line.stats.size() == 13);
    CHECK((line.stats.data() == before) == (capacity >= 13));
    // stats_end by hand: 2, 2+2, 4+1, 5+3+1, 9+1+3.
    CHECK(line.events[0].stats_end == 2);
    CHECK(line.events[1].stats_end == 4);
    CHECK(line.events[2].stats_end == 5);
    CHECK(line.events[3].stats_end == 9);
    CHECK(line.events[4].stats_end == 13);
    CHECK(Values(line, 0) == std::vector<int64_t>{0, 1});
    CHECK(Values(line, 1) == std::vector<int64_t>{-1, -1});
    CHECK(Values(line, 2) == std::vector<int64_t>{200});
    CHECK(Values(line, 3) == std::vector<int64_t>{300, 301, 302, -1});
    CHECK(Values(line, 4) == std::vector<int64_t>{400, -1, -1, -1});
  }
}

TEST_CASE("MakeRoomForStats: room on the first event moves every stat; none moves nothing", "[stat_edit]") {
  const std::vector<uint32_t> own = {1, 2, 1};
  {
    Line line = LineWith(own, 16);
    CHECK(MakeRoomForStats(line, [](size_t i) -> size_t { return i == 0 ? 2 : 0; }) == 2);
    FillRoom(line, {2, 0, 0});
    CHECK(Values(line, 0) == std::vector<int64_t>{0, -1, -1});
    CHECK(Values(line, 1) == std::vector<int64_t>{100, 101});
    CHECK(Values(line, 2) == std::vector<int64_t>{200});
    CHECK(line.events[2].stats_end == 6);
  }
  {
    Line line = LineWith(own, 16);
    CHECK(MakeRoomForStats(line, [](size_t) -> size_t { return 0; }) == 0);
    CHECK(line.stats.size() == 4);
    CHECK(line.events[0].stats_end == 1);
    CHECK(line.events[1].stats_end == 3);
    CHECK(line.events[2].stats_end == 4);
    CHECK(Values(line, 1) == std::vector<int64_t>{100, 101});
  }
  {
    // Only the last event: the others stay where they are.
    Line line = LineWith(own, 16);
    const Stat* before = line.stats.data();
    CHECK(MakeRoomForStats(line, [](size_t i) -> size_t { return i == 2 ? 1 : 0; }) == 1);
    FillRoom(line, {0, 0, 1});
    CHECK(line.stats.data() == before);
    CHECK(line.events[0].stats_end == 1);
    CHECK(line.events[1].stats_end == 3);
    CHECK(Values(line, 0) == std::vector<int64_t>{0});
    CHECK(Values(line, 1) == std::vector<int64_t>{100, 101});
    CHECK(Values(line, 2) == std::vector<int64_t>{200, -1});
  }
}

TEST_CASE("MakeRoomForStats twice: the second pass moves the first's stats with their events", "[stat_edit]") {
  // As launch dimensions and then op stats are added to a kernel line: two
  // stats on events 1 and 2, then three on events 0 and 2 (written -2).
  const std::vector<uint32_t> own = {1, 2, 1};
  const std::vector<uint32_t> first = {0, 2, 2}, second = {3, 0, 3};
  // Capacity for both passes (in place), for the first only, and for none.
  for (size_t capacity : {size_t{4}, size_t{8}, size_t{14}}) {
    INFO("capacity " << capacity);
    Line line = LineWith(own, capacity);
    CHECK(MakeRoomForStats(line, [&](size_t i) -> size_t { return first[i]; }) == 4);
    FillRoom(line, first);
    CHECK(MakeRoomForStats(line, [&](size_t i) -> size_t { return second[i]; }) == 6);
    for (size_t i = 0; i < second.size(); ++i)
      for (uint32_t k = 1; k <= second[i]; ++k) line.stats[line.events[i].stats_end - k] = Stat::Int(3, -2);
    REQUIRE(line.stats.size() == 14);
    CHECK(Values(line, 0) == std::vector<int64_t>{0, -2, -2, -2});
    CHECK(Values(line, 1) == std::vector<int64_t>{100, 101, -1, -1});
    CHECK(Values(line, 2) == std::vector<int64_t>{200, -1, -1, -2, -2, -2});
    CHECK(line.events[2].stats_end == 14);
  }
}

TEST_CASE("Chrome trace reader: finished lines leave room for five stats an event", "[stat_edit][json]") {
  // So that Kineto's op stats and a kernel's launch dimensions are added in
  // place, without a second pool beside the line's (docs/performance.md,
  // session 23: the 1 GB Kineto trace's kernel-stats peak went 490-502 ->
  // 410 MiB).
  const std::string json = R"({"traceEvents":[
    {"ph":"X","pid":1,"tid":1,"name":"a","ts":1,"dur":5,"args":{"x":1,"y":2}},
    {"ph":"X","pid":1,"tid":1,"name":"b","ts":2,"dur":1,"args":{"x":3}},
    {"ph":"X","pid":1,"tid":1,"name":"c","ts":9,"dur":1}]})";
  Diagnostics diag;
  Host h = ReadChromeTraceText(json, "t.trace.json", diag);
  const Line* line = nullptr;
  for (const Plane& p : h.planes)
    for (const Line& l : p.lines)
      if (l.events.size() == 3) line = &l;
  REQUIRE(line);
  CHECK(line->stats.size() == 3);
  CHECK(line->stats.capacity() >= 3 + kStatRoomPerEvent * 3);
  CHECK(kStatRoomPerEvent == 5);
}
