// The report commands read XSpace captures keeping only the event stats
// listed in lib/model/analysed_event_stats.h. This fails when an analysis
// reads an event stat missing from that list: on real captures, every
// summary part (ops, eager marks, steps, memory, tf.data, with their
// diagnostics) must come out byte-identical from the filtered model and
// from the whole one, under every compatibility mode and step fallback.
#include <catch2/catch.hpp>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lib/model/stat_finder.h"
#include "lib/model/xplane_schema.h"
#include "lib/read/capture_discovery.h"
#include "lib/read/xplane_reader.h"
#include "lib/summary/analysed_event_stats.h"
#include "lib/summary/captures_to_run_summary.h"
#include "lib/summary/run_summary_combine.h"
#include "lib/summary/run_summary_file.h"
#include "tests/support/corpus.h"
#include "tests/support/files.h"
#include "tests/support/filtered_summary.h"
#include "tests/support/skip.h"
#include "tests/support/xspace_builder.h"

namespace tfprof {
namespace {

namespace fs = std::filesystem;
using testing::CommandParts;

std::string SummaryBytes(const std::string& path, SummaryParts parts, const EventStatFilter& kept,
                         const AnalysisOptions& analysis) {
  return testing::SummariseKeeping(path, parts, kept, analysis).bytes;
}

// Each diagnostic kind a command showing `parts` reports, with its count.
std::vector<std::pair<std::string, uint64_t>> RunDiagnosticsCounts(const RunSummary& run, SummaryParts parts) {
  std::vector<std::pair<std::string, uint64_t>> out;
  for (const DiagnosticEntry& e : RunDiagnostics(run, parts).Entries()) out.emplace_back(e.kind, e.count);
  return out;
}

// Every XSpace capture file under `dir`.
std::vector<std::string> XSpaceFiles(const std::string& dir) {
  std::vector<std::string> out;
  if (dir.empty() || !fs::is_directory(dir)) return out;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name.size() > 10 && name.ends_with(".xplane.pb")) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<AnalysisOptions> Variants() {
  std::vector<AnalysisOptions> out(5);
  out[1].compat = Compat::kXprof;
  out[2].compat = Compat::kTfLegacy;
  out[3].whole_trace = true;
  out[4].steps_between = "^(train|train_function|__inference_train_function.*)$";
  return out;
}

void CheckSameSummaries(const std::string& path) {
  for (const AnalysisOptions& analysis : Variants()) {
    for (SummaryParts parts : CommandParts()) {
      INFO(path << " parts " << parts.bits << " compat " << static_cast<int>(analysis.compat) << " whole_trace "
                << analysis.whole_trace << " steps_between '" << analysis.steps_between << "'");
      CHECK(SummaryBytes(path, parts, EventStatsFor(parts, analysis), analysis) ==
            SummaryBytes(path, parts, EventStatFilter(), analysis));
    }
  }
}

TEST_CASE("Summaries of the test captures are the same read with only the analysed event stats", "[filter][summary]") {
  const std::vector<std::string> files = XSpaceFiles(testing::SourcePath("testdata/captures"));
  REQUIRE(files.size() >= 10);
  for (const std::string& f : files) CheckSameSummaries(fs::path(f).parent_path().string());
}

TEST_CASE("Summaries of the corpus captures are the same read with only the analysed event stats",
          "[filter][summary][corpus]") {
  const std::vector<std::string> files = XSpaceFiles(testing::CorpusDir());
  if (files.empty()) {
    testing::SkipTest("no corpus (set TFPROF_CORPUS)");
    return;
  }
  for (const std::string& f : files) CheckSameSummaries(f);
}

TEST_CASE("The summary comparison sees a dropped stat an analysis reads", "[filter][summary]") {
  // The check above has teeth: with no event stat kept, the summaries of a
  // GPU capture differ (no kernel details, no tf_op, no correlation ids).
  const std::string path = testing::SourcePath("testdata/captures/jax_gpu");
  const SummaryParts all = SummaryParts::All();
  CHECK(SummaryBytes(path, all, EventStatFilter::Only({}), {}) != SummaryBytes(path, all, EventStatFilter(), {}));
  // Nor is the kernel-stats command's list enough for the memory profile.
  const std::string memory = testing::SourcePath("testdata/captures/tf_memory");
  CHECK(SummaryBytes(memory, SummaryPart::kMemory, EventStatsFor(SummaryPart::kOps, {}), {}) !=
        SummaryBytes(memory, SummaryPart::kMemory, EventStatFilter(), {}));
}

// The capture summarised as a command showing `parts` reads it: with the
// event stats those parts analyse.
RunSummary SummariseAsCommand(const std::string& path, SummaryParts parts) {
  SummaryOptions options;
  options.parts = parts;
  RunReadOptions read;
  read.read.event_stats = EventStatsFor(parts, {});
  return CapturesToRunSummary(DiscoverInput(path, "", false), read, options);
}

// A GPU capture read for kernel-stats leaves the host's events undecoded;
// what it summarises is what the whole op summary says of the devices.
void CheckDevicesSideAlone(const std::string& path) {
  INFO(path);
  const RunSummary alone = SummariseAsCommand(path, SummaryPart::kKernels);
  RunSummary whole = SummariseAsCommand(path, SummaryPart::kOps);
  REQUIRE(alone.hosts.size() == whole.hosts.size());
  for (size_t h = 0; h < alone.hosts.size(); ++h) {
    CHECK(alone.hosts[h].ops.host_ops.rows().empty());
    CHECK(alone.hosts[h].ops.kernels.Sorted().size() > 10);
    CHECK_FALSE(whole.hosts[h].ops.host_ops.rows().empty());
  }
  CHECK(whole.parts.Covers(SummaryPart::kKernels));
  CHECK(alone.parts.Covers(SummaryPart::kKernels));
  CHECK_FALSE(alone.parts.Covers(SummaryPart::kOps));
  // Everything else, kernels, device ops and their diagnostics included,
  // byte for byte: the op summary without its host-thread ops.
  whole.parts = SummaryPart::kKernels;
  for (HostPartials& h : whole.hosts) {
    h.ops.host_ops = OpMetricsDb();
    h.diagnostics.ops = h.diagnostics.ops_device;
    h.diagnostics.ops_host = Diagnostics();
  }
  CHECK(RunSummaryToBytes(alone) == RunSummaryToBytes(whole));
}

// A capture read for input-pipeline keeps none of the kernels' stats and
// makes no device op metrics; what it summarises is what the whole op
// summary (with the same steps) says of the host threads and the run. The
// summary alone, for the diagnostics' checks.
RunSummary CheckHostSideAlone(const std::string& path, bool has_devices) {
  INFO(path);
  const SummaryParts host_side = SummaryPart::kHostOps | SummaryPart::kEagerMarks | SummaryPart::kSteps;
  const SummaryParts overview = SummaryPart::kOps | SummaryPart::kEagerMarks | SummaryPart::kSteps;
  RunSummary alone = SummariseAsCommand(path, host_side);
  RunSummary whole = SummariseAsCommand(path, overview);
  REQUIRE(alone.hosts.size() == whole.hosts.size());
  bool any_device_ops = false;
  for (size_t h = 0; h < alone.hosts.size(); ++h) {
    const HostSummary& ops = alone.hosts[h].ops;
    CHECK(ops.device_ops.rows().empty());
    CHECK(ops.kernels.empty());
    CHECK(ops.device_busy_ps.empty());
    CHECK_FALSE(ops.host_ops.rows().empty());
    // The environment still counts the devices and their events.
    CHECK(ops.env.device_core_count == whole.hosts[h].ops.env.device_core_count);
    CHECK(ops.device_events == whole.hosts[h].ops.device_events);
    any_device_ops = any_device_ops || !whole.hosts[h].ops.device_ops.rows().empty();
  }
  CHECK(any_device_ops == has_devices);
  CHECK(whole.parts.Covers(host_side));
  CHECK(alone.parts.Covers(host_side));
  CHECK_FALSE(alone.parts.Covers(overview));
  CHECK_FALSE(alone.parts.Covers(SummaryPart::kKernels));
  // The whole summary, read by input-pipeline, reports what the host side
  // alone met.
  CHECK(RunDiagnosticsCounts(whole, host_side) == RunDiagnosticsCounts(alone, host_side));
  // Everything else, steps and the host side's diagnostics included, byte
  // for byte: the op summary without its devices' side.
  RunSummary& trimmed = whole;
  trimmed.parts = host_side;
  for (HostPartials& h : trimmed.hosts) {
    h.ops.device_ops = OpMetricsDb();
    h.ops.kernels = KernelStatsDb();
    h.ops.device_busy_ps.clear();
    h.diagnostics.ops = h.diagnostics.ops_host;
    h.diagnostics.ops_device = Diagnostics();
  }
  CHECK(RunSummaryToBytes(alone) == RunSummaryToBytes(trimmed));
  return alone;
}

TEST_CASE("The host side alone is the op summary without its devices' side", "[filter][summary]") {
  const SummaryParts host_side = SummaryPart::kHostOps | SummaryPart::kEagerMarks | SummaryPart::kSteps;
  const EventStatFilter kept = EventStatsFor(host_side, {});
  CHECK(kept.keep_host_thread_events);
  for (std::string_view name :
       {"tf_op", "tf_op_type", "is_eager", "_ipl_stage_id", "correlation_id", "group_id", "hlo_op", "hlo_module"})
    CHECK(kept.Keeps(name));
  // What only kernel stats and device op metrics read.
  for (std::string_view name : {"kernel_details", "level 0", "scope_range_id", "grid", "equation", "shared memory"})
    CHECK_FALSE(kept.Keeps(name));
  // A JAX GPU capture: the device side's XLA op diagnostics are not the
  // host side's.
  const RunSummary jax_gpu = CheckHostSideAlone(testing::SourcePath("testdata/captures/jax_gpu"), true);
  CHECK(jax_gpu.hosts.front().diagnostics.ops.empty());
  CHECK(RunDiagnostics(jax_gpu).Count("op_stats.xla_ops") == 0);
  CheckHostSideAlone(testing::SourcePath("testdata/captures/torch_gpu_amp"), true);
  // JAX on the CPU: its XLA:CPU ops are host ops, and so are their
  // diagnostics.
  const RunSummary jax_cpu = CheckHostSideAlone(testing::SourcePath("testdata/captures/jax_mlp"), false);
  CHECK(RunDiagnostics(jax_cpu).Count("op_stats.xla_host_ops") == 155);
}

TEST_CASE("The devices' side alone is the op summary without its host-thread ops", "[filter][summary]") {
  const EventStatFilter kernels = EventStatsFor(SummaryPart::kKernels, {});
  CHECK_FALSE(kernels.keep_host_thread_events);
  CHECK(EventStatsFor(SummaryPart::kOps, {}).keep_host_thread_events);
  CHECK(EventStatsFor(SummaryPart::kKernels | SummaryPart::kMemory, {}).keep_host_thread_events);
  CHECK(EventStatsFor(SummaryParts(), {}).keep_host_thread_events);  // What info reads with.
  CHECK_FALSE(EventStatsFor(SummaryParts(), {}).keep_derived_line_events);
  for (const char* capture : {"testdata/captures/jax_gpu", "testdata/captures/jax_gpu_cublas"})
    CheckDevicesSideAlone(testing::SourcePath(capture));
}

TEST_CASE("Each side alone of a TF GPU capture with derived lines", "[filter][summary][corpus]") {
  const std::string t4 = testing::CorpusPath(
      "e4040-2023fall-assign2-hd2551/logs/fit/20231107-184716/train/plugins/profile/2023_11_07_18_47_18");
  if (t4.empty()) {
    testing::SkipTest("no corpus (set TFPROF_CORPUS): the T4 Keras capture");
    return;
  }
  CheckDevicesSideAlone(t4);
  CheckHostSideAlone(t4, true);
}

TEST_CASE("Each summary part keeps the event stats its analyses read, and no other", "[filter][summary]") {
  const EventStatFilter ops = EventStatsFor(SummaryPart::kOps, {}), memory = EventStatsFor(SummaryPart::kMemory, {}),
                        steps = EventStatsFor(SummaryPart::kSteps, {}), none = EventStatsFor(SummaryParts(), {});
  CHECK_FALSE(ops.keep_all);
  for (std::string_view name : {"tf_op", "tf_op_type", "kernel_details", "correlation_id", "hlo_op", "grid"})
    CHECK(ops.Keeps(name));
  CHECK_FALSE(ops.Keeps("bytes_allocated"));
  CHECK_FALSE(ops.Keeps("group_id"));  // kernel-stats and placement group nothing.
  CHECK(memory.Keeps("bytes_allocated"));
  CHECK(memory.Keeps("group_id"));  // The memory profile's step ids come from grouping.
  CHECK(steps.Keeps("_r"));
  CHECK(steps.Keeps("step_name"));
  CHECK_FALSE(steps.Keeps("kernel_details"));
  // What CUPTI writes on every kernel and memcpy and no analysis reads.
  for (std::string_view name : {"context_id", "device_id", "memcpy_details", "annotation", "python_source"})
    CHECK_FALSE(EventStatsFor(SummaryParts::All(), {}).Keeps(name));
  CHECK_FALSE(none.keep_all);
  CHECK(none.names.empty());
}

}  // namespace
}  // namespace tfprof

