// The host op metrics pair each thread's op begins and ends in time order.
// A line in start order is swept as it is read (pending ends in a heap);
// any other line is sorted first. Both must give what a stable sort of all
// begins and ends by time gives, ties in the order added (an op's begin,
// then its end; ops in line order): this test's own pairing, written from
// that definition, over random lines full of equal times, zero durations
// and overlaps that do not nest.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "lib/summary/host_plane_to_op_metrics.h"
#include "tests/support/op_rows.h"
#include "tests/support/xspace_builder.h"

using namespace tfprof;
using namespace tfprof::testing;

namespace {

struct Expected {
  std::map<std::string, std::pair<uint64_t, uint64_t>> time_and_self;  // By op name.
  std::map<std::string, uint64_t> occurrences;
  uint64_t dropped = 0;
};

// The definition: every begin and end, stable-sorted by time, paired on a
// stack (an end pops down to its own begin; what it pops on the way is
// dropped). Every event of these lines is an op named "<name>:<Type>".
void PairByDefinition(const Host& h, const Line& line, Expected& out) {
  struct Mark {
    int64_t time;
    size_t op;
    bool begin;
  };
  std::vector<Mark> marks;
  std::vector<std::string> names;
  for (const Event& e : line.events) {
    std::string full(h.Str(h.planes[0].event_metadata[e.metadata].name));
    names.push_back(full.substr(0, full.find(':')));
    marks.push_back({e.start_ps, names.size() - 1, true});
    marks.push_back({e.start_ps + e.duration_ps, names.size() - 1, false});
  }
  std::stable_sort(marks.begin(), marks.end(), [](const Mark& a, const Mark& b) { return a.time < b.time; });
  struct Open {
    size_t op;
    int64_t start;
    uint64_t children = 0;
  };
  std::vector<Open> open;
  for (const Mark& m : marks) {
    if (m.begin) {
      open.push_back({m.op, m.time});
      continue;
    }
    bool found = false;
    Open top{};
    while (!open.empty()) {
      top = open.back();
      open.pop_back();
      if (top.op == m.op) {
        found = true;
        break;
      }
      ++out.dropped;
    }
    if (!found) continue;
    const auto time = static_cast<uint64_t>(m.time - top.start);
    auto& [total, self] = out.time_and_self[names[m.op]];
    total += time;
    self += time >= top.children ? time - top.children : 0;
    ++out.occurrences[names[m.op]];
    if (!open.empty()) open.back().children += time;
  }
}

void CheckAgainstDefinition(const Host& h) {
  Expected expected;
  for (const Line& line : h.planes[0].lines) PairByDefinition(h, line, expected);
  Diagnostics d;
  const OpMetricsDb db = HostPlaneToOpMetrics(h, h.planes[0], d);
  CHECK(d.Count("op_stats.host_op_not_closed") == expected.dropped);
  size_t rows = 0;
  for (const OpMetrics& m : db.rows()) {
    if (m.name == "IDLE") continue;
    ++rows;
    INFO(m.name);
    REQUIRE(expected.time_and_self.count(m.name) == 1);
    CHECK(m.occurrences == expected.occurrences[m.name]);
    CHECK(m.time_ps == expected.time_and_self[m.name].first);
    CHECK(m.self_time_ps == expected.time_and_self[m.name].second);
  }
  CHECK(rows == expected.time_and_self.size());
}

}  // namespace

TEST_CASE("Host ops are paired as a stable sort by time pairs them, swept or sorted", "[opstats]") {
  std::mt19937_64 rng(20261201);
  for (int trial = 0; trial < 40; ++trial) {
    INFO("trial " << trial);
    XSpaceBuilder b;
    auto& cpu = b.Plane("/host:CPU");
    for (int l = 0; l < 3; ++l) {
      LineBuilder line = cpu.Line(l + 1, "t" + std::to_string(l));
      // Times on a coarse grid, so that many begins and ends coincide;
      // durations from 0; each op a name of eight, so pairs repeat.
      const int events = 1 + static_cast<int>(rng() % 60);
      for (int i = 0; i < events; ++i) {
        const int64_t start = static_cast<int64_t>(rng() % 40) * kUs;
        const int64_t duration = static_cast<int64_t>(rng() % 4 == 0 ? 0 : rng() % 25) * kUs;
        const int op = static_cast<int>(rng() % 8);
        line.Event("op" + std::to_string(op) + ":Op" + std::to_string(op), start, duration);
      }
    }
    Host h = ReadBuilt(b);
    for (const Line& line : h.planes[0].lines) REQUIRE(line.IsSorted());  // The reader's order: swept.
    CheckAgainstDefinition(h);
    // The same events out of start order (a line no reader makes, but the
    // model allows): sorted, and paired by the same definition.
    for (Line& line : h.planes[0].lines) std::reverse(line.events.begin(), line.events.end());
    CheckAgainstDefinition(h);
  }
}

TEST_CASE("Host ops: an end at a begin's instant is taken before that begin, an op's own end after it", "[opstats]") {
  // a [0,10], then at 10 d [10,30], b [10,20] and c [10,10] (zero): a's
  // end comes before the begins at 10 (it was added first), c's end right
  // after c's own begin, so c closes inside b and b inside d.
  XSpaceBuilder b;
  b.Plane("/host:CPU")
      .Line(1, "t")
      .Event("a:A", 0, 10 * kUs)
      .Event("d:D", 10 * kUs, 20 * kUs)
      .Event("b:B", 10 * kUs, 10 * kUs)
      .Event("c:C", 10 * kUs, 0);
  Host h = ReadBuilt(b);
  // The reader's order: a, then at 10 the longer first: d [10,30], b [10,20], c [10,10].
  Diagnostics d;
  const OpMetricsDb db = HostPlaneToOpMetrics(h, h.planes[0], d);
  REQUIRE(OpRow(db, "a"));
  CHECK(OpRow(db, "a")->self_time_ps == 10 * kUs);
  // b [10,20] inside d [10,30]; c [10,10] inside b: all closed in order.
  REQUIRE(OpRow(db, "c"));
  CHECK(OpRow(db, "c")->time_ps == 0);
  REQUIRE(OpRow(db, "b"));
  CHECK(OpRow(db, "b")->self_time_ps == 10 * kUs);
  REQUIRE(OpRow(db, "d"));
  CHECK(OpRow(db, "d")->self_time_ps == 10 * kUs);  // 20 minus b's 10.
  CHECK(d.Count("op_stats.host_op_not_closed") == 0);
  CHECK(db.total_op_time_ps == 30 * kUs);
}
