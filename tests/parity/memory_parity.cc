#include "tests/parity/memory_parity.h"

#include <functional>
#include <string>

#include "fmt/format.h"
#include "lib/read/byte_source.h"
#include "lib/read/capture_discovery.h"
#include "lib/summary/analysed_event_stats.h"
#include "lib/summary/captures_to_run_summary.h"
#include "lib/summary/memory_events_to_profile.h"
#include "nlohmann/json.hpp"

namespace tfprof::parity {
namespace {

using nlohmann::json;

// proto3 JSON: int64 as strings, fields at their default sometimes left out.
int64_t I64(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) return 0;
  const json& v = j[key];
  if (v.is_string()) return std::stoll(v.get<std::string>());
  if (v.is_number()) return v.get<int64_t>();
  return 0;
}
double Dbl(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
}
std::string Str(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}
const json& Field(const json& j, const char* key) {
  static const json kNull;
  return j.is_object() && j.contains(key) ? j[key] : kNull;
}

// As `memory --host HOST` runs (the first host when `host` is empty); every
// host file is kept, duplicates included, so each can be named.
bool LoadProfile(const std::string& run_folder, const std::string& host, Compat compat, HostMemoryProfile& out) {
  const DiscoveredInput input = DiscoverInput(run_folder, "", /*keep_duplicates=*/true);
  if (input.selected.files.empty()) return false;
  RunReadOptions read;
  read.host = host.empty() ? input.selected.files.front().host : host;
  bool known = false;
  for (const CaptureFile& f : input.selected.files) known = known || f.host == read.host;
  if (!known) return false;
  SummaryOptions options;
  options.analysis.compat = compat;
  options.parts = SummaryPart::kMemory;
  read.read.event_stats = EventStatsFor(options.parts, options.analysis);  // As the memory command reads.
  RunSummary run = CapturesToRunSummary(input, read, options);
  out = std::move(run.hosts.front().memory);
  return true;
}

const char* Activity(MemoryActivity a) { return a == MemoryActivity::kAllocation ? "ALLOCATION" : "DEALLOCATION"; }

// What an allocation is: sizes, op, region, dtype, shape, step.
void CompareWhat(Tally& t, const std::string& w, const HostMemoryProfile& h, int64_t alloc, int64_t req, StringId op,
                 StringId region, int64_t dtype, StringId shape, int64_t step, const json& meta) {
  t.Count(w + " allocationBytes", alloc, I64(meta, "allocationBytes"));
  t.Count(w + " requestedBytes", req, I64(meta, "requestedBytes"));
  t.Text(w + " tfOpName", std::string(h.Str(op)), Str(meta, "tfOpName"));
  t.Text(w + " regionType", std::string(h.Str(region)), Str(meta, "regionType"));
  t.Text(w + " dataType", DataTypeName(dtype), Str(meta, "dataType"));
  t.Text(w + " tensorShape", std::string(h.Str(shape)), Str(meta, "tensorShape"));
  t.Count(w + " stepId", step, I64(meta, "stepId"));
}

// The stack, heap, free memory and fragmentation of `s` against the
// reference's aggregation of them (a snapshot's aggregationStats, or the
// summary's peakStats).
void CompareAggregation(Tally& t, const std::string& w, const MemorySnapshot& s, const json& agg) {
  t.Count(w + " stackReservedBytes", s.stack_bytes, I64(agg, "stackReservedBytes"));
  t.Count(w + " heapAllocatedBytes", s.heap_bytes, I64(agg, "heapAllocatedBytes"));
  t.Count(w + " freeMemoryBytes", s.free_bytes, I64(agg, "freeMemoryBytes"));
  t.Number(w + " fragmentation", s.fragmentation, Dbl(agg, "fragmentation"), 1e-6);
}

void CompareState(Tally& t, const std::string& w, const MemorySnapshot& s, const json& snap) {
  const json& agg = Field(snap, "aggregationStats");
  t.Count(w + " timeOffsetPs", s.time_ps, I64(snap, "timeOffsetPs"));
  t.Count(w + " peakBytesInUse", s.peak_bytes_in_use, I64(agg, "peakBytesInUse"));
  CompareAggregation(t, w, s, agg);
}

void CompareSnapshot(Tally& t, const std::string& w, const HostMemoryProfile& h, const MemorySnapshot& s,
                     const json& snap) {
  const json& meta = Field(snap, "activityMetadata");
  CompareState(t, w, s, snap);
  t.Text(w + " memoryActivity", Activity(s.activity), Str(meta, "memoryActivity"));
  t.Text(w + " address", std::to_string(s.address), std::to_string(static_cast<uint64_t>(I64(meta, "address"))));
  CompareWhat(t, w, h, s.allocation_bytes, s.requested_bytes, s.op_name, s.region_type, s.data_type, s.shape, s.step,
              meta);
}

void CompareSummary(Tally& t, const std::string& w, const AllocatorMemoryProfile& a, const json& summary) {
  const json& peak = Field(summary, "peakStats");
  t.Count(w + " peakBytesUsageLifetime", a.lifetime_peak_bytes, I64(summary, "peakBytesUsageLifetime"));
  t.Count(w + " memoryCapacity", a.capacity_bytes, I64(summary, "memoryCapacity"));
  t.Count(w + " peakStatsTimePs", a.peak_time_ps, I64(summary, "peakStatsTimePs"));
  t.Count(w + " peak peakBytesInUse", a.peak_bytes, I64(peak, "peakBytesInUse"));
  CompareAggregation(t, w + " peak", a.peak, peak);
}

// The breakdown. `snapshots` is the array the rows' snapshotIndex points
// into (xprof: the retained snapshots; TF 2.x: the whole timeline).
void CompareBreakdown(Tally& t, const std::string& w, const HostMemoryProfile& h, const AllocatorMemoryProfile& a,
                      const json& per_allocator) {
  const json& rows = Field(per_allocator, "activeAllocations");
  const json& specials = Field(per_allocator, "specialAllocations");
  const json& snapshots = Field(per_allocator, "memoryProfileSnapshots");
  t.Count(w + " activeAllocations", static_cast<int64_t>(a.active.size()), static_cast<int64_t>(rows.size()));
  t.Count(w + " specialAllocations", static_cast<int64_t>(a.specials.size()), static_cast<int64_t>(specials.size()));
  for (size_t i = 0; i < a.specials.size() && i < specials.size(); ++i) {
    const ActiveAllocation& s = a.specials[i];
    CompareWhat(t, fmt::format("{} special[{}]", w, i), h, s.allocation_bytes, s.requested_bytes, s.op_name,
                s.region_type, s.data_type, s.shape, s.step, specials[i]);
  }
  for (size_t i = 0; i < a.active.size() && i < rows.size(); ++i) {
    const ActiveAllocation& r = a.active[i];
    const json& row = rows[i];
    const std::string rw = fmt::format("{} active[{}]", w, i);
    t.Count(rw + " numOccurrences", r.occurrences, I64(row, "numOccurrences"));
    t.Count(rw + " specialIndex", r.special, I64(row, "specialIndex"));
    if (r.special >= 0) continue;  // Compared above.
    const int64_t index = I64(row, "snapshotIndex");
    if (index < 0 || index >= static_cast<int64_t>(snapshots.size())) {
      t.Count(rw + " snapshotIndex in range", 0, 1);
      continue;
    }
    const json& snap = snapshots[static_cast<size_t>(index)];
    const json& meta = Field(snap, "activityMetadata");
    CompareWhat(t, rw, h, r.allocation_bytes, r.requested_bytes, r.op_name, r.region_type, r.data_type, r.shape, r.step,
                meta);
    // Which of equal allocations represents the row (its address, time and
    // the allocator state then) is arbitrary in the reference: it must be
    // one of ours that is alive-at-peak-eligible with the same description.
    const int64_t time = I64(snap, "timeOffsetPs");
    const uint64_t address = static_cast<uint64_t>(I64(meta, "address"));
    const MemorySnapshot* found = nullptr;
    for (const MemorySnapshot& s : a.timeline) {
      if (s.time_ps > a.peak_time_ps) break;
      if (s.time_ps == time && s.address == address && s.activity == MemoryActivity::kAllocation &&
          s.step == a.peak_step && s.allocation_bytes == r.allocation_bytes && s.requested_bytes == r.requested_bytes &&
          s.op_name == r.op_name && s.shape == r.shape) {
        found = &s;
        break;
      }
    }
    t.Flag(rw + " represented by one of our equal allocations", found != nullptr, true);
    if (found) CompareState(t, rw, *found, snap);
  }
}

// What both references hold: the allocators' ids in order, then per
// allocator its summary, its timeline (`compare_timeline`: each reference
// keeps its own points) and the breakdown at its peak.
using TimelineCheck = std::function<void(Tally& t, const std::string& where, const HostMemoryProfile& ours,
                                         const AllocatorMemoryProfile& a, const json& per)>;
Tally CompareWithReference(const std::string& run_folder, const std::string& host, Compat compat,
                           const std::string& ref_path, const json& ref, bool compare_num_hosts,
                           const TimelineCheck& compare_timeline) {
  Tally t;
  HostMemoryProfile ours;
  if (!ref.is_object() || !LoadProfile(run_folder, host, compat, ours)) {
    t.Text("load " + ref_path, "ok", "failed");
    return t;
  }
  const json& ids = Field(ref, "memoryIds");
  t.Count("memoryIds", static_cast<int64_t>(ours.allocators.size()), static_cast<int64_t>(ids.size()));
  if (compare_num_hosts) t.Count("numHosts", 1, I64(ref, "numHosts"));
  for (size_t i = 0; i < ours.allocators.size() && i < ids.size(); ++i) {
    const AllocatorMemoryProfile& a = ours.allocators[i];
    t.Text(fmt::format("memoryIds[{}]", i), a.memory_id, ids[i].get<std::string>());
    const json& per = Field(Field(ref, "memoryProfilePerAllocator"), a.memory_id.c_str());
    const std::string w = a.memory_id;
    CompareSummary(t, w, a, Field(per, "profileSummary"));
    compare_timeline(t, w, ours, a, per);
    CompareBreakdown(t, w, ours, a, per);
  }
  return t;
}

}  // namespace

