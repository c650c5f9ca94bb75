#include <zlib.h>
#include <catch2/catch.hpp>

#include <fstream>

#include "lib/model/errors.h"
#include "lib/model/stat_finder.h"
#include "lib/read/xplane_reader.h"
#include "tests/support/xspace_builder.h"

using namespace tfprof;
using tfprof::testing::Ref;
using tfprof::testing::XSpaceBuilder;

namespace {

std::optional<Stat> FindStat(const Host& h, const Plane& p, std::span<const Stat> stats, std::string_view name) {
  return FindStatIn(stats, p.FindStatKey(h.strings, name));
}

XSpaceBuilder SmallGpuCapture() {
  XSpaceBuilder space;
  space.Hostname("worker-0");
  auto& host = space.Plane("/host:CPU", 0);
  host.Line(17, "python3", /*timestamp_ns=*/1'000)
      .Event("train", 0, 5'000'000, {{"step_num", int64_t{3}}, {"_r", int64_t{1}}})
      .Event("MatMul:MatMul", 1'000'000, 2'000'000,
             {{"correlation_id", uint64_t{42}}, {"tf_op", Ref{"dense/MatMul:MatMul"}}});
  auto& gpu = space.Plane("/device:GPU:0", 1);
  gpu.Stat("gpu_device_name", std::string("Tesla T4"))
      .Stat("compute_cap_major", int64_t{7})
      .Stat("compute_cap_minor", int64_t{5})
      .Stat("core_count", int64_t{40})
      .Stat("memory_size", int64_t{15'843'721'216});
  gpu.Line(13, "Stream #13(Compute)", /*timestamp_ns=*/2'000)
      .Event("volta_sgemm_128x64_nn", 500'000, 1'250'000,
             {{"correlation_id", uint64_t{42}},
              {"kernel_details", std::string("regs:64 grid:2,1,1 block:256,1,1")},
              {"occupancy", 0.625}});
  return space;
}

}  // namespace

TEST_CASE("XPlane reader reads planes, lines, events and stats", "[xplane]") {
  Diagnostics diag;
  std::string bytes = SmallGpuCapture().Serialize();
  Host h = ReadXSpaceBytes(bytes, "mem.xplane.pb", diag);

  CHECK(h.name == "worker-0");
  CHECK(h.hostnames == std::vector<std::string>{"worker-0"});
  REQUIRE(h.planes.size() == 2);
  const Plane& cpu = h.planes[0];
  CHECK(h.PlaneName(cpu) == "/host:CPU");
  REQUIRE(cpu.lines.size() == 1);
  const Line& py = cpu.lines[0];
  CHECK(py.id == 17);
  CHECK(h.LineName(py) == "python3");
  REQUIRE(py.events.size() == 2);
  CHECK(h.EventName(cpu, py.events[0]) == "train");
  CHECK(h.EventName(cpu, py.events[1]) == "MatMul:MatMul");

  // Times: the first line's timestamp is the origin; start = (ts_ns - origin)*1000 + offset.
  CHECK(h.time_origin_ns == 1'000);
  CHECK(py.events[0].start_ps == 0);
  CHECK(py.events[0].duration_ps == 5'000'000);
  CHECK(py.events[1].start_ps == 1'000'000);
  CHECK(py.events[1].end_ps() == 3'000'000);

  auto step = FindStat(h, cpu, py.EventStats(0), "step_num");
  REQUIRE(step);
  CHECK(step->type() == StatType::kInt64);
  CHECK(step->AsInt() == 3);
  auto corr = FindStat(h, cpu, py.EventStats(1), "correlation_id");
  REQUIRE(corr);
  CHECK(corr->type() == StatType::kUint64);
  CHECK(corr->AsInt() == 42);
  // A ref_value resolves to the name of the stat metadata it points at.
  auto op = FindStat(h, cpu, py.EventStats(1), "tf_op");
  REQUIRE(op);
  CHECK(op->type() == StatType::kString);
  CHECK(h.Str(op->AsString()) == "dense/MatMul:MatMul");

  const Plane& gpu = h.planes[1];
  CHECK(gpu.id == 1);
  CHECK(gpu.device.name == "Tesla T4");
  CHECK(gpu.device.compute_cap_major == 7);
  CHECK(gpu.device.compute_cap_minor == 5);
  CHECK(gpu.device.core_count == 40);
  CHECK(gpu.device.memory_bytes == 15'843'721'216);
  const Line& stream = gpu.lines.at(0);
  // The GPU line starts 1000 ns after the origin: 1'000'000 ps + 500'000 offset.
  CHECK(stream.events.at(0).start_ps == 1'500'000);
  auto details = FindStat(h, gpu, stream.EventStats(0), "kernel_details");
  REQUIRE(details);
  CHECK(h.Str(details->AsString()) == "regs:64 grid:2,1,1 block:256,1,1");
  auto occ = FindStat(h, gpu, stream.EventStats(0), "occupancy");
  REQUIRE(occ);
  CHECK(occ->AsDouble() == Approx(0.625));
  CHECK(diag.empty());
}

TEST_CASE("XPlane reader uses display names and the file name as host", "[xplane]") {
  XSpaceBuilder space;
  auto& p = space.Plane("/host:CPU");
  p.Line(1, "t").Event("long_internal_name", 0, 10);
  (*p.proto()->mutable_event_metadata())[1].set_display_name("short");
  p.proto()->mutable_lines(0)->set_display_name("main thread");
  p.proto()->mutable_lines(0)->set_display_id(99);
  Diagnostics diag;
  Host h = ReadXSpaceBytes(space.Serialize(), "/runs/r1/myhost.xplane.pb", diag);
  CHECK(h.name == "myhost");
  const Line& l = h.planes[0].lines[0];
  CHECK(h.LineName(l) == "main thread");
  CHECK(l.display_id == 99);
  CHECK(h.EventName(h.planes[0], l.events[0]) == "short");
}

TEST_CASE("XPlane reader sorts unsorted lines and keeps each event's stats", "[xplane]") {
  XSpaceBuilder space;
  space.Plane("/host:CPU")
      .Line(1, "t")
      .Event("late", 900, 10, {{"k", int64_t{9}}})
      .Event("early", 100, 10, {{"k", int64_t{1}}, {"j", int64_t{2}}})
      .Event("outer", 100, 500);  // Same start, longer: the parent comes first.
  Diagnostics diag;
  Host h = ReadXSpaceBytes(space.Serialize(), "x.xplane.pb", diag);
  const Plane& p = h.planes[0];
  const Line& l = p.lines[0];
  REQUIRE(l.events.size() == 3);
  CHECK(h.EventName(p, l.events[0]) == "outer");
  CHECK(h.EventName(p, l.events[1]) == "early");
  CHECK(h.EventName(p, l.events[2]) == "late");
  CHECK(l.EventStats(0).size() == 0);
  CHECK(l.EventStats(1).size() == 2);
  CHECK(FindStat(h, p, l.EventStats(2), "k")->AsInt() == 9);
  CHECK(diag.Count("xplane.unsorted_line") == 1);
}

TEST_CASE("XPlane reader keeps the profiler's errors and warnings, de-duplicated", "[xplane]") {
  XSpaceBuilder space;
  space.Plane("/host:CPU");
  space.proto().add_errors("CUPTI error: insufficient privileges");
  space.proto().add_errors("CUPTI error: insufficient privileges");
  space.proto().add_warnings("buffer full");
  Diagnostics diag;
  Host h = ReadXSpaceBytes(space.Serialize(), "x.xplane.pb", diag);
  CHECK(h.errors == std::vector<std::string>{"CUPTI error: insufficient privileges"});
  CHECK(h.warnings == std::vector<std::string>{"buffer full"});
}

TEST_CASE("XPlane reader clamps negative durations and counts them", "[xplane]") {
  XSpaceBuilder space;
  space.Plane("/host:CPU").Line(1, "t").Event("a", 10, -5);
  Diagnostics diag;
  Host h = ReadXSpaceBytes(space.Serialize(), "x.xplane.pb", diag);
  CHECK(h.planes[0].lines[0].events[0].duration_ps == 0);
  CHECK(diag.Count("xplane.negative_duration") == 1);
}

TEST_CASE("XPlane reader keeps epoch-nanosecond timestamps exact", "[xplane]") {
  // Older captures hold absolute epoch ns; ns*1000 would overflow int64.
  XSpaceBuilder space;
  auto& p = space.Plane("/host:CPU");
  p.Line(1, "a", 1'667'559'361'000'000'000).Event("x", 7, 1);
  p.Line(2, "b", 1'667'559'361'000'000'005).Event("y", 3, 1);
  Diagnostics diag;
  Host h = ReadXSpaceBytes(space.Serialize(), "x.xplane.pb", diag);
  CHECK(h.time_origin_ns == 1'667'559'361'000'000'000);
  CHECK(h.planes[0].lines[0].events[0].start_ps == 7);
  CHECK(h.planes[0].lines[1].events[0].start_ps == 5'003);
}

TEST_CASE("XPlane reader stops at --max-events and says so", "[xplane]") {
  XSpaceBuilder space;
  auto line = space.Plane("/host:CPU").Line(1, "t");
  for (int i = 0; i < 10; ++i) line.Event("e", i * 10, 5);
  Diagnostics diag;
  ReadOptions opt;
  opt.max_events = 4;
  Host h = ReadXSpaceBytes(space.Serialize(), "x.xplane.pb", diag, opt);
  CHECK(h.planes[0].lines[0].events.size() == 4);
  CHECK(diag.Count("read.max_events_reached") == 6);
}

TEST_CASE("XPlane reader rejects ids that point nowhere", "[xplane][bad]") {
  Diagnostics diag;
  SECTION("event metadata") {
    XSpaceBuilder space;
    space.Plane("/host:CPU").Line(1, "t").Event("a", 0, 1);
    space.proto().mutable_planes(0)->mutable_lines(0)->mutable_events(0)->set_metadata_id(77);
    REQUIRE_THROWS_WITH(ReadXSpaceBytes(space.Serialize(), "bad.xplane.pb", diag),
                        Catch::Contains("bad.xplane.pb") && Catch::Contains("event metadata id 77"));
  }
  SECTION("stat metadata") {
    XSpaceBuilder space;
    space.Plane("/host:CPU").Line(1, "t").Event("a", 0, 1, {{"k", int64_t{1}}});
    space.proto().mutable_planes(0)->mutable_lines(0)->mutable_events(0)->mutable_stats(0)->set_metadata_id(5);
    REQUIRE_THROWS_WITH(ReadXSpaceBytes(space.Serialize(), "bad.xplane.pb", diag),
                        Catch::Contains("stat metadata id 5"));
  }
  SECTION("ref value") {
    XSpaceBuilder space;
    space.Plane("/host:CPU").Line(1, "t").Event("a", 0, 1, {{"k", Ref{"v"}}});
    space.proto().mutable_planes(0)->mutable_lines(0)->mutable_events(0)->mutable_stats(0)->set_ref_value(12345);
    REQUIRE_THROWS_WITH(ReadXSpaceBytes(space.Serialize(), "bad.xplane.pb", diag),
                        Catch::Contains("stat metadata id 12345"));
  }
}

TEST_CASE("XPlane reader reports truncated and corrupt input with the byte offset", "[xplane][bad]") {
  std::string bytes = SmallGpuCapture().Serialize();
  Diagnostics diag;
  for (size_t cut : {bytes.size() - 1, bytes.size() / 2, size_t{3}}) {
    INFO("cut at " << cut);
    REQUIRE_THROWS_WITH(ReadXSpaceBytes(bytes.substr(0, cut), "t.xplane.pb", diag),
                        Catch::StartsWith("t.xplane.pb: not a valid XSpace protobuf") && Catch::Contains("at byte"));
  }
  REQUIRE_THROWS_WITH(ReadXSpaceBytes("", "e.xplane.pb", diag), Catch::Contains("empty"));
  try {
    ReadXSpaceBytes(std::string("\x0a\xff\xff\xff\xff\x0f", 6), "len.xplane.pb", diag);
    FAIL("expected an error");
  } catch (const InputError& e) {
    CHECK(e.code() == kExitBadInput);
    CHECK(std::string(e.what()).find("runs past the end") != std::string::npos);
  }
}

TEST_CASE("XPlane reader reads gzip-compressed files", "[xplane]") {
  std::string bytes = SmallGpuCapture().Serialize();
  std::string path = tfprof::testing::TempDir() + "/h.xplane.pb.gz";
  gzFile gz = gzopen(path.c_str(), "wb");
  REQUIRE(gz);
  REQUIRE(gzwrite(gz, bytes.data(), static_cast<unsigned>(bytes.size())) == static_cast<int>(bytes.size()));
  gzclose(gz);
  Diagnostics diag;
  Host h = ReadXSpaceFile(path, diag);
  CHECK(h.gzipped);
  CHECK(h.planes.size() == 2);
  CHECK(h.planes[1].lines[0].events.size() == 1);
}

TEST_CASE("XPlane reader skips plane stats without stat metadata (JAX 0.11's scope-range plane)", "[xplane]") {
  // JAX 0.11 writes /host:__ScopeRangeCallStack__ with plane stats keyed by
  // scope-range ids that have no stat metadata; on events a dangling id
  // still means corruption ("rejects ids that point nowhere").
  XSpaceBuilder space;
  auto& scopes = space.Plane("/host:__ScopeRangeCallStack__", 0);
  scopes.Stat("process_id", int64_t{517});
  xplane::XStat* link = scopes.proto()->add_stats();
  link->set_metadata_id(281474976710682);
  link->set_uint64_value(281474976710665);
  space.Plane("/host:CPU", 1).Line(1, "python3", 1000).Event("train", 0, 5, {{"step_num", int64_t{0}}});
  Diagnostics diag;
  Host h = ReadXSpaceBytes(space.Serialize(), "jax.xplane.pb", diag);
  REQUIRE(h.planes.size() == 2);
  REQUIRE(h.planes[0].plane_stats.size() == 1);  // process_id kept
  CHECK(h.planes[0].plane_stats[0].AsInt() == 517);
  CHECK(diag.Count("xplane.plane_stat_without_metadata") == 1);
  CHECK(h.planes[1].lines[0].events.size() == 1);

  // An event metadata's stat likewise names nothing: skipped too.
  XSpaceBuilder meta;
  auto& cpu = meta.Plane("/host:CPU", 0);
  cpu.Line(1, "python3", 1000).Event("train", 0, 5);
  xplane::XStat* orphan = (*cpu.proto()->mutable_event_metadata())[cpu.EventMetadataId("train")].add_stats();
  orphan->set_metadata_id(4242);
  orphan->set_int64_value(1);
  Diagnostics d2;
  Host m = ReadXSpaceBytes(meta.Serialize(), "jax.xplane.pb", d2);
  CHECK(m.planes[0].metadata_stats.empty());
  CHECK(d2.Count("xplane.plane_stat_without_metadata") == 1);
}

TEST_CASE("XPlane reader de-duplicates many errors and warnings in linear time", "[xplane]") {
  // 60k distinct errors, each twice (first pass, then again in reverse), and
  // warnings that repeat every 1000: a scan of the list per message took
  // seconds here (20 s for 160k distinct errors); a set takes milliseconds.
  // No timing is asserted: the result must be the first of each, in order.
  XSpaceBuilder space;
  space.Plane("/host:CPU");
  constexpr int kDistinct = 60'000;
  auto error = [](int i) { return "error " + std::to_string(i) + ": something failed"; };
  for (int i = 0; i < kDistinct; ++i) space.proto().add_errors(error(i));
  for (int i = kDistinct - 1; i >= 0; --i) space.proto().add_errors(error(i));
  for (int i = 0; i < 2 * kDistinct; ++i) space.proto().add_warnings("warning " + std::to_string(i % 1000));
  Diagnostics diag;
  Host h = ReadXSpaceBytes(space.Serialize(), "x.xplane.pb", diag);
  REQUIRE(h.errors.size() == kDistinct);
  for (int i : {0, 1, 31'337, kDistinct - 1}) CHECK(h.errors[i] == error(i));
  REQUIRE(h.warnings.size() == 1000);
  CHECK(h.warnings.front() == "warning 0");
  CHECK(h.warnings.back() == "warning 999");
}

namespace {

// Protobuf wire bytes, for messages the builder cannot make (an XStat with
// several values set: its oneof forbids that, the wire does not).
using testing::wire::BytesField;
using testing::wire::VarintField;

// One host plane, one line, one event "e" whose stats are `stat_bytes`
// (XStat messages); stat metadata 1 is "s", 2 is "r".
std::string OneEventSpace(const std::vector<std::string>& stat_bytes) {
  std::string event = VarintField(1, 1) + VarintField(2, 0) + VarintField(3, 10);
  for (const std::string& s : stat_bytes) event += BytesField(4, s);
  const std::string line = VarintField(1, 1) + BytesField(2, "t") + BytesField(4, event);
  const std::string event_meta = BytesField(4, VarintField(1, 1) + BytesField(2, BytesField(2, "e")));
  const std::string stat_meta = BytesField(5, VarintField(1, 1) + BytesField(2, BytesField(2, "s"))) +
                                BytesField(5, VarintField(1, 2) + BytesField(2, BytesField(2, "r")));
  const std::string plane =
      VarintField(1, 1) + BytesField(2, "/host:CPU") + BytesField(3, line) + event_meta + stat_meta;
  return BytesField(1, plane);
}

}  // namespace

TEST_CASE("XPlane reader: a stat with several values on the wire takes the last", "[xplane]") {
  // Protobuf's rule for a oneof: the last value parsed is the field's. A
  // string followed by an int is the int (it once kept the int type with
  // the string's id as its value); an int followed by a string, or a
  // reference to a stat name, is that string.
  const std::string str_then_int = VarintField(1, 1) + BytesField(5, "x") + VarintField(4, 5);
  const std::string int_then_str = VarintField(1, 1) + VarintField(4, 5) + BytesField(5, "y");
  const std::string str_then_ref = VarintField(1, 1) + BytesField(5, "z") + VarintField(7, 2);
  for (bool filtered : {false, true}) {
    ReadOptions options;
    if (filtered) options.event_stats = EventStatFilter::Only({"s"});
    Diagnostics d;
    Host h = ReadXSpaceBytes(OneEventSpace({str_then_int, int_then_str, str_then_ref}), "multi.xplane.pb", d, options);
    REQUIRE(h.planes.size() == 1);
    REQUIRE(h.planes[0].lines.size() == 1);
    const Line& line = h.planes[0].lines[0];
    REQUIRE(line.events.size() == 1);
    const auto stats = line.EventStats(0);
    REQUIRE(stats.size() == 3);
    CHECK(stats[0].type() == StatType::kInt64);
    CHECK(stats[0].AsInt() == 5);
    CHECK(stats[1].type() == StatType::kString);
    CHECK(h.Str(stats[1].AsString()) == "y");
    CHECK(stats[2].type() == StatType::kString);
    CHECK(h.Str(stats[2].AsString()) == "r");
  }
}
