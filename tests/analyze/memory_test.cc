// The memory profile on a small capture built in code, every number worked
// out by hand; sampling; the stat-type quirk; odd input; the command's
// answers when a capture has no memory profile.
#include <catch2/catch.hpp>

#include <algorithm>
#include <initializer_list>
#include <numeric>

#include "lib/analyze/memory_profile_report.h"
#include "lib/read/xplane_reader.h"
#include "lib/summary/event_grouping.h"
#include "lib/summary/memory_events_to_profile.h"
#include "tests/support/corpus.h"
#include "tests/support/memory_profile_checks.h"
#include "tests/support/run_tool.h"
#include "tests/support/xspace_builder.h"

using namespace tfprof;
using tfprof::testing::CheckSameDiagnostics;
using tfprof::testing::CheckSameProfile;
using tfprof::testing::Ref;
using tfprof::testing::StatList;
using tfprof::testing::XSpaceBuilder;

namespace {

constexpr int64_t kMiB = 1 << 20;
constexpr int64_t kUs = 1'000'000;       // ps
constexpr int64_t kLimit = 1024 * kMiB;  // The allocator's memory limit.
constexpr int64_t kStack = 4 * kMiB;

// BFCAllocator's stats after an event that leaves `heap` bytes in use.
// `id` is the pending step id TensorFlow writes; the profile must ignore it
// and take the step from grouping.
StatList Alloc(const std::string& allocator, int64_t heap, int64_t requested, int64_t allocated, int64_t address,
               const std::string& op, const std::string& region, int64_t dtype, const std::string& shape,
               double fragmentation = 0.25) {
  return {{"allocator_name", Ref{allocator}},
          {"bytes_reserved", kStack},
          {"bytes_allocated", heap},
          {"bytes_available", kLimit - kStack - heap},
          {"fragmentation", fragmentation},
          {"peak_bytes_in_use", 300 * kMiB},
          {"requested_bytes", requested},
          {"allocation_bytes", allocated},
          {"addr", address},
          {"tf_op", Ref{op}},
          {"id", int64_t{77}},
          {"region_type", Ref{region}},
          {"data_type", dtype},
          {"shape", Ref{shape}}};
}
StatList Free(const std::string& allocator, int64_t heap, int64_t size, int64_t address) {
  return {{"allocator_name", Ref{allocator}},
          {"bytes_reserved", kStack},
          {"bytes_allocated", heap},
          {"bytes_available", kLimit - kStack - heap},
          {"fragmentation", 0.5},
          {"peak_bytes_in_use", 300 * kMiB},
          {"requested_bytes", size},
          {"allocation_bytes", size},
          {"addr", address},
          {"id", int64_t{77}}};
}
StatList HostAlloc(int64_t heap, int64_t address, bool free) {
  return {
      {"allocator_name", Ref{"gpu_host_bfc"}}, {"bytes_reserved", int64_t{0}},     {"bytes_allocated", heap},
      {"bytes_available", kMiB - heap},        {"fragmentation", int64_t{0}},      {"peak_bytes_in_use", int64_t{256}},
      {"requested_bytes", int64_t{4}},         {"allocation_bytes", int64_t{256}}, {"addr", address},
      {"tf_op", Ref{free ? "" : "Size"}},      {"data_type", int64_t{3}},          {"shape", Ref{"[]"}}};
}

// GPU_0_bfc holds 21 MiB from before the window (4 MiB stack on top).
// Step 1 (train root, 0..100 us):
//    5 us free 1 MiB at 0x9000 (allocated before the window)  heap  20 MiB
//   10 us alloc A 100 MiB dense/MatMul                          heap 120 MiB
//   20 us alloc B  50 MiB (49 requested) dense/BiasAdd          heap 170 MiB
//   30 us free A                                                heap  70 MiB
//   40 us alloc C 200 MiB conv/Conv2D                           heap 270 MiB  <- peak 274 MiB
//   50 us free B                                                heap 220 MiB
//   60 us free C                                                heap  20 MiB
// Step 2 (200..300 us): 210 us alloc D 100 MiB at A's address   heap 120 MiB
// After the steps:     310 us free D                            heap  20 MiB
// gpu_host_bfc on another thread, no steps: 256 B at 15 us, freed at 25 us,
// 256 B again at 35 us (the same peak, later: it wins).
XSpaceBuilder HandCapture() {
  XSpaceBuilder b;
  b.Hostname("box");
  auto& cpu = b.Plane("/host:CPU");
  const std::string g = "GPU_0_bfc";
  cpu.Line(1, "tf_Compute", 1000)
      .Event("train", 0, 100 * kUs, {{"_r", int64_t{1}}, {"step_num", int64_t{1}}})
      .Event("MemoryDeallocation", 5 * kUs, 0, Free(g, 20 * kMiB, kMiB, 0x9000))
      .Event("MemoryAllocation", 10 * kUs, 0,
             Alloc(g, 120 * kMiB, 100 * kMiB, 100 * kMiB, 0x1000, "dense/MatMul", "output", 1, "[256,102400]"))
      .Event("MemoryAllocation", 20 * kUs, 0,
             Alloc(g, 170 * kMiB, 49 * kMiB, 50 * kMiB, 0x2000, "dense/BiasAdd", "temp", 1, "[256,50176]"))
      .Event("MemoryDeallocation", 30 * kUs, 0, Free(g, 70 * kMiB, 100 * kMiB, 0x1000))
      .Event("MemoryAllocation", 40 * kUs, 0,
             Alloc(g, 270 * kMiB, 200 * kMiB, 200 * kMiB, 0x3000, "conv/Conv2D", "output", 19, "[64,64,160,160]"))
      .Event("MemoryDeallocation", 50 * kUs, 0, Free(g, 220 * kMiB, 50 * kMiB, 0x2000))
      .Event("MemoryDeallocation", 60 * kUs, 0, Free(g, 20 * kMiB, 200 * kMiB, 0x3000))
      .Event("train", 200 * kUs, 100 * kUs, {{"_r", int64_t{1}}, {"step_num", int64_t{2}}})
      .Event("MemoryAllocation", 210 * kUs, 0,
             Alloc(g, 120 * kMiB, 100 * kMiB, 100 * kMiB, 0x1000, "dense/MatMul", "output", 1, "[256,102400]"))
      .Event("MemoryDeallocation", 310 * kUs, 0, Free(g, 20 * kMiB, 100 * kMiB, 0x1000));
  cpu.Line(2, "tf_Compute_2", 1000)
      .Event("MemoryAllocation", 15 * kUs, 0, HostAlloc(256, 0x7000, false))
      .Event("MemoryDeallocation", 25 * kUs, 0, HostAlloc(0, 0x7000, true))
      .Event("MemoryAllocation", 35 * kUs, 0, HostAlloc(256, 0x7100, false));
  return b;
}

HostMemoryProfile Build(const XSpaceBuilder& b, Diagnostics& d, Compat compat = Compat::kDefault) {
  Host h = ReadXSpaceBytes(b.Serialize(), "box.xplane.pb", d);
  return BuildMemoryProfile(h, MemoryProfileOptionsFor(compat), d);
}

}  // namespace

