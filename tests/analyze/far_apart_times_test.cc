// Captures built in code whose event times are further apart than int64
// picoseconds reach (a corrupt XSpace clock), and a corrupt allocation
// size: the analyses used to overflow (undefined behaviour, caught by the
// sanitizer build) and print wrapped spans and IDLE times. The expected
// values are worked out by hand below.
#include <catch2/catch.hpp>

#include <limits>
#include <nlohmann/json.hpp>

#include "lib/analyze/capture_info.h"
#include "lib/read/xplane_reader.h"
#include "lib/summary/device_plane_to_op_metrics.h"
#include "lib/summary/host_plane_to_op_metrics.h"
#include "lib/summary/memory_events_to_profile.h"
#include "lib/summary/tf_data_events_to_pipelines.h"
#include "lib/summary/time_span.h"
#include "tests/support/op_rows.h"
#include "tests/support/run_tool.h"
#include "tests/support/xspace_builder.h"

using namespace tfprof;
using tfprof::testing::OpRow;
using tfprof::testing::Ref;
using tfprof::testing::RunTool;
using tfprof::testing::XSpaceBuilder;
using json = nlohmann::json;

namespace {

constexpr int64_t kUs = 1'000'000;  // ps
// 9e18 ps (104 days) before and after the origin: each time fits in int64,
// their difference (1.8e19 ps, 208 days) does not.
constexpr int64_t kFar = 9'000'000'000'000'000'000;
constexpr int64_t kDay = int64_t{86'400} * 1'000'000'000'000;

// One host op and one device kernel at each end, 1 us each.
XSpaceBuilder FarApart() {
  XSpaceBuilder b;
  b.Plane("/host:CPU").Line(1, "t", 0).Event("a/Op:Op", -kFar, kUs).Event("b/Op:Op", kFar, kUs);
  b.Plane("/device:GPU:0", 1)
      .Line(7, "Stream #7", 0)
      .Event("k1", -kFar, kUs, {{"tf_op", Ref{"d/A:A"}}})
      .Event("k2", kFar, kUs, {{"tf_op", Ref{"d/B:B"}}});
  return b;
}

}  // namespace

namespace {

// Ops of 2 us in all over a span cut to 100 days: IDLE is the rest, and the
// cut is counted once.
void CheckOpsCutTo100Days(const OpMetricsDb& db, const Diagnostics& d) {
  CHECK(db.total_op_time_ps == 2 * kUs);
  CHECK(db.total_time_ps == static_cast<uint64_t>(100 * kDay));
  CHECK(OpRow(db, "IDLE")->self_time_ps == static_cast<uint64_t>(100 * kDay - 2 * kUs));
  CHECK(d.Count("op_stats.span_cut") == 1);
}

}  // namespace

TEST_CASE("Spans of events further apart than int64 ps are cut at 100 days", "[opstats][overflow]") {
  CHECK(kMaxSpanPs == 100 * kDay);
  Diagnostics read_diag;
  Host h = ReadXSpaceBytes(FarApart().Serialize(), "far.xplane.pb", read_diag);
  REQUIRE(h.planes.size() == 2);

  // Host thread: ops 2 us in all over a 208-day span, cut to 100 days. The
  // overflowed span happened to wrap back to 1.8e19 + 1 us.
  Diagnostics d;
  OpMetricsDb host = HostPlaneToOpMetrics(h, h.planes[0], d);
  CheckOpsCutTo100Days(host, d);

  // Device: the same on line offsets.
  Diagnostics dd;
  CheckOpsCutTo100Days(DevicePlaneToOpMetrics(h, h.planes[1], dd), dd);

  // Sums of cut spans saturate instead of wrapping round to small times.
  OpMetricsDb sum;
  for (int i = 0; i < 3; ++i) sum.Combine(host, false);  // 3 x 100 days > 2^64 ps.
  CHECK(sum.total_time_ps == std::numeric_limits<uint64_t>::max());
  CHECK(sum.total_op_time_ps == 6 * kUs);
}

TEST_CASE("info shows the true span of events further apart than int64 ps", "[info][overflow]") {
  Diagnostics d;
  Host h = ReadXSpaceBytes(FarApart().Serialize(), "far.xplane.pb", d);
  Report r = BuildInfoReport({SummarizeHost(h)});
  // 2 x 9e18 ps + 1 us = 18,000,000,000.001 ms; the int64 difference
  // overflowed to -446,744,073.709 ms.
  const double span_ms = 18'000'000'000.001;
  CHECK_THAT(r.lines.at(0), Catch::EndsWith("4 events over 18000000000.001 ms"));
  const Table& planes = r.tables.at(0);
  REQUIRE(planes.rows.size() == 2);
  for (const auto& row : planes.rows) CHECK(std::get<double>(row.at(6)) == Approx(span_ms));
  REQUIRE(r.notes.size() == 2);
  CHECK_THAT(r.notes[0], Catch::Contains("plane /host:CPU has events more than 100 days apart"));

  // And as printed.
  auto out = RunTool("info -f json " + FarApart().WriteTemp("far.xplane.pb"));
  REQUIRE(out.exit_code == 0);
  json j = json::parse(out.out);
  CHECK(j["tables"]["hosts"][0]["span_ms"].get<double>() == Approx(span_ms));
}

TEST_CASE("op-stats prints an IDLE time cut at 100 days for a corrupt clock", "[opstats][overflow]") {
  auto out = RunTool("op-stats -f json " + FarApart().WriteTemp("far.xplane.pb"));
  REQUIRE(out.exit_code == 0);
  json j = json::parse(out.out);
  // Device side first: d/A, d/B (1 us each) and IDLE over the cut span.
  double idle_us = -1;
  for (const json& row : j["tables"].begin().value())
    if (row.value("op_name", "") == "IDLE" && row.value("host_or_device", "") == "Device")
      idle_us = row["total_self_time_us"].get<double>();
  CHECK(idle_us == Approx(static_cast<double>(100 * kDay - 2 * kUs) / 1e6));
}

TEST_CASE("tf.data call starts stay in range on a far clock", "[tfdata][overflow]") {
  // The host's origin is 9e15 ns (9e18 ps on the absolute clock) and a root
  // call starts 5e17 ps after it: 9.5e18 ps overflows int64 and saturates.
  XSpaceBuilder b;
  b.Plane("/host:CPU")
      .Line(1, "t", 9'000'000'000'000'000)
      .Event("Iterator::Root", 500'000'000'000'000'000, kUs, {{"id", int64_t{1}}});
  Diagnostics d;
  Host h = ReadXSpaceBytes(b.Serialize(), "tf.xplane.pb", d);
  TfDataHost t = SummarizeTfData(h, {}, d);
  const TfDataExecution& ex = t.pipelines.at(0).executions.at(0);
  CHECK(ex.start_ps == std::numeric_limits<int64_t>::max());
  CHECK(ex.iterators.at(0).start_ps == std::numeric_limits<int64_t>::max());
  CHECK(ex.duration_ps == kUs);
}

TEST_CASE("A corrupt allocation size of INT64_MIN sorts last in the breakdown", "[memory][overflow]") {
  // Two live allocations at the peak (heap 200 B): 100 B, and one whose
  // size reads INT64_MIN. Largest first: the heap the window does not
  // explain (200 - 100 - INT64_MIN, saturated at INT64_MAX), 100 B, then
  // INT64_MIN; negating INT64_MIN for the sort key wrapped and put it first.
  // A thread with no events and a wild timestamp is the other hazard here.
  auto alloc = [](int64_t heap, int64_t size, int64_t address, const std::string& op) {
    return testing::StatList{{"allocator_name", Ref{"x"}},
                             {"bytes_reserved", int64_t{0}},
                             {"bytes_allocated", heap},
                             {"bytes_available", int64_t{0}},
                             {"peak_bytes_in_use", heap},
                             {"requested_bytes", size},
                             {"allocation_bytes", size},
                             {"addr", address},
                             {"tf_op", Ref{op}}};
  };
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  XSpaceBuilder b;
  auto& cpu = b.Plane("/host:CPU");
  cpu.Line(1, "t", 1000)
      .Event("MemoryAllocation", 10 * kUs, 0, alloc(100, 100, 0x10, "a"))
      .Event("MemoryAllocation", 20 * kUs, 0, alloc(200, kMin, 0x20, "b"));
  cpu.Line(2, "idle", kMin);  // No events: readers never check its timestamp.
  Diagnostics d;
  Host h = ReadXSpaceBytes(b.Serialize(), "mem.xplane.pb", d);
  HostMemoryProfile p = BuildMemoryProfile(h, MemoryProfileOptionsFor(Compat::kDefault), d);
  REQUIRE(p.allocators.size() == 1);
  const AllocatorMemoryProfile& a = p.allocators[0];
  CHECK(a.peak_bytes == 200);
  REQUIRE(a.active.size() == 3);
  CHECK(a.active[0].allocation_bytes == std::numeric_limits<int64_t>::max());
  CHECK(a.active[0].special == 0);
  CHECK(a.active[1].allocation_bytes == 100);
  CHECK(a.active[2].allocation_bytes == kMin);
  CHECK(p.Str(a.active[2].op_name) == "b");
  CHECK(d.Count("memory.negative_size") == 1);
}
