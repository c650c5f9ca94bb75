// The XSpace reader decodes a plane's chunks on threads while its pre-scan
// frames the later ones (lib/read/xplane_chunk_pipeline.h). Whatever the
// chunk size and thread count, the model it reads must be the one a read
// in order gives: every testdata capture and damaged file is read with
// chunks of a few events on three threads and compared, field by field,
// with the default read; then the cases the hand-over has to get right,
// built in code.
#include <catch2/catch.hpp>

#include <filesystem>
#include <mutex>
#include <optional>

#include "lib/model/errors.h"
#include "lib/read/wire_decoder.h"
#include "lib/read/xplane_reader.h"
#include "lib/read/xplane_wire.h"
#include "tests/support/files.h"
#include "tests/support/xspace_builder.h"

using namespace tfprof;
using tfprof::testing::XSpaceBuilder;
using tfprof::testing::wire::BytesField;
using tfprof::testing::wire::VarintField;

namespace {

// A read's model, or the error it ended with.
struct ReadResult {
  std::optional<Host> host;
  std::string error;
  std::vector<DiagnosticEntry> diagnostics;
};

// How a line's chunks join: at the line's end (every line of a small
// capture); as they decode (every line counts as long); and so, with the
// pre-scan waiting for each chunk to be decoded, so that the chunks of a
// line go to its early arrays before it is counted. The pre-scan's thread
// may decode too, when it runs ahead (ReadOptions::decode_lead_bytes):
// with a lead of a byte, whenever more chunks are queued than there are
// other threads (the `Leading` ways).
enum class Join { kAtEnd, kEarly, kEarlyInTurn, kAtEndLeading, kEarlyLeading };

ReadResult ReadWith(const std::string& bytes, ReadOptions options, size_t chunk_events, size_t threads,
                    Join join = Join::kAtEnd) {
  options.decode_chunk_events = chunk_events;
  options.decode_threads = threads;
  if (join != Join::kAtEnd && join != Join::kAtEndLeading) options.decode_early_join_bytes = 1;
  options.decode_in_turn = join == Join::kEarlyInTurn;
  if (join == Join::kAtEndLeading || join == Join::kEarlyLeading) options.decode_lead_bytes = 1;
  ReadResult r;
  Diagnostics d;
  try {
    r.host = ReadXSpaceBytes(bytes, "capture.xplane.pb", d, options);
  } catch (const InputError& e) {
    r.error = e.what();
  }
  r.diagnostics = d.Entries();
  return r;
}

void CheckSameStats(std::span<const Stat> a, std::span<const Stat> b) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    // Copied out first: a Stat's 8-byte value is packed at 4 bytes, and
    // CHECK would bind a reference to it.
    const uint32_t key_a = a[i].key_and_type, key_b = b[i].key_and_type;
    const uint64_t bits_a = a[i].bits, bits_b = b[i].bits;
    CHECK(key_a == key_b);
    CHECK(bits_a == bits_b);
  }
}

// Field by field; string ids too: both reads intern in the same order.
void CheckSameModel(const Host& a, const Host& b) {
  CHECK(a.time_origin_ns == b.time_origin_ns);
  CHECK(a.event_stats_dropped == b.event_stats_dropped);
  CHECK(a.derived_lines_skipped == b.derived_lines_skipped);
  CHECK(a.host_thread_lines_skipped == b.host_thread_lines_skipped);
  CHECK(a.device_lines_skipped == b.device_lines_skipped);
  CHECK(a.allocator_events_skipped == b.allocator_events_skipped);
  REQUIRE(a.strings.size() == b.strings.size());
  for (StringId i = 0; i < a.strings.size(); ++i) CHECK(a.Str(i) == b.Str(i));
  REQUIRE(a.planes.size() == b.planes.size());
  for (size_t p = 0; p < a.planes.size(); ++p) {
    const Plane &pa = a.planes[p], &pb = b.planes[p];
    CHECK(pa.name == pb.name);
    CheckSameStats(pa.plane_stats, pb.plane_stats);
    CheckSameStats(pa.metadata_stats, pb.metadata_stats);
    REQUIRE(pa.lines.size() == pb.lines.size());
    for (size_t l = 0; l < pa.lines.size(); ++l) {
      const Line &la = pa.lines[l], &lb = pb.lines[l];
      INFO("plane " << p << " line " << l);
      CHECK(la.id == lb.id);
      CHECK(la.name == lb.name);
      CHECK(la.timestamp_ns == lb.timestamp_ns);
      REQUIRE(la.events.size() == lb.events.size());
      for (size_t e = 0; e < la.events.size(); ++e) {
        CHECK(la.events[e].start_ps == lb.events[e].start_ps);
        CHECK(la.events[e].duration_ps == lb.events[e].duration_ps);
        CHECK(la.events[e].metadata == lb.events[e].metadata);
        CHECK(la.events[e].stats_end == lb.events[e].stats_end);
      }
      CheckSameStats(la.stats, lb.stats);
    }
  }
}