TEST_CASE("Memory profile: peak, its time and step, and what was alive then", "[memory]") {
  Diagnostics d;
  HostMemoryProfile p = Build(HandCapture(), d);
  REQUIRE(p.no_profile_reason.empty());
  REQUIRE(p.allocators.size() == 2);
  // Byte order: upper case sorts first.
  CHECK(p.allocators[0].memory_id == "GPU_0_bfc");
  CHECK(p.allocators[1].memory_id == "gpu_host_bfc");

  const AllocatorMemoryProfile& gpu = p.allocators[0];
  CHECK(gpu.timeline.size() == 9);
  CHECK(gpu.allocations == 4);
  CHECK(gpu.deallocations == 5);
  CHECK(gpu.peak_bytes == 274 * kMiB);  // 4 MiB stack + 270 MiB heap
  CHECK(gpu.peak_time_ps == 40 * kUs);
  CHECK(gpu.peak.stack_bytes == kStack);
  CHECK(gpu.peak.heap_bytes == 270 * kMiB);
  CHECK(gpu.peak.free_bytes == kLimit - kStack - 270 * kMiB);
  CHECK(gpu.peak.fragmentation == 0.25);
  CHECK(gpu.capacity_bytes == kLimit);
  CHECK(gpu.lifetime_peak_bytes == 300 * kMiB);
  CHECK(gpu.peak_step == 0);
  CHECK(p.step_names.at(0) == "train 1");
  CHECK(p.step_names.at(1) == "train 2");

  // Steps come from grouping (the `id` stat says 77): step 1 is group 0,
  // step 2 group 1, and the free after the last step counts toward the next.
  CHECK(gpu.timeline[0].step == 0);
  CHECK(gpu.timeline[7].step == 1);
  CHECK(gpu.timeline[8].step == 2);
  // A free takes what its allocation was; the one allocated before the
  // window stays undescribed and is counted.
  CHECK(p.Str(gpu.timeline[3].op_name) == "dense/MatMul");
  CHECK(p.Str(gpu.timeline[3].region_type) == "output");
  CHECK(p.Str(gpu.timeline[0].op_name).empty());
  CHECK(d.Count("memory.unmatched_deallocation") == 1);

  // Alive at the peak: C and B; the 20 MiB held from before the window; the
  // stack. Largest first.
  REQUIRE(gpu.active.size() == 4);
  auto row = [&](size_t i) { return std::string(p.Str(gpu.active[i].op_name)); };
  CHECK(row(0) == "conv/Conv2D");
  CHECK(gpu.active[0].allocation_bytes == 200 * kMiB);
  CHECK(DataTypeName(gpu.active[0].data_type) == "half");
  CHECK(p.Str(gpu.active[0].shape) == "[64,64,160,160]");
  CHECK(gpu.active[0].snapshot == 4);
  CHECK(row(1) == "dense/BiasAdd");
  CHECK(gpu.active[1].allocation_bytes == 50 * kMiB);
  CHECK(gpu.active[1].requested_bytes == 49 * kMiB);
  CHECK(p.Str(gpu.active[1].region_type) == "temp");
  CHECK(row(2) == "unused preallocated device memory");
  CHECK(gpu.active[2].allocation_bytes == 20 * kMiB);
  CHECK(gpu.active[2].special == 0);
  CHECK(p.Str(gpu.active[2].region_type) == "persist/dynamic");
  CHECK(row(3) == "stack");
  CHECK(gpu.active[3].allocation_bytes == kStack);
  CHECK(gpu.active[3].special == 1);
  int64_t explained = 0;
  for (const ActiveAllocation& a : gpu.active) explained += a.allocation_bytes * a.occurrences;
  CHECK(explained == gpu.peak_bytes);

  // Equal peaks: the later one wins; its allocation is the only row.
  const AllocatorMemoryProfile& host = p.allocators[1];
  CHECK(host.peak_bytes == 256);
  CHECK(host.peak_time_ps == 35 * kUs);
  CHECK(host.capacity_bytes == kMiB);
  CHECK(host.timeline[1].step == 0);  // No steps on that thread: all step 0.
  REQUIRE(host.active.size() == 1);
  CHECK(host.active[0].snapshot == 2);
  CHECK(p.Str(host.active[0].op_name) == "Size");
  CHECK(DataTypeName(host.active[0].data_type) == "int32");
}

TEST_CASE("Memory profile read without device events: the device's Steps line still names the steps", "[memory]") {
  // A capture grouped when taken (group_id stats): the step's name is only
  // on the GPU's Steps line, as TensorFlow wrote it. memory reads no other
  // device line; the profile, its peak step's name included, is the one
  // read with everything.
  XSpaceBuilder b;
  const std::string g = "GPU_0_bfc";
  StatList alloc = Alloc(g, 120 * kMiB, 100 * kMiB, 100 * kMiB, 0x1000, "dense/MatMul", "output", 1, "[256,102400]");
  StatList free = Free(g, 20 * kMiB, 100 * kMiB, 0x1000);
  alloc.push_back({"group_id", int64_t{4}});
  free.push_back({"group_id", int64_t{4}});
  auto& cpu = b.Plane("/host:CPU");
  cpu.Line(1, "tf_Compute", 1000)
      .Event("train", 0, 100 * kUs, {{"group_id", int64_t{4}}})
      .Event("MemoryAllocation", 10 * kUs, 0, alloc)
      .Event("MemoryDeallocation", 30 * kUs, 0, free);
  cpu.Line(2, "tf_Compute_2", 1000)
      .Event("cuLaunchKernel", 12 * kUs, 1 * kUs, {{"group_id", int64_t{4}}, {"correlation_id", uint64_t{3}}});
  auto& gpu = b.Plane("/device:GPU:0", 1);
  gpu.Line(static_cast<int32_t>(0xdeadbeefu), "Steps", 1000)
      .Event("4", 0, 100 * kUs, {{"group_id", int64_t{4}}, {"step_name", Ref{"train 4"}}});
  gpu.Line(7, "Stream #7(Compute)", 1000)
      .Event("gemm", 14 * kUs, 5 * kUs, {{"group_id", int64_t{4}}, {"correlation_id", uint64_t{3}}});
  const std::string bytes = b.Serialize();
  auto profile = [&](bool device_events, Host& h) {
    ReadOptions read;
    read.event_stats.keep_device_events = device_events;
    Diagnostics d;
    h = ReadXSpaceBytes(bytes, "steps.xplane.pb", d, read);
    return BuildMemoryProfile(h, MemoryProfileOptionsFor(Compat::kDefault), d);
  };
  Host all_host, host_only;
  const HostMemoryProfile all = profile(true, all_host), some = profile(false, host_only);
  CHECK(all_host.device_lines_skipped == 0);
  CHECK(host_only.device_lines_skipped == 1);  // The compute stream; the Steps line is read.
  REQUIRE(host_only.planes[1].lines.size() == 2);
  CHECK(host_only.planes[1].lines[0].events.size() == 1);
  CHECK(host_only.planes[1].lines[1].events.empty());
  REQUIRE(all.allocators.size() == 1);
  REQUIRE(some.allocators.size() == 1);
  for (const HostMemoryProfile* p : {&all, &some}) {
    const AllocatorMemoryProfile& a = p->allocators[0];
    CHECK(a.peak_step == 4);
    CHECK(a.peak_bytes == 124 * kMiB);  // 4 MiB stack + 120 MiB heap at 10 us.
    CHECK(a.allocations == 1);
    CHECK(a.deallocations == 1);
    REQUIRE(p->step_names.count(4) == 1);
    CHECK(p->step_names.at(4) == "train 4");
  }
}

