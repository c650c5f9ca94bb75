// The memory profile of PyTorch traces recorded with profile_memory=True
// (`[memory]` instant events): a small trace built here with every number
// worked out by hand, then real traces whose expected numbers come from
// scripts/reference/kineto_memory.py (an independent reading of the raw
// JSON, written from docs/memory.md), not from this program's output.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"

#include "lib/analyze/memory_profile_report.h"
#include "lib/read/chrome_trace_reader.h"
#include "lib/summary/kineto_memory_events_to_profile.h"
#include "lib/summary/memory_events_to_profile.h"
#include "tests/support/corpus.h"
#include "tests/support/files.h"
#include "tests/support/run_tool.h"
#include "tests/support/skip.h"
#include "tests/support/xspace_builder.h"

using namespace tfprof;
using tfprof::testing::RunTool;

namespace {

constexpr int64_t kKiB = 1024;
constexpr int64_t kUs = 1'000'000;  // ps

// One PyTorch [memory] event on thread `tid` at `ts` us (cuda:0 unless said).
std::string Mem(int tid, int ts, int64_t bytes, int64_t addr, int64_t allocated, int64_t reserved, int type = 1,
                int id = 0) {
  return "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":1,\"tid\":" +
         std::to_string(tid) + ",\"ts\":" + std::to_string(ts) + ",\"args\":{\"Device Type\":" + std::to_string(type) +
         ",\"Device Id\":" + std::to_string(id) + ",\"Addr\":" + std::to_string(addr) +
         ",\"Bytes\":" + std::to_string(bytes) + ",\"Total Allocated\":" + std::to_string(allocated) +
         ",\"Total Reserved\":" + std::to_string(reserved) + "}}";
}
std::string Op(const std::string& cat, const std::string& name, int tid, int ts, int dur) {
  return "{\"ph\":\"X\",\"cat\":\"" + cat + "\",\"name\":\"" + name + "\",\"pid\":1,\"tid\":" + std::to_string(tid) +
         ",\"ts\":" + std::to_string(ts) + ",\"dur\":" + std::to_string(dur) + "}";
}

// cuda:0 holds 2048 KiB from before the trace, 512 KiB of it at 0x9000.
// Main thread 1: ProfilerStep#3 100..200 us, ProfilerStep#4 200..300 us;
// aten::linear 110..150 holds aten::addmm 115..135; aten::mul 205..215.
// Autograd thread 2 (no step marker): aten::mm 155..175.
//   105 t1 free   512 @0x9000 (before the trace)    allocated 1536
//   120 t1 alloc 1024 @0x1000 in aten::addmm         2560
//   140 t1 alloc  256 @0x2000 in aten::linear        2816
//   150 t1 alloc  128 @0x3000 at linear's end: none  2944
//   160 t2 alloc 4096 @0x4000 in aten::mm            7040  reserved 12288 <- peak
//   170 t2 free  1024 @0x1000 (addmm's)              6016
//   210 t1 alloc  512 @0x1000 in aten::mul           6528
//   220 t1 alloc  128 @0x2000, never freed before    6656  (replaces linear's)
//   230 t2 free  4096 @0x4000 (mm's)                 2560
// cpu: 130 t1 alloc 8 B in aten::addmm, 131 t1 free it. One event without
// Bytes is left out.
std::string HandTrace() {
  const int64_t k = kKiB;
  std::vector<std::string> e = {
      Op("user_annotation", "ProfilerStep#3", 1, 100, 100),
      Op("user_annotation", "ProfilerStep#4", 1, 200, 100),
      Op("cpu_op", "aten::linear", 1, 110, 40),
      Op("cpu_op", "aten::addmm", 1, 115, 20),
      Op("cpu_op", "aten::mm", 2, 155, 20),
      Op("cpu_op", "aten::mul", 1, 205, 10),
      Mem(1, 105, -512 * k, 0x9000, 1536 * k, 8192 * k),
      Mem(1, 120, 1024 * k, 0x1000, 2560 * k, 8192 * k),
      Mem(1, 130, 8, 0x7000, 8, 0, 0, -1),
      Mem(1, 131, -8, 0x7000, 0, 0, 0, -1),
      Mem(1, 140, 256 * k, 0x2000, 2816 * k, 8192 * k),
      Mem(1, 150, 128 * k, 0x3000, 2944 * k, 8192 * k),
      Mem(2, 160, 4096 * k, 0x4000, 7040 * k, 12288 * k),
      Mem(2, 170, -1024 * k, 0x1000, 6016 * k, 12288 * k),
      Mem(1, 210, 512 * k, 0x1000, 6528 * k, 12288 * k),
      Mem(1, 220, 128 * k, 0x2000, 6656 * k, 12288 * k),
      Mem(2, 230, -4096 * k, 0x4000, 2560 * k, 12288 * k),
      "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":240,\"args\":{\"Device Type\":1}}",
  };
  std::string json = "{\"schemaVersion\":1,\"traceEvents\":[";
  for (size_t i = 0; i < e.size(); ++i) json += (i ? "," : "") + e[i];
  return json + "]}";
}

const AllocatorMemoryProfile& Device(const HostMemoryProfile& p, const std::string& id) {
  for (const AllocatorMemoryProfile& a : p.allocators)
    if (a.memory_id == id) return a;
  FAIL("no memory id " << id);
  return p.allocators.front();
}

int64_t Count(const Diagnostics& d, const std::string& kind) {
  for (const DiagnosticEntry& e : d.Entries())
    if (e.kind == kind) return static_cast<int64_t>(e.count);
  return 0;
}

}  // namespace