Tally CompareMemoryWithXprof(const std::string& run_folder, const std::string& host, const std::string& json_path) {
  bool gz = false;
  json ref = json::parse(ReadWholeFile(json_path, uint64_t{1} << 30, &gz), nullptr, false);
  return CompareWithReference(
      run_folder, host, Compat::kXprof, json_path, ref, /*compare_num_hosts=*/true,
      [](Tally& t, const std::string& w, const HostMemoryProfile& ours, const AllocatorMemoryProfile& a,
         const json& per) {
        const json& sampled = Field(per, "sampledTimelineSnapshots");
        std::vector<size_t> points = SampleTimeline(a.timeline, 1000);
        t.Count(w + " sampled points", static_cast<int64_t>(points.size()), static_cast<int64_t>(sampled.size()));
        int64_t allocs = 0, ref_allocs = 0;
        for (size_t p = 0; p < points.size() && p < sampled.size(); ++p) {
          const MemorySnapshot& s = a.timeline[points[p]];
          allocs += s.activity == MemoryActivity::kAllocation;
          ref_allocs += Str(Field(sampled[p], "activityMetadata"), "memoryActivity") == "ALLOCATION";
          CompareSnapshot(t, fmt::format("{} sampled[{}]", w, p), ours, s, sampled[p]);
        }
        // The UI's #Allocation / #Deallocation come from the sampled points.
        t.Count(w + " #allocation (UI)", allocs, ref_allocs);
        t.Count(w + " #deallocation (UI)", static_cast<int64_t>(points.size()) - allocs,
                static_cast<int64_t>(sampled.size()) - ref_allocs);
      });
}

Tally CompareMemoryWithLegacy(const std::string& run_folder, const std::string& host, const std::string& gz_path) {
  json ref = json::parse(ReadWholeFile(gz_path, uint64_t{1} << 30), nullptr, false);
  return CompareWithReference(
      run_folder, host, Compat::kTfLegacy, gz_path, ref, /*compare_num_hosts=*/false,
      [](Tally& t, const std::string& w, const HostMemoryProfile& ours, const AllocatorMemoryProfile& a,
         const json& per) {
        // TensorFlow 2.x kept every event (up to 1000) in time order.
        const json& snaps = Field(per, "memoryProfileSnapshots");
        std::vector<size_t> points = SampleTimeline(a.timeline, 1000, /*legacy=*/true);
        t.Count(w + " timeline points", static_cast<int64_t>(points.size()), static_cast<int64_t>(snaps.size()));
        for (size_t p = 0; p < points.size() && p < snaps.size(); ++p)
          CompareSnapshot(t, fmt::format("{} timeline[{}]", w, p), ours, a.timeline[points[p]], snaps[p]);
      });
}

}  // namespace tfprof::parity