TEST_CASE("Memory profile: the breakdown at a peak in a later step reads that step's events from its first",
          "[memory]") {
  // Three steps (group ids on the events, as in a capture grouped when
  // taken). The peak's step, 2, starts with an allocation outside any
  // group, which counts toward the step after the last one seen: the
  // breakdown, read from the step's first event, must resume the steps
  // from there to count it. A's 10 MiB, from step 1 and never freed, is
  // the heap no allocation of the step explains.
  XSpaceBuilder b;
  const std::string g = "GPU_0_bfc";
  auto in_group = [](StatList stats, int64_t group) {
    stats.push_back({"group_id", group});
    return stats;
  };
  auto& cpu = b.Plane("/host:CPU");
  cpu.Line(1, "tf_Compute", 1000)
      .Event("train", 0, 26 * kUs, {{"group_id", int64_t{1}}})
      .Event("MemoryAllocation", 10 * kUs, 0,
             in_group(Alloc(g, 10 * kMiB, 10 * kMiB, 10 * kMiB, 0x10, "A", "output", 1, "[1]"), 1))
      .Event("MemoryAllocation", 20 * kUs, 0,
             in_group(Alloc(g, 40 * kMiB, 30 * kMiB, 30 * kMiB, 0x20, "B", "output", 1, "[2]"), 1))
      .Event("MemoryDeallocation", 25 * kUs, 0, in_group(Free(g, 10 * kMiB, 30 * kMiB, 0x20), 1))
      .Event("MemoryAllocation", 30 * kUs, 0, Alloc(g, 15 * kMiB, 5 * kMiB, 5 * kMiB, 0x60, "F", "temp", 1, "[3]"))
      .Event("train", 35 * kUs, 30 * kUs, {{"group_id", int64_t{2}}})
      .Event("MemoryAllocation", 40 * kUs, 0,
             in_group(Alloc(g, 65 * kMiB, 50 * kMiB, 50 * kMiB, 0x30, "C", "output", 1, "[4]"), 2))
      .Event("MemoryAllocation", 50 * kUs, 0,
             in_group(Alloc(g, 85 * kMiB, 20 * kMiB, 20 * kMiB, 0x40, "D", "output", 1, "[5]"), 2))
      .Event("MemoryDeallocation", 60 * kUs, 0, in_group(Free(g, 35 * kMiB, 50 * kMiB, 0x30), 2))
      .Event("train", 66 * kUs, 10 * kUs, {{"group_id", int64_t{3}}})
      .Event("MemoryAllocation", 70 * kUs, 0,
             in_group(Alloc(g, 40 * kMiB, 5 * kMiB, 5 * kMiB, 0x50, "E", "output", 1, "[6]"), 3));
  Diagnostics d;
  const HostMemoryProfile p = Build(b, d);
  REQUIRE(p.allocators.size() == 1);
  const AllocatorMemoryProfile& a = p.allocators[0];
  REQUIRE(a.timeline.size() == 8);
  CHECK(a.timeline[3].step == 2);  // F, outside any group, after step 1.
  CHECK(a.peak_step == 2);
  CHECK(a.peak_bytes == kStack + 85 * kMiB);
  CHECK(a.peak_time_ps == 50 * kUs);
  // C, D, the 10 MiB unexplained, F, the stack; largest first.
  REQUIRE(a.active.size() == 5);
  auto op = [&](size_t i) { return std::string(p.Str(a.active[i].op_name)); };
  CHECK(op(0) == "C");
  CHECK(a.active[0].allocation_bytes == 50 * kMiB);
  CHECK(op(1) == "D");
  CHECK(a.active[1].allocation_bytes == 20 * kMiB);
  CHECK(a.active[2].special == 0);
  CHECK(a.active[2].allocation_bytes == 10 * kMiB);
  CHECK(op(3) == "F");
  CHECK(a.active[3].allocation_bytes == 5 * kMiB);
  CHECK(a.active[3].snapshot == 3);
  CHECK(a.active[4].special == 1);
  CHECK(a.active[4].allocation_bytes == kStack);
  for (const ActiveAllocation& row : a.active) CHECK(row.step == 2);
}

TEST_CASE("Memory report: sizes in the unit asked for, breakdown rows", "[memory]") {
  Diagnostics d;
  std::vector<HostMemoryProfile> hosts;
  hosts.push_back(Build(HandCapture(), d));
  MemoryReportOptions o;
  o.breakdown = true;
  o.timeline = true;
  o.memory_id = "GPU_0_bfc";
  Report r = BuildMemoryReport(hosts, o);
  REQUIRE(r.tables.size() == 3);
  const Table* s = r.FindTable("summary");
  REQUIRE(s);
  REQUIRE(s->rows.size() == 1);
  auto cell = [&](const Table& t, size_t row, const char* key) { return t.rows[row][t.ColumnIndex(key)]; };
  CHECK(std::get<double>(cell(*s, 0, "peak_usage_mib")) == 274.0);
  CHECK(std::get<double>(cell(*s, 0, "capacity_mib")) == 1024.0);
  CHECK(std::get<double>(cell(*s, 0, "peak_time_ms")) == Approx(0.04));
  CHECK(std::get<double>(cell(*s, 0, "fragmentation_at_peak_pct")) == 25.0);
  CHECK(std::get<int64_t>(cell(*s, 0, "allocations")) == 4);
  CHECK_THAT(r.lines[0], Catch::Contains("GPU_0_bfc: window peak 274.00 MiB of 1.00 GiB"));
  const Table* b = r.FindTable("breakdown");
  REQUIRE(b);
  REQUIRE(b->rows.size() == 4);
  CHECK(std::get<std::string>(cell(*b, 0, "op_name")) == "conv/Conv2D");
  CHECK(std::get<double>(cell(*b, 1, "requested_mib")) == 49.0);
  const Table* t = r.FindTable("timeline");
  REQUIRE(t);
  CHECK(t->rows.size() == 9);
  CHECK(std::get<std::string>(cell(*t, 3, "activity")) == "deallocation");

  o.unit = MemoryUnit::kBytes;
  o.timeline = false;
  r = BuildMemoryReport(hosts, o);
  REQUIRE(r.tables.size() == 2);
  CHECK(r.tables[0].name == "summary");
  CHECK(std::get<int64_t>(cell(r.tables[1], 2, "allocation_bytes")) == 20 * kMiB);

  CHECK(HumanBytes(0) == "0.00 B");
  CHECK(HumanBytes(3072) == "3.00 KiB");
  CHECK(HumanBytes(4509184) == "4.30 MiB");
}