TEST_CASE("PyTorch [memory] events: peak, reserved, frees matched by address, ops and steps", "[memory][kineto]") {
  Diagnostics diag;
  Host host = ReadChromeTraceText(HandTrace(), "rank0.pt.trace.json", diag);
  std::vector<HostMemoryProfile> hosts;
  hosts.reserve(2);  // `p` below stays valid when the mixed-run host is added.
  hosts.push_back(BuildMemoryProfile(host, MemoryProfileOptionsFor(Compat::kDefault), diag));
  const HostMemoryProfile& p = hosts[0];
  REQUIRE(p.no_profile_reason.empty());
  CHECK(p.source == MemorySource::kPyTorch);
  REQUIRE(p.allocators.size() == 2);
  CHECK(p.allocators[0].memory_id == "cpu");  // Byte order.
  CHECK(p.allocators[1].memory_id == "cuda:0");
  CHECK(Count(diag, "memory.missing_stats") == 1);
  CHECK(Count(diag, "memory.address_reused_without_free") == 1);
  CHECK(Count(diag, "memory.unmatched_deallocation") == 1);
  // Time zero is the first host event (ProfilerStep#3 at 100 us).
  CHECK(p.time_zero_ps + host.time_origin_ns * 1000 == 100 * kUs);

  const AllocatorMemoryProfile& gpu = Device(p, "cuda:0");
  CHECK(gpu.allocations == 6);
  CHECK(gpu.deallocations == 3);
  CHECK(gpu.peak_bytes == 7040 * kKiB);
  CHECK(gpu.peak_time_ps == 60 * kUs);
  CHECK(p.step_names.at(gpu.peak_step) == "ProfilerStep#3");  // The autograd thread's step, by time.
  CHECK(gpu.peak_step == 3);                                  // Its number, as `steps` gives it, not its group id (0).
  CHECK(gpu.capacity_bytes == 12288 * kKiB);                  // Reserved at the peak.
  CHECK(gpu.pytorch.peak_reserved_bytes == 12288 * kKiB);
  CHECK(gpu.pytorch.peak_reserved_time_ps == 60 * kUs);
  CHECK(gpu.pytorch.unmatched_frees == 1);
  CHECK(gpu.pytorch.live_at_peak_bytes == (1024 + 256 + 128 + 4096) * kKiB);
  CHECK(gpu.pytorch.live_at_peak_allocations == 4);
  CHECK(gpu.pytorch.before_trace_bytes == 1536 * kKiB);
  REQUIRE(gpu.pytorch.ops_at_peak.size() == 4);
  const std::vector<std::pair<std::string, int64_t>> want = {
      {"aten::mm", 4096 * kKiB}, {"aten::addmm", 1024 * kKiB}, {"aten::linear", 256 * kKiB}, {"", 128 * kKiB}};
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("row " << i);
    CHECK(p.Str(gpu.pytorch.ops_at_peak[i].op_name) == want[i].first);
    CHECK(gpu.pytorch.ops_at_peak[i].bytes == want[i].second);
    CHECK(gpu.pytorch.ops_at_peak[i].allocations == 1);
  }
  // Timeline: time order; a free takes its allocation's op; steps.
  REQUIRE(gpu.timeline.size() == 9);
  CHECK(gpu.timeline[0].activity == MemoryActivity::kDeallocation);
  CHECK(p.Str(gpu.timeline[0].op_name).empty());  // Allocated before the trace.
  CHECK(gpu.timeline[0].heap_bytes == 1536 * kKiB);
  CHECK(gpu.timeline[0].free_bytes == (8192 - 1536) * kKiB);  // Reserved - allocated.
  CHECK(p.Str(gpu.timeline[5].op_name) == "aten::addmm");     // 170: the free of addmm's block.
  CHECK(p.Str(gpu.timeline[8].op_name) == "aten::mm");
  CHECK(gpu.timeline[8].allocation_bytes == 4096 * kKiB);
  CHECK(p.step_names.at(gpu.timeline[0].step) == "ProfilerStep#3");
  CHECK(p.step_names.at(gpu.timeline[6].step) == "ProfilerStep#4");
  CHECK(p.step_names.at(gpu.timeline[8].step) == "ProfilerStep#4");  // Thread 2 at 230 us.
  CHECK(gpu.timeline[0].step == 3);
  CHECK(gpu.timeline[8].step == 4);

  const AllocatorMemoryProfile& cpu = Device(p, "cpu");
  CHECK(cpu.allocations == 1);
  CHECK(cpu.deallocations == 1);
  CHECK(cpu.peak_bytes == 8);
  CHECK(cpu.peak_time_ps == 30 * kUs);
  REQUIRE(cpu.pytorch.ops_at_peak.size() == 1);
  CHECK(p.Str(cpu.pytorch.ops_at_peak[0].op_name) == "aten::addmm");

  // The report: PyTorch's columns, the made-up row, and no TF-only column.
  MemoryReportOptions o;
  o.breakdown = true;
  o.unit = MemoryUnit::kBytes;
  Report r = BuildMemoryReport(hosts, o);
  const Table* summary = r.FindTable("summary");
  REQUIRE(summary);
  CHECK(summary->ColumnIndex("peak_allocated_bytes") >= 0);
  CHECK(summary->ColumnIndex("reserved_at_peak_bytes") >= 0);
  CHECK(summary->ColumnIndex("stack_at_peak_bytes") < 0);
  const Table* breakdown = r.FindTable("breakdown");
  REQUIRE(breakdown);
  const int op = breakdown->ColumnIndex("op_name"), bytes = breakdown->ColumnIndex("allocated_bytes");
  int64_t gpu_sum = 0;
  bool before = false, outside = false;
  for (const auto& row : breakdown->rows) {
    if (std::get<std::string>(row[1]) != "cuda:0") continue;
    gpu_sum += std::get<int64_t>(row[bytes]);
    before = before || std::get<std::string>(row[op]) == "(allocated before the trace)";
    outside = outside || std::get<std::string>(row[op]) == "(outside any op)";
  }
  CHECK(before);
  CHECK(outside);
  CHECK(gpu_sum == 7040 * kKiB);  // The rows add up to the peak.
  REQUIRE_FALSE(r.lines.empty());
  CHECK_THAT(r.lines[1], Catch::Contains("cuda:0: peak allocated 6.88 MiB at 0.1 ms (step"));

  // A run mixing a TensorFlow host: TensorFlow's columns, the PyTorch device
  // read as heap = allocated, free = reserved - allocated, stack 0.
  HostMemoryProfile tf;
  tf.host = "worker1";
  tf.allocators.emplace_back();
  tf.allocators.back().memory_id = "GPU_0_bfc";
  hosts.push_back(std::move(tf));
  Report mixed = BuildMemoryReport(hosts, o);
  const Table* t = mixed.FindTable("summary");
  REQUIRE(t);
  REQUIRE(t->rows.size() == 3);
  const auto& row = t->rows[1];  // rank0 cuda:0
  CHECK(std::get<std::string>(row[t->ColumnIndex("memory_id")]) == "cuda:0");
  CHECK(std::get<int64_t>(row[t->ColumnIndex("heap_at_peak_bytes")]) == 7040 * kKiB);
  CHECK(std::get<int64_t>(row[t->ColumnIndex("free_at_peak_bytes")]) == (12288 - 7040) * kKiB);
  CHECK(std::get<int64_t>(row[t->ColumnIndex("stack_at_peak_bytes")]) == 0);
  CHECK(std::get<int64_t>(row[t->ColumnIndex("capacity_bytes")]) == 12288 * kKiB);
}