void CheckSameRead(const ReadResult& a, const ReadResult& b) {
  CHECK(a.error == b.error);
  REQUIRE(a.host.has_value() == b.host.has_value());
  if (a.host) CheckSameModel(*a.host, *b.host);
  REQUIRE(a.diagnostics.size() == b.diagnostics.size());
  for (size_t i = 0; i < a.diagnostics.size(); ++i) {
    CHECK(a.diagnostics[i].kind == b.diagnostics[i].kind);
    CHECK(a.diagnostics[i].count == b.diagnostics[i].count);
    CHECK(a.diagnostics[i].example == b.diagnostics[i].example);
  }
}

// The plain read against reads in chunks of each size on each number of
// threads, each way a line's chunks join.
void CheckTunedReads(const ReadResult& plain, const std::string& bytes, const ReadOptions& options,
                     std::initializer_list<size_t> chunks, std::initializer_list<size_t> threads) {
  for (size_t chunk : chunks)
    for (size_t t : threads)
      for (Join join : {Join::kAtEnd, Join::kEarly, Join::kEarlyInTurn, Join::kAtEndLeading, Join::kEarlyLeading}) {
        INFO("chunk " << chunk << " threads " << t << " join " << static_cast<int>(join));
        CheckSameRead(plain, ReadWith(bytes, options, chunk, t, join));
      }
}

// The filters the commands read with: everything (info), what the
// analyses read (derived lines and allocator events left out), the
// devices alone (kernel-stats), the host threads alone (memory).
std::vector<ReadOptions> CommandReads() {
  std::vector<ReadOptions> out(4);
  EventStatFilter analysing = EventStatFilter::Only({"correlation_id", "tf_op", "group_id", "_r", "step_num"});
  analysing.keep_derived_line_events = false;
  analysing.keep_allocator_events = false;
  out[1].event_stats = analysing;
  EventStatFilter devices = analysing;
  devices.keep_host_thread_events = false;
  out[2].event_stats = devices;
  EventStatFilter host = analysing;
  host.keep_allocator_events = true;
  host.keep_device_events = false;
  out[3].event_stats = host;
  return out;
}

std::vector<std::string> TestdataXSpaces() {
  std::vector<std::string> out;
  for (const char* dir : {"/testdata/captures", "/testdata/bad"})
    for (const auto& f : std::filesystem::recursive_directory_iterator(std::string(TFPROF_SOURCE_DIR) + dir))
      if (f.is_regular_file() && f.path().filename().string().ends_with(".xplane.pb")) out.push_back(f.path());
  std::sort(out.begin(), out.end());
  return out;
}

// A line of `n` events named e0.. e{n-1}, 10 us apart, each with a stat.
void AddEvents(tfprof::testing::LineBuilder line, int n, int64_t first_offset_ps = 0) {
  for (int i = 0; i < n; ++i)
    line.Event("e" + std::to_string(i % 3), first_offset_ps + i * 10 * tfprof::testing::kUs, tfprof::testing::kUs,
               {{"step_num", int64_t{i}}, {"tf_op", std::string("op") + std::to_string(i)}});
}