TEST_CASE("Memory timeline sampling keeps the highest point of each window", "[memory]") {
  std::vector<MemorySnapshot> t(2500);
  for (size_t i = 0; i < t.size(); ++i) t[i].heap_bytes = static_cast<int64_t>(i % 7);
  t[1001].heap_bytes = 1000;  // In box 500, the first of width 3 ([1000, 1003)).
  t[3].heap_bytes = 50;       // Box 1 is [2, 4).
  std::vector<size_t> s = SampleTimeline(t, 1000);
  REQUIRE(s.size() == 1000);
  CHECK(s[0] == 1);  // max(0, 1) -> index 1
  CHECK(s[1] == 3);
  CHECK(s[499] == 999);  // Box 499 is [998, 1000): heights 4, 5.
  CHECK(s[500] == 1001);
  CHECK(s[999] == 2498);  // The last box is [2497, 2500): heights 5, 6, 0.
  CHECK(std::is_sorted(s.begin(), s.end()));
  // Short timelines are kept whole.
  CHECK(SampleTimeline(std::vector<MemorySnapshot>(10), 1000).size() == 10);
  // TensorFlow 2.x: the least free memory, in time order.
  std::vector<MemorySnapshot> f(5);
  for (size_t i = 0; i < f.size(); ++i) f[i].free_bytes = std::array<int64_t, 5>{5, 1, 4, 2, 3}[i];
  CHECK(SampleTimeline(f, 2, true) == std::vector<size_t>{1, 3});
}

TEST_CASE("Memory profile reads stats as the reference does only in parity mode", "[memory]") {
  XSpaceBuilder b;
  // A fragmentation of exactly 1 is written as an integer; xprof reads it as 0.
  b.Plane("/host:CPU")
      .Line(1, "t")
      .Event("MemoryAllocation", 0, 0,
             {{"allocator_name", Ref{"a"}},
              {"bytes_reserved", int64_t{0}},
              {"bytes_allocated", int64_t{512}},
              {"bytes_available", int64_t{512}},
              {"fragmentation", int64_t{1}},
              {"allocation_bytes", uint64_t{512}}});
  Diagnostics d;
  HostMemoryProfile ours = Build(b, d);
  HostMemoryProfile xprof = Build(b, d, Compat::kXprof);
  CHECK(ours.allocators[0].peak.fragmentation == 1.0);
  CHECK(xprof.allocators[0].peak.fragmentation == 0.0);
  CHECK(ours.allocators[0].timeline[0].allocation_bytes == 512);
  CHECK(xprof.allocators[0].timeline[0].allocation_bytes == 0);  // uint64 reads 0 there.
}

TEST_CASE("Lifetime peak: the largest high-water mark, or the last one in capture order for parity", "[memory]") {
  // Thread 1 (listed first) allocates late, thread 2 early: the last event
  // in capture order carries the older, smaller high-water mark.
  auto event = [](int64_t heap, int64_t peak) -> StatList {
    return {{"allocator_name", Ref{"a"}},    {"bytes_reserved", int64_t{0}}, {"bytes_allocated", heap},
            {"bytes_available", int64_t{0}}, {"peak_bytes_in_use", peak},    {"allocation_bytes", int64_t{8}}};
  };
  XSpaceBuilder b;
  auto& cpu = b.Plane("/host:CPU");
  cpu.Line(1, "late").Event("MemoryAllocation", 50 * kUs, 0, event(900, 900));
  cpu.Line(2, "early").Event("MemoryAllocation", 10 * kUs, 0, event(500, 500));
  Diagnostics d;
  CHECK(Build(b, d).allocators[0].lifetime_peak_bytes == 900);
  CHECK(Build(b, d, Compat::kXprof).allocators[0].lifetime_peak_bytes == 500);
  CHECK(Build(b, d).allocators[0].peak_time_ps == 50 * kUs);
}

TEST_CASE("A free at an address allocated twice takes the first allocation's op, a second free there none",
          "[memory]") {
  // One allocator: 0x100 allocated at 10 us and again at 20 us without a
  // free between (the first stays the one a free releases, as in the
  // reference), freed at 30 and 40 us. The walk keeps each allocation's
  // index, not its strings: the free at 30 us must show "first"'s op,
  // region, dtype and shape, whether the timeline keeps every point (read
  // from the allocation's point) or samples them (read again); the free at
  // 40 us keeps its own (none).
  XSpaceBuilder b;
  b.Plane("/host:CPU")
      .Line(1, "tf_Compute", 1000)
      .Event("MemoryAllocation", 10 * kUs, 0, Alloc("a", 100, 8, 8, 0x100, "first", "r1", 1, "[1]"))
      .Event("MemoryAllocation", 20 * kUs, 0, Alloc("a", 200, 8, 8, 0x100, "second", "r2", 2, "[2]"))
      .Event("MemoryDeallocation", 30 * kUs, 0, Free("a", 150, 8, 0x100))
      .Event("MemoryDeallocation", 40 * kUs, 0, Free("a", 100, 8, 0x100));
  for (size_t points : {size_t{0}, size_t{2}}) {
    INFO("timeline points " << points);
    Diagnostics d;
    const Host h = ReadXSpaceBytes(b.Serialize(), "reuse.xplane.pb", d);
    MemoryProfileOptions options;
    options.timeline_points = points;
    const HostMemoryProfile p = BuildMemoryProfile(h, options, d);
    REQUIRE(p.allocators.size() == 1);
    const AllocatorMemoryProfile& a = p.allocators[0];
    CHECK(a.allocations == 2);
    CHECK(a.deallocations == 2);
    CHECK(d.Count("memory.address_reused_without_free") == 1);
    CHECK(d.Count("memory.unmatched_deallocation") == 1);
    const MemorySnapshot* at30 = nullptr;
    const MemorySnapshot* at40 = nullptr;
    for (const MemorySnapshot& s : a.timeline) {
      if (s.time_ps == 30 * kUs) at30 = &s;
      if (s.time_ps == 40 * kUs) at40 = &s;
    }
    // Sampled to two points: the highest of 30 and 40 us (30) is kept.
    REQUIRE(at30 != nullptr);
    CHECK(at30->activity == MemoryActivity::kDeallocation);
    CHECK(p.Str(at30->op_name) == "first");
    CHECK(p.Str(at30->region_type) == "r1");
    CHECK(at30->data_type == 1);
    CHECK(p.Str(at30->shape) == "[1]");
    CHECK(at30->heap_bytes == 150);
    if (points == 0) {
      REQUIRE(at40 != nullptr);
      CHECK(p.Str(at40->op_name).empty());
      CHECK(p.Str(at40->shape).empty());
      CHECK(at40->data_type == 0);
    }
  }
}

TEST_CASE("Memory profile survives odd allocator events", "[memory]") {
  XSpaceBuilder b;
  b.Plane("/host:CPU")
      .Line(1, "t")
      .Event("MemoryAllocation", 0, 0)  // No stats at all.
      .Event("MemoryDeallocation", 10, 0, {{"allocator_name", Ref{"x"}}, {"bytes_allocated", int64_t{-5}}})
      .Event("MemoryAllocation", 20, 0,
             {{"allocator_name", Ref{"x"}},
              {"bytes_allocated", std::numeric_limits<int64_t>::max()},
              {"bytes_reserved", std::numeric_limits<int64_t>::max()},
              {"bytes_available", std::numeric_limits<int64_t>::max()}});
  Diagnostics d;
  HostMemoryProfile p = Build(b, d);
  REQUIRE(p.allocators.size() == 2);
  CHECK(p.allocators[0].memory_id.empty());
  CHECK(p.allocators[1].peak_bytes == std::numeric_limits<int64_t>::max());  // Saturated, not wrapped.
  CHECK(d.Count("memory.missing_stats") == 3);
  CHECK(d.Count("memory.negative_size") == 1);
  CHECK(d.Count("memory.unmatched_deallocation") == 1);
  Report r = BuildMemoryReport({}, MemoryReportOptions{});
  CHECK(r.tables[0].rows.empty());
}