namespace tfprof {
namespace {

TEST_CASE("Device events are left out for the memory profile alone, unless a step option may read them",
          "[filter][summary]") {
  CHECK_FALSE(EventStatsFor(SummaryPart::kMemory, {}).keep_device_events);
  AnalysisOptions xprof;
  xprof.compat = Compat::kXprof;
  CHECK_FALSE(EventStatsFor(SummaryPart::kMemory, xprof).keep_device_events);
  for (SummaryParts parts : testing::CommandParts())
    if (!(parts == SummaryParts(SummaryPart::kMemory))) CHECK(EventStatsFor(parts, {}).keep_device_events);
  CHECK(EventStatsFor(SummaryParts(), {}).keep_device_events);  // What info reads with.
  AnalysisOptions whole, marker, between;
  whole.whole_trace = true;
  marker.step_marker = "sgemm";  // A kernel's name: the steps would be on the device.
  between.steps_between = "train";
  for (const AnalysisOptions& a : {whole, marker, between})
    CHECK(EventStatsFor(SummaryPart::kMemory, a).keep_device_events);
}

TEST_CASE("Allocator events are left out unless the memory profile or an option may read them", "[filter][summary]") {
  CHECK_FALSE(EventStatsFor(SummaryPart::kOps, {}).keep_allocator_events);
  CHECK_FALSE(
      EventStatsFor(SummaryPart::kOps | SummaryPart::kEagerMarks | SummaryPart::kSteps, {}).keep_allocator_events);
  CHECK_FALSE(EventStatsFor(SummaryPart::kTfData, {}).keep_allocator_events);
  CHECK(EventStatsFor(SummaryPart::kMemory, {}).keep_allocator_events);
  CHECK(EventStatsFor(SummaryParts::All(), {}).keep_allocator_events);
  AnalysisOptions xprof, legacy, whole, marker, between;
  xprof.compat = Compat::kXprof;
  legacy.compat = Compat::kTfLegacy;
  whole.whole_trace = true;
  marker.step_marker = "Memory.*";
  between.steps_between = "train";
  for (const AnalysisOptions& a : {xprof, legacy, whole, marker, between})
    CHECK(EventStatsFor(SummaryPart::kOps | SummaryPart::kSteps, a).keep_allocator_events);
}

TEST_CASE("Leaving allocator events out changes what --compat xprof counts, and nothing by default",
          "[filter][summary]") {
  // xprof counts each allocator event as a zero-time run of the op it
  // allocates for: under --compat xprof they must be read (EventStatsFor
  // keeps them), which this shows by leaving them out regardless.
  const std::string path = testing::SourcePath("testdata/captures/tf_memory");
  const SummaryParts ops = SummaryPart::kOps | SummaryPart::kEagerMarks;
  EventStatFilter leaving_out = EventStatsFor(ops, {});
  REQUIRE_FALSE(leaving_out.keep_allocator_events);
  AnalysisOptions xprof;
  xprof.compat = Compat::kXprof;
  CHECK(SummaryBytes(path, ops, leaving_out, xprof) != SummaryBytes(path, ops, EventStatFilter(), xprof));
  CHECK(SummaryBytes(path, ops, leaving_out, {}) == SummaryBytes(path, ops, EventStatFilter(), {}));
  // And they were there to leave out.
  RunReadOptions read;
  read.read.event_stats = leaving_out;
  uint64_t skipped = 0;
  read.visit = [&](const Host& host) { skipped += host.allocator_events_skipped; };
  SummaryOptions options;
  options.parts = ops;
  CapturesToRunSummary(DiscoverInput(path, "", false), read, options);
  CHECK(skipped > 100);
}

TEST_CASE(
    "A real TensorFlow capture's allocator events are read by memory without their step id, its other "
    "events with theirs",
    "[filter][summary]") {
  const std::string path =
      testing::SourcePath("testdata/captures/tf_memory/plugins/profile/2026_11_21_08_22_42/tfprof-capture.xplane.pb");
  // Events of each kind holding an `id` stat, read with `kept`.
  auto ids = [&](const EventStatFilter& kept) {
    ReadOptions options;
    options.event_stats = kept;
    Diagnostics diag;
    const Host h = ReadXSpaceFile(path, diag, options);
    const Plane* cpu = h.FindPlane(schema::kHostThreadsPlane);
    REQUIRE(cpu);
    const StatFinder id(h, *cpu, "id");
    std::pair<uint64_t, uint64_t> allocator_and_other{0, 0};
    for (const Line& line : cpu->lines)
      for (size_t e = 0; e < line.events.size(); ++e)
        if (id.In(line.EventStats(e)))
          ++(schema::IsAllocatorEvent(h.EventName(*cpu, line.events[e])) ? allocator_and_other.first
                                                                         : allocator_and_other.second);
    return allocator_and_other;
  };
  const auto whole = ids(EventStatFilter());
  const auto memory = ids(EventStatsFor(SummaryPart::kMemory, {}));
  CHECK(whole.first > 100);  // BFC writes one on every allocation and free.
  CHECK(memory.first == 0);
  CHECK(whole.second > 0);  // Executor and iterator ids, kept.
  CHECK(memory.second == whole.second);
}

TEST_CASE("Events beside the allocator events are left out for the memory profile alone, on its own steps",
          "[filter][summary]") {
  CHECK(EventStatsFor(SummaryPart::kMemory, {}).only_allocator_events_when_steps_allow);
  AnalysisOptions xprof;
  xprof.compat = Compat::kXprof;
  CHECK(EventStatsFor(SummaryPart::kMemory, xprof).only_allocator_events_when_steps_allow);
  for (SummaryParts parts : testing::CommandParts())
    if (!(parts == SummaryParts(SummaryPart::kMemory)))
      CHECK_FALSE(EventStatsFor(parts, {}).only_allocator_events_when_steps_allow);
  AnalysisOptions whole, marker, between;
  whole.whole_trace = true;
  marker.step_marker = "MatMul";
  between.steps_between = "train";
  for (const AnalysisOptions& a : {whole, marker, between})
    CHECK_FALSE(EventStatsFor(SummaryPart::kMemory, a).only_allocator_events_when_steps_allow);
}

// The memory summary of a capture file as `memory` alone reads it,
// checked the same as read with every event.
std::string MemorySummaryReadBothWays(const std::string& path) {
  const std::string kept = SummaryBytes(path, SummaryPart::kMemory, EventStatsFor(SummaryPart::kMemory, {}), {});
  CHECK(kept == SummaryBytes(path, SummaryPart::kMemory, EventStatFilter(), {}));
  return kept;
}

// What `memory` alone leaves out of a capture file's hosts' first planes:
// the events, and the group ids it keeps aside.
struct LeftOutForMemory {
  uint64_t events = 0, group_ids = 0;
};
LeftOutForMemory LeftOutReadingForMemory(const std::string& path) {
  RunReadOptions read;
  read.read.event_stats = EventStatsFor(SummaryPart::kMemory, {});
  LeftOutForMemory out;
  read.visit = [&](const Host& host) {
    out.events += host.planes[0].EventsLeftOut();
    out.group_ids += host.planes[0].left_out_group_ids.size();
  };
  SummaryOptions options;
  options.parts = SummaryPart::kMemory;
  CapturesToRunSummary(DiscoverInput(path, "", false), read, options);
  return out;
}

// A BFC allocator event's stats: `in_use` bytes after it, of `bytes`
// allocated or freed at `addr`.
testing::StatList AllocatorEventStats(int64_t in_use, int64_t bytes, uint64_t addr) {
  return {{"allocator_name", std::string("GPU_0_bfc")},
          {"bytes_reserved", int64_t{0}},
          {"bytes_allocated", in_use},
          {"bytes_available", int64_t{1} << 30},
          {"fragmentation", 0.25},
          {"peak_bytes_in_use", in_use},
          {"requested_bytes", bytes},
          {"allocation_bytes", bytes},
          {"addr", addr},
          {"tf_op", std::string("dense/MatMul")},
          {"region_type", std::string("output")},
          {"data_type", int64_t{1}},
          {"shape", std::string("(32,10)")}};
}

// A capture grouped when taken: two steps whose names only their root
// events hold, ops of a third group that no allocator event has, and a
// BFC allocator's events in both steps.
std::string GroupedMemoryCapture() {
  testing::XSpaceBuilder space;
  auto& host = space.Plane("/host:CPU", 0);
  auto allocation = [](int64_t group, int64_t in_use, int64_t bytes, uint64_t addr) {
    testing::StatList stats = AllocatorEventStats(in_use, bytes, addr);
    stats.push_back({"group_id", group});
    return stats;
  };
  host.Line(1, "tf_Compute", 1'000)
      .Event("train", 0, 5'000'000, {{"group_id", int64_t{1}}, {"step_name", std::string("train 1")}})
      .Event("MatMul:MatMul", 10'000, 20'000, {{"group_id", int64_t{1}}})
      .Event("MemoryAllocation", 11'000, 0, allocation(1, 4096, 4096, 0x1000))
      .Event("MemoryAllocation", 12'000, 0, allocation(1, 12288, 8192, 0x2000))
      .Event("MemoryDeallocation", 40'000, 0, allocation(1, 8192, 4096, 0x1000))
      .Event("train", 6'000'000, 5'000'000, {{"group_id", int64_t{2}}, {"step_name", std::string("train 2")}})
      .Event("Relu:Relu", 6'010'000, 20'000, {{"group_id", int64_t{2}}})
      .Event("MemoryAllocation", 6'011'000, 0, allocation(2, 24576, 16384, 0x3000))
      .Event("Iterator::GetNext", 7'000'000, 1'000, {{"group_id", int64_t{9}}});
  // A thread that started first, none of whose events is kept: the
  // snapshots' time 0 is its start all the same.
  host.Line(2, "tf_data_iterator_get_next", 500).Event("Iterator::Prefetch", 0, 1'000, {{"group_id", int64_t{9}}});
  return space.Serialize();
}

TEST_CASE("The memory profile of a capture grouped when taken is the same with its other events left out",
          "[filter][summary]") {
  const std::string path = testing::TempDir() + "/grouped.xplane.pb";
  testing::WriteFile(path, GroupedMemoryCapture());
  const std::string kept = MemorySummaryReadBothWays(path);
  // Teeth: the peak is in step 2, named by its root event; without the
  // left-out ops' group 9 the steps would differ, and without the line
  // whose events are all left out, time 0.
  const RunSummary run = RunSummaryFromBytes(kept, path);
  REQUIRE(run.hosts.size() == 1);
  const auto& profiles = run.hosts[0].memory.allocators;
  REQUIRE(profiles.size() == 1);
  CHECK(profiles[0].peak_step == 2);
  CHECK(profiles[0].peak_bytes == 24576);
  CHECK(run.hosts[0].memory.time_zero_ps == -500'000);     // The first line (1,000 ns) sets the origin.
  CHECK(profiles[0].peak_time_ps == 6'011'000 + 500'000);  // Since the first thread's start, 500 ns before.
  CHECK(run.hosts[0].memory.step_names == std::map<int64_t, std::string>{{1, "train 1"}, {2, "train 2"}, {9, "9"}});
  // And the ops were left out, their groups 1, 2 and 9 kept aside.
  const LeftOutForMemory left_out = LeftOutReadingForMemory(path);
  CHECK(left_out.events == 4);
  CHECK(left_out.group_ids == 3);
}

// The same allocations in a capture whose names give no step (no group
// ids, roots or ProfilerStep#N), as JAX writes them.
std::string UngroupedMemoryCapture() {
  testing::XSpaceBuilder space;
  auto& host = space.Plane("/host:CPU", 0);
  const auto allocation = AllocatorEventStats;
  host.Line(1, "python3", 1'000)
      .Event("PjitFunction(train)", 0, 5'000'000, {})
      .Event("ThunkExecutor::Execute", 10'000, 20'000, {{"hlo_op", std::string("dot.1")}})
      .Event("MemoryAllocation", 11'000, 0, allocation(4096, 4096, 0x1000))
      .Event("MemoryAllocation", 12'000, 0, allocation(12288, 8192, 0x2000))
      .Event("MemoryDeallocation", 40'000, 0, allocation(8192, 4096, 0x1000))
      .Event("MemoryAllocation", 6'011'000, 0, allocation(24576, 16384, 0x3000));
  host.Line(2, "tsl_threadpool", 500).Event("ThreadpoolListener::StartRegion", 0, 1'000, {});
  return space.Serialize();
}

TEST_CASE("The memory profile of a capture that can have no step is the same with its other events left out",
          "[filter][summary]") {
  const std::string path = testing::TempDir() + "/ungrouped.xplane.pb";
  testing::WriteFile(path, UngroupedMemoryCapture());
  const std::string kept = MemorySummaryReadBothWays(path);
  // Teeth: no steps, and the time 0 of the thread none of whose events is
  // kept.
  const RunSummary run = RunSummaryFromBytes(kept, path);
  REQUIRE(run.hosts.size() == 1);
  const HostMemoryProfile& profile = run.hosts[0].memory;
  REQUIRE(profile.allocators.size() == 1);
  CHECK(profile.allocators[0].peak_bytes == 24576);
  CHECK(profile.allocators[0].peak_step == 0);
  CHECK(profile.time_zero_ps == -500'000);
  CHECK(profile.allocators[0].peak_time_ps == 6'011'000 + 500'000);
  CHECK(profile.step_names.empty());
  CHECK_THAT(profile.no_steps_reason, Catch::Contains("no step markers"));
  // And the other three events were left out, their group ids not read.
  const LeftOutForMemory left_out = LeftOutReadingForMemory(path);
  CHECK(left_out.events == 3);
  CHECK(left_out.group_ids == 0);
}

TEST_CASE("Allocator events read without TensorFlow's pending step id, which no analysis reads there",
          "[filter][summary]") {
  for (SummaryParts parts :
       {SummaryParts(SummaryPart::kMemory), SummaryParts::All(), SummaryPart::kSteps | SummaryPart::kTfData}) {
    const EventStatFilter f = EventStatsFor(parts, {});
    CHECK(f.Keeps("id"));  // Grouping's executor ids, tf.data's iterator ids.
    CHECK(f.not_on_allocator_events == std::vector<std::string_view>{"id"});
  }
}

}  // namespace
}  // namespace tfprof