TEST_CASE("PyTorch device names as torch.device prints them", "[memory][kineto]") {
  CHECK(PyTorchDeviceName(0, -1) == "cpu");
  CHECK(PyTorchDeviceName(1, 3) == "cuda:3");
  CHECK(PyTorchDeviceName(6, 0) == "hip:0");
  CHECK(PyTorchDeviceName(12, 1) == "xpu:1");
  CHECK(PyTorchDeviceName(99, 0) == "device_type_99:0");
}

TEST_CASE("PyTorch memory steps: shown by their number; outside the steps, the next one", "[memory][kineto]") {
  // ProfilerStep#7 100..200 us and #8 200..300; allocations at 50 (before
  // any step), 150, 250 and 350 (after the last step).
  auto trace = [](const std::string& second_step) {
    const std::vector<std::string> e = {
        Op("user_annotation", "ProfilerStep#7", 1, 100, 100),
        Op("user_annotation", second_step, 1, 200, 100),
        Mem(1, 50, 64, 0x1000, 64, 1024),
        Mem(1, 150, 64, 0x2000, 128, 1024),
        Mem(1, 250, 64, 0x3000, 192, 1024),
        Mem(1, 350, 64, 0x4000, 256, 1024),
    };
    std::string json = "{\"schemaVersion\":1,\"traceEvents\":[";
    for (size_t i = 0; i < e.size(); ++i) json += (i ? "," : "") + e[i];
    return json + "]}";
  };
  auto steps_of = [](const HostMemoryProfile& p) {
    std::vector<int64_t> steps;
    for (const MemorySnapshot& s : p.allocators.at(0).timeline) steps.push_back(s.step);
    return steps;
  };
  Diagnostics diag;
  Host host = ReadChromeTraceText(trace("ProfilerStep#8"), "rank0.pt.trace.json", diag);
  HostMemoryProfile p = BuildMemoryProfile(host, MemoryProfileOptionsFor(Compat::kDefault), diag);
  REQUIRE(p.allocators.size() == 1);
  CHECK(steps_of(p) == std::vector<int64_t>{7, 7, 8, 9});  // Before the first: #7; after the last: the next, 9.
  CHECK(p.allocators[0].peak_step == 9);
  CHECK(p.step_names == std::map<int64_t, std::string>{{7, "ProfilerStep#7"}, {8, "ProfilerStep#8"}});

  // Two steps of one number: grouping's ids (0, 1) stay, so that each
  // names one step.
  Host twice = ReadChromeTraceText(trace("ProfilerStep#7"), "rank0.pt.trace.json", diag);
  HostMemoryProfile q = BuildMemoryProfile(twice, MemoryProfileOptionsFor(Compat::kDefault), diag);
  REQUIRE(q.allocators.size() == 1);
  CHECK(steps_of(q) == std::vector<int64_t>{0, 0, 1, 2});
  CHECK(q.step_names == std::map<int64_t, std::string>{{0, "ProfilerStep#7"}, {1, "ProfilerStep#7"}});
}