TEST_CASE("memory command: breakdown CSV, and why a capture has no memory profile", "[memory][cli]") {
  using tfprof::testing::RunTool;
  const std::string path = HandCapture().WriteTemp("box.xplane.pb");
  auto csv = RunTool("memory --breakdown --memory-id gpu_host_bfc --unit bytes -f csv " + path);
  REQUIRE(csv.exit_code == 0);
  CHECK(csv.out ==
        "host,memory_id,op_name,allocation_bytes,requested_bytes,occurrences,region_type,data_type,shape\n"
        "box,gpu_host_bfc,Size,256,4,1,,int32,[]\n");
  auto summary = RunTool("memory -f csv " + path);
  REQUIRE(summary.exit_code == 0);
  CHECK_THAT(summary.out, Catch::StartsWith("host,memory_id,allocations,deallocations,capacity_mib,"));
  CHECK_THAT(summary.out,
             Catch::Contains("box,GPU_0_bfc,4,5,1024.00,300.00,274.00,0.040,0,train 1,4.00,270.00,750.00,25.00\n"));

  auto timeline = RunTool("memory --timeline --memory-id gpu_host_bfc -f csv " + path);
  REQUIRE(timeline.exit_code == 0);
  CHECK_THAT(timeline.out, Catch::StartsWith("host,memory_id,time_ms,stack_mib,heap_mib,free_mib,fragmentation_pct,"
                                             "activity,op_name,requested_mib,allocation_mib,step,region_type,"
                                             "data_type,shape\n"
                                             "box,gpu_host_bfc,0.015000,0.000,0.000,1.000,0.00,allocation,Size,"));
  CHECK(std::count(timeline.out.begin(), timeline.out.end(), '\n') == 4);

  auto unknown = RunTool("memory --memory-id GPU_9_bfc " + path);
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.err, Catch::Contains("memory ids: GPU_0_bfc, gpu_host_bfc"));

  // A CPU capture without allocator events.
  auto cpu = RunTool("memory " + tfprof::testing::SourcePath("testdata/captures/tf_input_bound"));
  CHECK(cpu.exit_code == 4);
  CHECK_THAT(cpu.err, Catch::Contains("CPU-only runs usually have no memory profile"));
  // A Chrome trace: the events are not in trace JSON.
  auto json = RunTool("memory " + tfprof::testing::SourcePath("testdata/captures/torch_mlp/trace.json"));
  CHECK(json.exit_code == 4);
  CHECK_THAT(json.err, Catch::Contains("needs the run's .xplane.pb"));
}

TEST_CASE("memory on the one CPU capture with a BFC allocator", "[memory]") {
  using tfprof::testing::RunTool;
  // xprof: bfc_cpu_allocator_for_gpu, peak 4,509,184 bytes, 115 events.
  auto r = RunTool("memory --unit bytes -f csv " + tfprof::testing::SourcePath("testdata/captures/tf_memory"));
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains(",bfc_cpu_allocator_for_gpu,"));
  CHECK_THAT(r.out, Catch::Contains(",4509184,"));
}

TEST_CASE("Memory timeline: time order, equal times in capture order, across many allocating threads", "[memory]") {
  // Five threads allocate at interleaved times, with ties between threads
  // and within one. Expected: what a stable sort by time of the capture
  // order (thread by thread) gives, worked out here independently.
  const std::vector<std::vector<int64_t>> times = {
      {10, 20, 20, 50}, {5, 20, 60}, {20, 30}, {1, 2, 3, 70, 80}, {20, 25, 25}};
  XSpaceBuilder b;
  auto& cpu = b.Plane("/host:CPU");
  std::vector<std::pair<int64_t, int64_t>> capture_order;  // (time, address)
  int64_t address = 0x1000;
  for (size_t l = 0; l < times.size(); ++l) {
    auto line = cpu.Line(static_cast<int64_t>(l + 1), "thread_" + std::to_string(l), 1000);
    for (int64_t t : times[l]) {
      line.Event("MemoryAllocation", t * kUs, 0, HostAlloc(256, address, false));
      capture_order.emplace_back(t * kUs, address);
      address += 0x100;
    }
  }
  std::vector<std::pair<int64_t, int64_t>> expected = capture_order;
  std::stable_sort(expected.begin(), expected.end(), [](const auto& a, const auto& b) { return a.first < b.first; });

  Diagnostics d;
  HostMemoryProfile p = Build(b, d);
  REQUIRE(p.allocators.size() == 1);
  const std::vector<MemorySnapshot>& timeline = p.allocators[0].timeline;
  REQUIRE(timeline.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    INFO("timeline index " << i);
    CHECK(timeline[i].time_ps - timeline[0].time_ps == expected[i].first - expected[0].first);
    CHECK(static_cast<int64_t>(timeline[i].address) == expected[i].second);
  }
  // The ties are where a wrong merge shows: the four allocations at 20 us
  // come from threads 0, 0, 1, 2, 4 in that order.
  std::vector<int64_t> at_20;
  for (const MemorySnapshot& s : timeline)
    if (s.time_ps - timeline[0].time_ps == 19 * kUs) at_20.push_back(static_cast<int64_t>(s.address));
  CHECK(at_20 == std::vector<int64_t>{0x1100, 0x1200, 0x1500, 0x1700, 0x1e00});
}