// A host plane of two lines of `n` events each, both from 1,000 ns.
tfprof::testing::PlaneBuilder& TwoLines(XSpaceBuilder& space, const std::string& first, const std::string& second,
                                        int n) {
  auto& host = space.Plane("/host:CPU", 0);
  AddEvents(host.Line(1, first, 1'000), n);
  AddEvents(host.Line(2, second, 1'000), n);
  return host;
}

}  // namespace

TEST_CASE("XSpace chunk pipeline: every testdata capture reads the same in chunks of a few events on threads",
          "[xplane][pipeline]") {
  const std::vector<std::string> files = TestdataXSpaces();
  REQUIRE(files.size() >= 20);
  for (const std::string& path : files) {
    const std::string bytes = tfprof::testing::Slurp(path);
    for (const ReadOptions& options : CommandReads()) {
      INFO(path << " keep_all " << options.event_stats.keep_all << " host lines "
                << options.event_stats.keep_host_thread_events);
      const ReadResult plain = ReadWith(bytes, options, 0, 1);
      CheckTunedReads(plain, bytes, options, {1, 3, 64}, {2, 3});
    }
  }
}

TEST_CASE("XSpace chunk pipeline: lines of many chunks, out of order, left out, timed after their events",
          "[xplane][pipeline]") {
  XSpaceBuilder space;
  auto& host = space.Plane("/host:CPU", 0);
  AddEvents(host.Line(1, "main", 5'000), 40);
  // Out of order across chunk boundaries: sorted, and said so once.
  auto unsorted = host.Line(2, "worker", 6'000);
  for (int i : {5, 1, 2, 9, 3, 4, 0, 8, 7, 6})
    unsorted.Event("w", i * tfprof::testing::kUs, 1, {{"step_num", int64_t{i}}});
  // Allocator events between the others: left out by analysing reads.
  auto alloc = host.Line(3, "alloc", 7'000);
  for (int i = 0; i < 20; ++i)
    alloc.Event(i % 2 ? "MemoryAllocation" : "op", i * tfprof::testing::kUs, 1, {{"bytes_allocated", int64_t{i}}});
  const std::string bytes = space.Serialize();
  for (const ReadOptions& options : CommandReads()) {
    const ReadResult plain = ReadWith(bytes, options, 0, 1);
    REQUIRE(plain.host);
    CheckTunedReads(plain, bytes, options, {1, 2, 3, 7}, {2, 3, 8});
  }
  // What the plain read itself gives, checked by hand.
  const ReadResult all = ReadWith(bytes, ReadOptions{}, 2, 3);
  REQUIRE(all.host);
  const Line& worker = all.host->planes[0].lines[1];
  REQUIRE(worker.events.size() == 10);
  for (size_t e = 0; e < 10; ++e) CHECK(worker.events[e].start_ps == 1'000'000 + static_cast<int64_t>(e) * 1'000'000);
  CHECK(worker.IsSorted());
  const Line& main = all.host->planes[0].lines[0];
  REQUIRE(main.events.size() == 40);
  CHECK(main.events[39].start_ps == 390 * tfprof::testing::kUs);
  CHECK(main.EventStats(39).size() == 2);
}

TEST_CASE("XSpace chunk pipeline: a line denser than its first chunk, in stats or events, joins the rest at its end",
          "[xplane][pipeline]") {
  // A long line's early arrays are sized from its first chunk's stats and
  // events per byte, with 4,096 slots to spare. "main" starts with events
  // without stats: its later chunks (three stats an event) do not all fit
  // the stats pool. "wide" starts with events of 2,000-byte names: its
  // later events, a few bytes each, do not fit the events array. What fit
  // stays at the arrays' start; the rest is copied in after.
  XSpaceBuilder space;
  auto& host = space.Plane("/host:CPU", 0);
  auto main = host.Line(1, "main", 1'000);
  constexpr int kFirst = 8, kMain = 2'000, kWide = 6'000;
  for (int i = 0; i < kFirst; ++i) main.Event("bare", i * tfprof::testing::kUs, 1, {});
  for (int i = 0; i < kMain; ++i)
    main.Event("full", (kFirst + i) * tfprof::testing::kUs, 1,
               {{"step_num", int64_t{i}}, {"tf_op", std::string("op") + std::to_string(i % 7)}, {"id", int64_t{-i}}});
  auto wide = host.Line(2, "wide", 1'000);
  for (int i = 0; i < kFirst; ++i)
    wide.Event("w", i * tfprof::testing::kUs, 1, {{"tf_op", std::string(2'000, static_cast<char>('a' + i))}});
  for (int i = 0; i < kWide; ++i) wide.Event("n", (kFirst + i) * tfprof::testing::kUs, 1, {});
  const std::string bytes = space.Serialize();
  const ReadResult plain = ReadWith(bytes, ReadOptions{}, 0, 1);
  REQUIRE(plain.host);
  const Line& m = plain.host->planes[0].lines[0];
  REQUIRE(m.events.size() == kFirst + kMain);
  CHECK(m.stats.size() == 3 * kMain);
  CHECK(m.EventStats(kFirst - 1).empty());
  const std::span<const Stat> last = m.EventStats(kFirst + kMain - 1);
  REQUIRE(last.size() == 3);
  CHECK(last[0].AsInt() == kMain - 1);
  CHECK(plain.host->Str(last[1].AsString()) == "op4");  // 1,999 % 7
  CHECK(last[2].AsInt() == 1 - kMain);
  const Line& w = plain.host->planes[0].lines[1];
  REQUIRE(w.events.size() == kFirst + kWide);
  CHECK(w.events.back().start_ps == (kFirst + kWide - 1) * tfprof::testing::kUs);
  CHECK(plain.host->Str(w.EventStats(kFirst - 1)[0].AsString()) == std::string(2'000, 'h'));
  // Chunks of 8 (the first ones), on one to three threads.
  CheckTunedReads(plain, bytes, ReadOptions{}, {kFirst, 64, 500}, {1, 2, 3});
}

TEST_CASE("XSpace chunk pipeline: a line whose timestamp comes again after its first events takes the last",
          "[xplane][pipeline]") {
  // Writers put a line's id and timestamp before its events; protobuf
  // allows them anywhere, and again (the last counts). The line's first
  // chunks are handed over with the first timestamp, then dropped and
  // handed over again with the last.
  XSpaceBuilder space;
  xplane::XPlane& plane = *TwoLines(space, "first", "late", 12).proto();
  const std::string late_line = plane.lines(1).SerializeAsString() + VarintField(3, 3'000);  // timestamp_ns again
  plane.mutable_lines()->DeleteSubrange(1, 1);
  const std::string plane_bytes = plane.SerializeAsString() + BytesField(3, late_line);
  const std::string bytes = BytesField(1, plane_bytes);
  const ReadResult plain = ReadWith(bytes, ReadOptions{}, 0, 1);
  REQUIRE(plain.host);
  const Line& late = plain.host->planes[0].lines[1];
  CHECK(late.timestamp_ns == 3'000);
  REQUIRE(late.events.size() == 12);
  // 2,000 ns after the origin (the first line's 1,000 ns).
  CHECK(late.events[0].start_ps == 2'000'000);
  CheckTunedReads(plain, bytes, ReadOptions{}, {1, 2, 5, 64}, {2, 3});
  // As the first line with events, it sets the time origin: from its last
  // timestamp, not from the one its first chunks were handed over with.
  xplane::XPlane alone = plane;
  alone.mutable_lines()->Clear();
  const std::string alone_bytes = BytesField(1, alone.SerializeAsString() + BytesField(3, late_line));
  const ReadResult first = ReadWith(alone_bytes, ReadOptions{}, 0, 1);
  REQUIRE(first.host);
  CHECK(first.host->time_origin_ns == 3'000);
  REQUIRE(first.host->planes[0].lines.size() == 1);
  CHECK(first.host->planes[0].lines[0].events[0].start_ps == 0);
  CheckTunedReads(first, alone_bytes, ReadOptions{}, {1, 3}, {3});
}

TEST_CASE(
    "XSpace chunk pipeline: a line whose id comes again after its first events, naming a derived line, is "
    "skipped",
    "[xplane][pipeline]") {
  // Its first chunks are handed over (an ordinary line id came first);
  // the id after its events makes it a derived line (TensorFlow Ops),
  // which the analysing commands do not read: the chunks are dropped and
  // the line counted as skipped, as a read in order does.
  XSpaceBuilder space;
  xplane::XPlane& plane = *TwoLines(space, "first", "renamed", 12).proto();
  const int64_t tf_ops_id = static_cast<int32_t>(0xdeadbeefu) + 3;
  const std::string renamed = plane.lines(1).SerializeAsString() + VarintField(1, static_cast<uint64_t>(tf_ops_id));
  plane.mutable_lines()->DeleteSubrange(1, 1);
  const std::string bytes = BytesField(1, plane.SerializeAsString() + BytesField(3, renamed));
  const ReadOptions analysing = CommandReads()[1];
  const ReadResult plain = ReadWith(bytes, analysing, 0, 1);
  REQUIRE(plain.host);
  CHECK(plain.host->derived_lines_skipped == 1);
  REQUIRE(plain.host->planes[0].lines.size() == 2);
  CHECK(plain.host->planes[0].lines[1].id == tf_ops_id);
  CHECK(plain.host->planes[0].lines[1].events.empty());
  CHECK(plain.host->planes[0].lines[0].events.size() == 12);
  CheckTunedReads(plain, bytes, analysing, {1, 2, 5}, {2, 3});
  // Read whole (info), the line keeps its events.
  const ReadResult whole = ReadWith(bytes, ReadOptions{}, 0, 1);
  REQUIRE(whole.host);
  CHECK(whole.host->planes[0].lines[1].events.size() == 12);
  CheckTunedReads(whole, bytes, ReadOptions{}, {1, 5}, {2});
}

TEST_CASE("XSpace chunk pipeline: a corrupt event deep in a line fails with the error of a read in order",
          "[xplane][pipeline][bad]") {
  XSpaceBuilder space;
  TwoLines(space, "main", "other", 30);
  std::string bytes = space.Serialize();
  // Point an event late in the first line at event metadata that is not
  // there: its metadata id (one byte here) comes just before its offset.
  const size_t at = bytes.find(VarintField(2, 250 * tfprof::testing::kUs));
  REQUIRE(at != std::string::npos);
  REQUIRE(bytes[at - 2] == 0x08);
  bytes[at - 1] = 99;
  const ReadResult plain = ReadWith(bytes, ReadOptions{}, 0, 1);
  CHECK_THAT(plain.error, Catch::Contains("event metadata id 99"));
  CheckTunedReads(plain, bytes, ReadOptions{}, {1, 4, 7}, {2, 3});
}

namespace {

// Byte ranges of a serialized capture: each plane's, and each line's from
// its first event to its end.
struct WireRanges {
  std::vector<std::pair<uint64_t, uint64_t>> planes, line_events;
};
WireRanges RangesOf(const std::string& bytes) {
  using namespace tfprof::xplane_wire;
  WireRanges out;
  tfprof::WireDecoder space(bytes);
  uint32_t field;
  tfprof::WireType type;
  while (space.NextField(&field, &type)) {
    if (field != kSpacePlanes) {
      space.Skip(type);
      continue;
    }
    tfprof::WireDecoder plane = space.Message();
    out.planes.emplace_back(plane.offset(), plane.offset() + plane.size());
    while (plane.NextField(&field, &type)) {
      if (field != kPlaneLines) {
        plane.Skip(type);
        continue;
      }
      tfprof::WireDecoder line = plane.Message();
      const uint64_t end = line.offset() + line.size();
      for (uint64_t at = line.offset(); line.NextField(&field, &type); at = line.offset()) {
        if (field == kLineEvents) {
          out.line_events.emplace_back(at, end);
          break;
        }
        line.Skip(type);
      }
    }
  }
  return out;
}

}  // namespace

TEST_CASE("XSpace chunk pipeline: every line's pages are given back as it is read, not when its plane ends",
          "[xplane][pipeline]") {
  // Four lines of 40 events. The pages of a chunk handed over as it is
  // framed are given back by its decoder; those of a line decoded only
  // once counted (here under --max-events, which also cuts lines short
  // and leaves the last ones undecoded) by the pre-scan, behind it. The
  // reader gives the plane's range back once more at its end: left out
  // here, what is left must still cover every line's events.
  XSpaceBuilder space;
  auto& host = space.Plane("/host:CPU", 0);
  for (int l = 1; l <= 4; ++l) AddEvents(host.Line(l, "line" + std::to_string(l), 1'000), 40);
  const std::string bytes = space.Serialize();
  const WireRanges ranges = RangesOf(bytes);
  REQUIRE(ranges.planes.size() == 1);
  REQUIRE(ranges.line_events.size() == 4);
  for (uint64_t max_events : {uint64_t{0}, uint64_t{50}, uint64_t{3}}) {
    for (size_t threads : {1, 2}) {
      for (uint64_t lead : {uint64_t{0}, uint64_t{1}}) {
        INFO("max events " << max_events << ", " << threads << " threads, lead " << lead);
        ReadOptions options;
        options.decode_chunk_events = 3;
        options.decode_threads = threads;
        options.decode_lead_bytes = lead;
        options.max_events = max_events;
        std::mutex mutex;
        std::vector<std::pair<uint64_t, uint64_t>> released;
        Diagnostics d;
        const Host h = tfprof::ReadXSpaceBytesForTesting(bytes, "capture.xplane.pb", d, options,
                                                         [&](uint64_t begin, uint64_t end) {
                                                           std::lock_guard<std::mutex> lock(mutex);
                                                           released.emplace_back(begin, end);
                                                         });
        size_t whole_plane = 0;
        std::vector<std::pair<uint64_t, uint64_t>> during;
        for (const auto& r : released) {
          if (r == ranges.planes[0]) ++whole_plane;
          else during.push_back(r);
        }
        CHECK(whole_plane == 1);
        std::sort(during.begin(), during.end());
        for (const auto& [begin, end] : ranges.line_events) {
          // Covered by the ranges given back while reading, joined.
          uint64_t covered = begin;
          for (const auto& [b, e] : during)
            if (b <= covered && e > covered) covered = e;
          CHECK(covered >= end);
        }
        size_t events = 0;
        for (const Line& line : h.planes[0].lines) events += line.events.size();
        CHECK(events == (max_events ? std::min<uint64_t>(max_events, 160) : 160));
      }
    }
  }
}