namespace {

// What scripts/reference/kineto_memory.py printed for a device.
struct Reference {
  std::string device;
  int64_t allocations, deallocations, peak_bytes;
  std::string peak_ts_us;  // The peak event's ts, as the script prints it.
  std::string peak_step;
  int64_t reserved_at_peak, peak_reserved;  // -1: the trace has no Total Reserved.
  std::string peak_reserved_ts_us;
  int64_t live_bytes, live_allocations, unmatched;                 // -1: the trace has no Addr.
  std::vector<std::tuple<std::string, int64_t, int64_t>> top_ops;  // op, bytes, allocations
};

// Absolute trace time in ps from the decimal microseconds of a ts (epoch-us
// times in ps do not fit in int64).
__int128 AbsPs(const std::string& us) {
  __int128 whole = 0, frac = 0;
  size_t dot = us.find('.');
  for (char c : us.substr(0, dot)) whole = whole * 10 + (c - '0');
  std::string f = dot == std::string::npos ? "" : us.substr(dot + 1);
  f.resize(6, '0');
  for (char c : f) frac = frac * 10 + (c - '0');
  return whole * 1'000'000 + frac;
}

void CheckAgainstReference(const std::string& path, const std::vector<Reference>& want) {
  Diagnostics diag;
  Host host = ReadChromeTraceFile(path, diag);
  HostMemoryProfile p = BuildMemoryProfile(host, MemoryProfileOptionsFor(Compat::kDefault), diag);
  REQUIRE(p.allocators.size() == want.size());
  const __int128 zero = static_cast<__int128>(host.time_origin_ns) * 1000 + p.time_zero_ps;
  for (size_t i = 0; i < want.size(); ++i) {
    const Reference& w = want[i];
    const AllocatorMemoryProfile& a = p.allocators[i];
    INFO(w.device);
    CHECK(a.memory_id == w.device);
    CHECK(a.allocations == w.allocations);
    CHECK(a.deallocations == w.deallocations);
    CHECK(a.peak_bytes == w.peak_bytes);
    CHECK((zero + a.peak_time_ps == AbsPs(w.peak_ts_us)));
    CHECK(p.step_names[a.peak_step] == w.peak_step);
    if (w.reserved_at_peak >= 0) {
      CHECK(a.capacity_bytes == w.reserved_at_peak);
      CHECK(a.pytorch.peak_reserved_bytes == w.peak_reserved);
      CHECK((zero + a.pytorch.peak_reserved_time_ps == AbsPs(w.peak_reserved_ts_us)));
    } else {
      CHECK_FALSE(a.pytorch.reserved_known);
    }
    if (w.live_bytes >= 0) {
      CHECK(a.pytorch.live_at_peak_bytes == w.live_bytes);
      CHECK(a.pytorch.live_at_peak_allocations == w.live_allocations);
      CHECK(a.pytorch.unmatched_frees == w.unmatched);
      CHECK(a.pytorch.before_trace_bytes == w.peak_bytes - w.live_bytes);
      REQUIRE(a.pytorch.ops_at_peak.size() >= w.top_ops.size());
      for (size_t k = 0; k < w.top_ops.size(); ++k) {
        INFO("op row " << k);
        CHECK(std::string(p.Str(a.pytorch.ops_at_peak[k].op_name)) == std::get<0>(w.top_ops[k]));
        CHECK(a.pytorch.ops_at_peak[k].bytes == std::get<1>(w.top_ops[k]));
        CHECK(a.pytorch.ops_at_peak[k].allocations == std::get<2>(w.top_ops[k]));
      }
    } else {
      CHECK_FALSE(a.pytorch.addresses_known);
      CHECK(a.pytorch.ops_at_peak.empty());
    }
  }
}

}  // namespace