TEST_CASE("Memory profile asks for its groups when MemoryProfileGroups says, and late gives the same steps",
          "[memory]") {
  // HostToRunSummary starts the grouping early exactly when
  // MemoryProfileGroups is true; the profile asks for the groups after it
  // has collected the snapshots, and gets each one's step right.
  auto profile_of = [](const Host& h, int* asked) {
    Diagnostics d;
    EventGroups groups;
    const EventGroupsSource source = [&]() -> const EventGroups& {
      ++*asked;
      Diagnostics grouping;
      groups = GroupEvents(h, grouping);
      return groups;
    };
    return BuildMemoryProfile(h, MemoryProfileOptionsFor(Compat::kDefault), d, source);
  };
  Diagnostics d;
  const Host hand = ReadXSpaceBytes(HandCapture().Serialize(), "box.xplane.pb", d);
  CHECK(MemoryProfileGroups(hand));
  int asked = 0;
  const HostMemoryProfile late = profile_of(hand, &asked);
  CHECK(asked == 1);
  const HostMemoryProfile first = BuildMemoryProfile(hand, MemoryProfileOptionsFor(Compat::kDefault), d);
  REQUIRE(late.allocators.size() == first.allocators.size());
  REQUIRE(late.allocators.size() == 2);
  for (size_t a = 0; a < late.allocators.size(); ++a) {
    REQUIRE(late.allocators[a].timeline.size() == first.allocators[a].timeline.size());
    for (size_t i = 0; i < late.allocators[a].timeline.size(); ++i)
      CHECK(late.allocators[a].timeline[i].step == first.allocators[a].timeline[i].step);
    CHECK(late.allocators[a].peak_step == first.allocators[a].peak_step);
  }
  CHECK(late.allocators[0].timeline[7].step == 1);
  CHECK(late.step_names == first.step_names);

  // No allocator event on the host plane (only on a GPU plane), no host
  // plane, or allocator events only on a host plane before the last one
  // (the profile reads the last): nothing asked.
  for (int shape = 0; shape < 3; ++shape) {
    XSpaceBuilder b;
    if (shape == 0) b.Plane("/host:CPU", 0).Line(1, "python3", 0).Event("train", 0, 10 * kUs, {{"_r", int64_t{1}}});
    if (shape == 2) b.Plane("/host:CPU", 0).Line(1, "t", 0).Event("MemoryAllocation", 0, 0, {});
    if (shape == 2) b.Plane("/host:CPU", 2).Line(1, "t", 0).Event("op", 0, 10, {});
    b.Plane("/device:GPU:0", 1).Line(7, "Stream #7", 0).Event("MemoryAllocation", 0, 10, {});
    const Host h = ReadXSpaceBytes(b.Serialize(), "none.xplane.pb", d);
    INFO("shape " << shape);
    CHECK_FALSE(MemoryProfileGroups(h));
    int none = 0;
    CHECK(profile_of(h, &none).allocators.empty());
    CHECK(none == 0);
  }
}

namespace {

// Allocations and frees of two allocators on four threads at interleaved
// times (no two equal), heights that repeat (equal window maxima) and free
// memory that repeats (equal legacy keys): `n` events per thread.
XSpaceBuilder ManyEvents(int n) {
  XSpaceBuilder b;
  auto& cpu = b.Plane("/host:CPU");
  cpu.Line(9, "steps", 1000)
      .Event("train", 0, 40 * kUs, {{"_r", int64_t{1}}, {"step_num", int64_t{1}}})
      .Event("train", 60 * kUs, 40 * kUs, {{"_r", int64_t{1}}, {"step_num", int64_t{2}}});
  for (int t = 0; t < 4; ++t) {
    auto line = cpu.Line(t + 1, "thread_" + std::to_string(t), 1000);
    for (int i = 0; i < n; ++i) {
      const int64_t time = (i * 7 + t * 3) % (n * 2) / 2 * kUs + i;
      const int64_t heap = ((i * 13 + t * 5) % 17) * kMiB;  // Repeating heights.
      const std::string allocator = (i + t) % 3 == 0 ? "gpu_host_bfc" : "GPU_0_bfc";
      const int64_t address = 0x1000 + ((i / 2) * 4 + t) * 0x100;
      if (i % 2 == 0)
        line.Event("MemoryAllocation", time, 0,
                   Alloc(allocator, heap, kMiB, kMiB, address, "op" + std::to_string(i % 5), "output", i % 4,
                         "[" + std::to_string(i) + "]"));
      else line.Event("MemoryDeallocation", time, 0, Free(allocator, heap, kMiB, address));
    }
  }
  return b;
}

}  // namespace

TEST_CASE("Memory profile sampled while it is built equals the whole one cut down afterwards", "[memory]") {
  // The profile of a command that shows sampled timelines never holds
  // every snapshot (MemoryProfileOptions::timeline_points): what it keeps
  // must be exactly what KeepSampledTimelines keeps of the whole timeline,
  // for every number of points, below, at and above the events' count.
  auto check = [](const Host& h, const std::vector<size_t>& points_list) {
    for (Compat compat : {Compat::kDefault, Compat::kXprof, Compat::kTfLegacy}) {
      for (size_t points : points_list) {
        INFO("points " << points << ", compat " << static_cast<int>(compat));
        Diagnostics whole_diag;
        HostMemoryProfile cut = BuildMemoryProfile(h, MemoryProfileOptionsFor(compat), whole_diag);
        REQUIRE_FALSE(cut.allocators.empty());
        KeepSampledTimelines(cut, points);
        MemoryProfileOptions options = MemoryProfileOptionsFor(compat);
        options.timeline_points = points;
        Diagnostics d;
        const HostMemoryProfile sampled = BuildMemoryProfile(h, options, d);
        CheckSameProfile(cut, sampled);
        // The walk meets the diagnostics in the same order.
        CheckSameDiagnostics(d, whole_diag);
        // And the report reads the same points from either.
        for (bool legacy : {false, true})
          for (size_t i = 0; i < cut.allocators.size(); ++i)
            CHECK(AllocatorTimelinePoints(cut.allocators[i], points, legacy) ==
                  AllocatorTimelinePoints(sampled.allocators[i], points, legacy));
      }
    }
  };
  Diagnostics d;
  const Host built = ReadXSpaceBytes(ManyEvents(60).Serialize(), "many.xplane.pb", d);
  {
    Diagnostics whole;
    const HostMemoryProfile p = BuildMemoryProfile(built, MemoryProfileOptionsFor(Compat::kDefault), whole);
    REQUIRE(p.allocators.size() == 2);
    CHECK(p.allocators[0].timeline.size() == 160);  // GPU_0_bfc: 240 events, less a third.
    CHECK(p.allocators[1].timeline.size() == 80);
    // Frees whose allocation went to the other allocator or comes later in
    // time (counted apart by a replay of the events in Python): diagnostics
    // the sampled build must report the same.
    CHECK(whole.Count("memory.unmatched_deallocation") == 82);
  }
  check(built, {1, 2, 3, 7, 10, 33, 79, 80, 81, 159, 160, 161, 1000});
  check(ReadXSpaceBytes(HandCapture().Serialize(), "box.xplane.pb", d), {1, 2, 4, 9});
  // A real capture: 115 allocator events of one allocator.
  const Host real =
      ReadXSpaceFile(tfprof::testing::SourcePath(
                         "testdata/captures/tf_memory/plugins/profile/2026_11_21_08_22_42/tfprof-capture.xplane.pb"),
                     d);
  check(real, {1, 10, 37, 114, 115});
}

namespace {

// Allocator events whose capture-order summary depends on order across
// lines and within them: equal peaks (the last in capture order wins), a
// high-water mark that falls (largest or last), an allocator named by
// index and by name, a negative size, a missing stat.
XSpaceBuilder OrderCapture() {
  auto event = [](const std::string& allocator, int64_t heap, int64_t peak, int64_t address) -> StatList {
    return {{"allocator_name", Ref{allocator}},
            {"bytes_reserved", int64_t{0}},
            {"bytes_allocated", heap},
            {"bytes_available", 1000 - heap},
            {"peak_bytes_in_use", peak},
            {"allocation_bytes", int64_t{8}},
            {"addr", address},
            {"tf_op", Ref{"op" + std::to_string(address)}}};
  };
  // Allocator 0 named by its index, with every stat the profile expects.
  auto by_index = [](int64_t heap) -> StatList {
    return {{"index_on_host", int64_t{0}},
            {"bytes_reserved", int64_t{0}},
            {"bytes_allocated", heap},
            {"bytes_available", int64_t{0}},
            {"allocation_bytes", int64_t{8}}};
  };
  XSpaceBuilder b;
  auto& cpu = b.Plane("/host:CPU");
  cpu.Line(1, "t1")
      .Event("MemoryAllocation", 10 * kUs, 0, event("a", -100, 700, 1))  // Negative: no peak yet.
      .Event("MemoryAllocation", 20 * kUs, 0, event("a", 300, 900, 2))
      .Event("MemoryAllocation", 30 * kUs, 0, event("a", 500, 800, 3))
      .Event("MemoryAllocation", 40 * kUs, 0, by_index(50))
      .Event("MemoryAllocation", 50 * kUs, 0, event("0", 60, 60, 4))
      .Event("MemoryAllocation", 55 * kUs, 0, by_index(60))  // The last of "0"'s equal peaks.
      .Event("MemoryDeallocation", 60 * kUs, 0, event("a", 500, 850, 3))
      .Event("MemoryAllocation", 70 * kUs, 0,
             {{"allocator_name", Ref{"a"}}, {"bytes_reserved", int64_t{0}}, {"bytes_allocated", int64_t{400}}});
  // A line without events, with a start far off (never read), between
  // lines that start 1 us apart.
  cpu.Line(3, "idle", std::numeric_limits<int64_t>::max());
  cpu.Line(2, "t2", /*timestamp_ns=*/1000)
      .Event("MemoryAllocation", 5 * kUs, 0, event("a", 500, 600, 5))  // The last of the equal peaks.
      .Event("MemoryAllocation", 10 * kUs, 0, {{"allocator_name", Ref{"a"}}, {"bytes_allocated", int64_t{100}}})
      .Event("MemoryDeallocation", 15 * kUs, 0, event("a", 200, 650, 5));
  return b;
}

}  // namespace

namespace {

// The profile of `h` with `options` is `expected`, diagnostics and all.
void CheckSameAs(const Host& h, const MemoryProfileOptions& options, const HostMemoryProfile& expected,
                 const Diagnostics& expected_diag) {
  Diagnostics diag;
  const HostMemoryProfile p = BuildMemoryProfile(h, options, diag);
  CheckSameProfile(expected, p);
  CheckSameDiagnostics(diag, expected_diag);
}

// The captures the profile's splits (pieces, blocks read ahead) are checked
// on: built in code, and a real TensorFlow capture.
template <class Check>
void ForEachSplitCapture(Check&& check) {
  Diagnostics d;
  check(ReadXSpaceBytes(OrderCapture().Serialize(), "order.xplane.pb", d));
  check(ReadXSpaceBytes(ManyEvents(60).Serialize(), "many.xplane.pb", d));
  check(ReadXSpaceBytes(HandCapture().Serialize(), "box.xplane.pb", d));
  check(ReadXSpaceFile(tfprof::testing::SourcePath(
                           "testdata/captures/tf_memory/plugins/profile/2026_11_21_08_22_42/tfprof-capture.xplane.pb"),
                       d));
}

}  // namespace

TEST_CASE("Memory profile read in pieces on several threads equals the one read in one piece", "[memory]") {
  Diagnostics d;
  {
    // The one-piece profile of OrderCapture, worked out by hand.
    const Host h = ReadXSpaceBytes(OrderCapture().Serialize(), "order.xplane.pb", d);
    Diagnostics ours_diag, xprof_diag;
    const HostMemoryProfile ours = BuildMemoryProfile(h, MemoryProfileOptionsFor(Compat::kDefault), ours_diag);
    const HostMemoryProfile xprof = BuildMemoryProfile(h, MemoryProfileOptionsFor(Compat::kXprof), xprof_diag);
    REQUIRE(ours.allocators.size() == 2);
    // Index 0 and the name "0": one allocator, its events in capture order.
    const AllocatorMemoryProfile& zero = ours.allocators[0];
    CHECK(zero.memory_id == "0");
    CHECK(zero.allocations == 3);
    CHECK(zero.peak_time_ps == 55 * kUs);
    CHECK(zero.lifetime_peak_bytes == 60);
    CHECK(xprof.allocators[0].lifetime_peak_bytes == 0);  // The index events carry no high-water mark.
    const AllocatorMemoryProfile& a = ours.allocators[1];
    CHECK(a.memory_id == "a");
    CHECK(a.peak_bytes == 500);
    // t2's, last in capture order, not t1's at 30 or 60 us; 1 us after t1's
    // start, or in t2's own time for the reference.
    CHECK(a.peak_time_ps == 6 * kUs);
    CHECK(xprof.allocators[1].peak_time_ps == 5 * kUs);
    CHECK(a.peak.address == 5);
    CHECK(ours.Str(a.peak.op_name) == "op5");
    CHECK(a.capacity_bytes == 1000);
    CHECK(a.lifetime_peak_bytes == 900);                    // The largest...
    CHECK(xprof.allocators[1].lifetime_peak_bytes == 650);  // ...or the last.
    CHECK(ours_diag.Count("memory.negative_size") == 1);
    // t1's last and t2's second (an index names an allocator too); the
    // example is the first in capture order, t1's.
    CHECK(ours_diag.Count("memory.missing_stats") == 2);
    for (const DiagnosticEntry& e : ours_diag.Entries())
      if (e.kind == "memory.missing_stats") CHECK(e.example == "MemoryAllocation on t1 at 70000000 ps");
  }
  auto check = [](const Host& h) {
    for (Compat compat : {Compat::kDefault, Compat::kXprof, Compat::kTfLegacy}) {
      MemoryProfileOptions whole_options = MemoryProfileOptionsFor(compat);
      whole_options.collect_piece_events = size_t{1} << 30;
      whole_options.collect_threads = 1;
      Diagnostics whole_diag;
      const HostMemoryProfile whole = BuildMemoryProfile(h, whole_options, whole_diag);
      for (size_t piece : {1, 2, 3, 5, 64}) {
        for (size_t threads : {1, 2, 3}) {
          INFO("compat " << static_cast<int>(compat) << ", pieces of " << piece << " on " << threads << " threads");
          MemoryProfileOptions options = MemoryProfileOptionsFor(compat);
          options.collect_piece_events = piece;
          options.collect_threads = threads;
          // Merged into time order in slices of as many events as the
          // pieces hold, one per thread.
          options.merge_slice_events = piece;
          // Examples are the first in capture order, whatever the pieces.
          CheckSameAs(h, options, whole, whole_diag);
        }
      }
    }
  };
  ForEachSplitCapture(check);
}