TEST_CASE("PyTorch memory: HTA df_index_resolver trace (V100, rank 1) matches the reference script",
          "[memory][kineto][corpus]") {
  REQUIRE_CORPUS(path, "hta/df_index_resolver/df_index_resolver.json.gz");
  CheckAgainstReference(path, {{"cpu",
                                620,
                                620,
                                8,
                                "1669783687405327",
                                "ProfilerStep#2",
                                0,
                                0,
                                "1669783687405327",
                                8,
                                1,
                                0,
                                {{"CompiledFunction", 8, 1}}},
                               {"cuda:1",
                                13385,
                                13385,
                                6629508096,
                                "1669783687579130",
                                "ProfilerStep#2",
                                12782141440,
                                12782141440,
                                "1669783687404093",
                                2532893696,
                                725,
                                0,
                                {{"aten::mm", 1037459456, 143},
                                 {"aten::add", 591224832, 49},
                                 {"aten::addmm", 428302336, 90},
                                 {"aten::empty", 165198848, 36},
                                 {"aten::clamp_min", 80265216, 40}}}});
}

TEST_CASE("PyTorch memory: ROCm bert-small trace (MI300X, hip:0) matches the reference script",
          "[memory][kineto][corpus]") {
  REQUIRE_CORPUS(path, "tracelens/mi300/gaunernst_bert-small-uncased__1016001.json.gz");
  CheckAgainstReference(path, {{"cpu",
                                1,
                                1,
                                8,
                                "2204338330462.088",
                                "ProfilerStep#6",
                                0,
                                0,
                                "2204338330462.088",
                                8,
                                1,
                                0,
                                {{"aten::eq", 8, 1}}},
                               {"hip:0",
                                117,
                                117,
                                146394112,
                                "2204338333678.828",
                                "ProfilerStep#6",
                                224395264,
                                224395264,
                                "2204338330197.718",
                                88587776,
                                4,
                                0,
                                {{"aten::empty", 79980544, 3}, {"aten::addmm", 8607232, 1}}}});
}