TEST_CASE("Memory profile walk reading events ahead on other threads equals the walk reading them itself", "[memory]") {
  // Blocks of a few events, so that these small captures are read ahead
  // block by block (from four blocks on: all but HandCapture's 9-event
  // allocator at blocks of 3 and 7), the buffers reused in turn.
  auto check = [](const Host& h) {
    for (Compat compat : {Compat::kDefault, Compat::kXprof, Compat::kTfLegacy}) {
      for (size_t points : {size_t{0}, size_t{5}}) {
        MemoryProfileOptions here_options = MemoryProfileOptionsFor(compat);
        here_options.timeline_points = points;
        here_options.walk_read_ahead = 0;
        Diagnostics here_diag;
        const HostMemoryProfile here = BuildMemoryProfile(h, here_options, here_diag);
        for (size_t block : {1, 2, 3, 7}) {
          for (size_t ahead : {1, 2, 3}) {
            // Parts of a block: whole, and cut so that the last part of a
            // block is shorter (7 in parts of 2 and of 3).
            for (size_t part : {block, size_t{2}, size_t{3}}) {
              if (part > block) continue;
              INFO("compat " << static_cast<int>(compat) << ", " << points << " points, blocks of " << block
                             << " in parts of " << part << ", " << ahead << " ahead");
              MemoryProfileOptions options = here_options;
              options.walk_block_events = block;
              options.walk_read_ahead = ahead;
              options.walk_part_events = part;
              CheckSameAs(h, options, here, here_diag);
            }
          }
        }
      }
    }
  };
  Diagnostics d;
  {
    // The hand-worked profile of HandCapture, read ahead in blocks of one.
    const Host h = ReadXSpaceBytes(HandCapture().Serialize(), "box.xplane.pb", d);
    MemoryProfileOptions options = MemoryProfileOptionsFor(Compat::kDefault);
    options.walk_block_events = 1;
    Diagnostics diag;
    const HostMemoryProfile p = BuildMemoryProfile(h, options, diag);
    REQUIRE(!p.allocators.empty());
    const AllocatorMemoryProfile& gpu = p.allocators[0];
    CHECK(gpu.memory_id == "GPU_0_bfc");
    CHECK(gpu.peak_bytes == 274 * kMiB);
    CHECK(gpu.allocations == 4);
    CHECK(gpu.deallocations == 5);
    CHECK(p.Str(gpu.peak.op_name) == "conv/Conv2D");
    // Frees take the op of the allocation they release.
    REQUIRE(gpu.timeline.size() == 9);
    CHECK(p.Str(gpu.timeline[3].op_name) == "dense/MatMul");
    CHECK(p.Str(gpu.timeline[5].op_name) == "dense/BiasAdd");
    CHECK(p.Str(gpu.timeline[6].shape) == "[64,64,160,160]");
  }
  ForEachSplitCapture(check);
}

namespace {

// An event of a timeline, as the merge tests know it.
struct TimelineEvent {
  int64_t time_ps;
  uint64_t address;
  MemoryActivity activity = MemoryActivity::kAllocation;
};

// `capture_order` put in the order a stable sort by time gives, against
// the first allocator's timeline of `h` merged from pieces of `pieces`
// events in slices of `slices` events on 1-3 threads.
void CheckMergedInTimeOrder(const Host& h, std::vector<TimelineEvent> capture_order,
                            std::initializer_list<size_t> pieces, std::initializer_list<size_t> slices) {
  std::stable_sort(capture_order.begin(), capture_order.end(),
                   [](const TimelineEvent& x, const TimelineEvent& y) { return x.time_ps < y.time_ps; });
  for (size_t piece : pieces)
    for (size_t slice : slices)
      for (size_t threads : {1, 2, 3}) {
        INFO("pieces of " << piece << ", slices of " << slice << " on " << threads << " threads");
        MemoryProfileOptions options;
        options.collect_piece_events = piece;
        options.merge_slice_events = slice;
        options.collect_threads = threads;
        Diagnostics diag;
        const HostMemoryProfile p = BuildMemoryProfile(h, options, diag);
        REQUIRE_FALSE(p.allocators.empty());
        const std::vector<MemorySnapshot>& timeline = p.allocators[0].timeline;
        REQUIRE(timeline.size() == capture_order.size());
        size_t differ = 0;
        for (size_t k = 0; k < timeline.size(); ++k)
          if (timeline[k].time_ps != capture_order[k].time_ps || timeline[k].address != capture_order[k].address ||
              timeline[k].activity != capture_order[k].activity)
            ++differ;
        CHECK(differ == 0);
      }
}

}  // namespace

TEST_CASE("Memory profile timeline is in time order, equal times in capture order, however it is merged", "[memory]") {
  // ManyEvents' GPU_0_bfc events, worked out from the same formulas, in
  // capture order (threads one after another). An event is known by its
  // address and activity.
  constexpr int kPerThread = 60;
  std::vector<TimelineEvent> capture_order;
  for (int t = 0; t < 4; ++t)
    for (int i = 0; i < kPerThread; ++i) {
      if ((i + t) % 3 == 0) continue;  // gpu_host_bfc's.
      const int64_t time = (i * 7 + t * 3) % (kPerThread * 2) / 2 * kUs + i;
      const auto address = static_cast<uint64_t>(0x1000 + ((i / 2) * 4 + t) * 0x100);
      capture_order.push_back(
          {time, address, i % 2 == 0 ? MemoryActivity::kAllocation : MemoryActivity::kDeallocation});
    }
  Diagnostics d;
  const Host h = ReadXSpaceBytes(ManyEvents(kPerThread).Serialize(), "many.xplane.pb", d);
  CheckMergedInTimeOrder(h, capture_order, {7, size_t{1} << 18}, {1, 5, size_t{1} << 16});
}

TEST_CASE("Memory profile merge keeps capture order among equal times, in every slice", "[memory]") {
  // Three threads whose events come five to a time, the same times on
  // each (one thread starting 2 us early, so its times are others' too),
  // the last time the most crowded: slices of time fall inside runs of
  // equal times, and past the last time. An event is known by its address.
  // With 30 threads of 3 events at 0, 1 and 2 us, the runs are too short
  // to merge: the capture order is sorted instead, to the same order.
  struct Shape {
    int threads, per_thread, per_time;
  };
  for (const Shape& shape : {Shape{3, 40, 5}, Shape{30, 3, 1}}) {
    XSpaceBuilder b;
    auto& cpu = b.Plane("/host:CPU");
    std::vector<TimelineEvent> capture_order;
    for (int t = 0; t < shape.threads; ++t) {
      const int64_t start_ns = t == 1 ? 0 : 2000;  // Thread 1 starts 2 us early.
      auto line = cpu.Line(t + 1, "thread_" + std::to_string(t), start_ns);
      for (int i = 0; i < shape.per_thread; ++i) {
        const int64_t offset = std::min(i / shape.per_time, 6) * kUs + (t == 1 ? 2 * kUs : 0);
        const int64_t address = 0x1000 * (t + 1) + i;
        line.Event("MemoryAllocation", offset, 0,
                   Alloc("GPU_0_bfc", (i % 7) * kMiB, kMiB, kMiB, address, "op", "output", 1, "[1]"));
        capture_order.push_back({std::min(i / shape.per_time, 6) * kUs + 2 * kUs, static_cast<uint64_t>(address)});
      }
    }
    Diagnostics d;
    const Host h = ReadXSpaceBytes(b.Serialize(), "ties.xplane.pb", d);
    CheckMergedInTimeOrder(h, capture_order, {1, 4, 7, size_t{1} << 18}, {1, 2, 3, 5, size_t{1} << 16});
  }
}