TEST_CASE("PyTorch memory: 2021 trace with only Bytes (running total, no breakdown) matches the reference script",
          "[memory][kineto][corpus]") {
  REQUIRE_CORPUS(path, "kineto/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz");
  CheckAgainstReference(
      path, {{"cpu", 2310, 2308, 57803264, "1623142623704921", "ProfilerStep#6", -1, -1, "", -1, -1, -1, {}},
             {"cuda:0", 4110, 4110, 2791636480, "1623142623582083", "ProfilerStep#5", -1, -1, "", -1, -1, -1, {}}});
}

TEST_CASE("memory command on PyTorch traces", "[memory][kineto][cli]") {
  // No [memory] events: exit 4 and how to record them.
  auto none = RunTool("memory " + tfprof::testing::SourcePath("testdata/captures/torch_mlp/trace.json"));
  CHECK(none.exit_code == 4);
  CHECK_THAT(none.err, Catch::Contains("profile_memory=True"));
  REQUIRE_CORPUS(path, "tracelens/mi300/gaunernst_bert-small-uncased__1016001.json.gz");
  auto csv = RunTool("memory '" + path + "' --breakdown --memory-id hip:0 --unit bytes -f csv");
  REQUIRE(csv.exit_code == 0);
  // The breakdown's rows: the two ops the script finds, then what was
  // allocated before the trace (146394112 - 88587776 bytes).
  CHECK_THAT(csv.out, Catch::StartsWith("host,memory_id,op_name,allocated_bytes,allocations,largest_bytes\n"));
  CHECK_THAT(csv.out, Catch::Contains(",hip:0,aten::empty,79980544,3,"));
  CHECK_THAT(csv.out, Catch::Contains(",hip:0,aten::addmm,8607232,1,8607232\n"));
  CHECK_THAT(csv.out, Catch::Contains(",hip:0,(allocated before the trace),57806336,,\n"));
  auto bad = RunTool("memory '" + path + "' --memory-id cuda:0");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("memory ids: cpu, hip:0"));
}

TEST_CASE("metrics of a PyTorch trace with [memory] events", "[memory][kineto][metrics]") {
  REQUIRE_CORPUS(path, "tracelens/mi300/gaunernst_bert-small-uncased__1016001.json.gz");
  auto r = RunTool("metrics -f json '" + path + "'");
  REQUIRE(r.exit_code == 0);
  auto doc = nlohmann::json::parse(r.out);
  std::map<std::string, double> memory;
  for (const auto& row : doc["tables"]["metrics"]) {
    const std::string name = row["metric"];
    if (name.rfind("memory.hip_0.", 0) == 0) memory[name.substr(13)] = row["value"].get<double>();
  }
  // The script's peak allocated and reserved at the peak; no lifetime peak
  // or fragmentation, which PyTorch does not report.
  CHECK(memory == std::map<std::string, double>{{"allocations", 117},
                                                {"capacity_bytes", 224395264},
                                                {"peak_heap_bytes", 146394112},
                                                {"peak_usage_bytes", 146394112}});
}

TEST_CASE("memory on torch's export_memory_timeline output says it is not a trace", "[memory][kineto][cli]") {
  // HTA's memory_analysis data: [[time, action, bytes, category], ...] rows,
  // a bare array without any event object: refused by the reader as no
  // trace (exit 3), with what the file is and what to give instead.
  REQUIRE_CORPUS(path, "hta/memory_analysis/memory_timeline.raw.gz");
  auto r = RunTool("memory '" + path + "'");
  CHECK(r.exit_code == 3);
  CHECK_THAT(r.err, Catch::Contains("memory_timeline.raw.gz: JSON but not a Chrome trace: an array with no event "
                                    "object, only 16845 other values (the first: an array); rows such as "
                                    "torch.profiler's export_memory_timeline writes are not a trace"));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  // A trace with no events at all still gets the memory profile's reason.
  const std::string empty = tfprof::testing::TempDir() + "/empty.trace.json";
  tfprof::testing::WriteFile(empty, R"({"traceEvents": []})");
  auto e = RunTool("memory '" + empty + "'");
  CHECK(e.exit_code == 4);
  CHECK_THAT(e.err, Catch::Contains("no memory profile: the file holds no trace events"));
}
