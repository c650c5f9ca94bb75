// Memory profile: TensorFlow's BFC allocators emit an instant
// `MemoryAllocation` / `MemoryDeallocation` event on the host plane for every
// allocation and free, carrying the allocator's state after it (bytes
// reserved, in use, free, fragmentation, lifetime peak) and what was
// allocated (sizes, address, op, region, dtype, shape). Per allocator
// ("memory id") this builds the time-ordered timeline, the peak of memory in
// use inside the profile window, and the allocations alive at that peak,
// following the TensorFlow Profiler's memory_profile tool step by step
// (see ../shared/reference/xprof_kernel_memory_tfdata_trace.md §2 and
// docs/memory.md for where and why we differ).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "lib/model/diagnostics.h"
#include "lib/model/model.h"
#include "lib/model/string_pool.h"
#include "lib/model/tf_data_type.h"  // DataTypeName, for the reports.
#include "lib/summary/analysis_options.h"
#include "lib/summary/event_grouping.h"
#include "lib/summary/time_span.h"

namespace tfprof {

enum class MemoryActivity : uint8_t { kAllocation, kDeallocation };

// One allocator event. Strings are ids in the owning HostMemoryProfile's pool
// (the profile outlives the Host it was read from).
struct MemorySnapshot {
  int64_t time_ps = 0;            // See MemoryProfileOptions::line_offsets.
  int64_t stack_bytes = 0;        // bytes_reserved
  int64_t heap_bytes = 0;         // bytes_allocated (in use)
  int64_t free_bytes = 0;         // bytes_available
  double fragmentation = 0;       // 0..1, as BFC computes it
  int64_t peak_bytes_in_use = 0;  // The allocator's high-water mark since it started.
  int64_t requested_bytes = 0;
  int64_t allocation_bytes = 0;  // The chunk size (requested rounded up).
  uint64_t address = 0;
  int64_t data_type = 0;  // TensorFlow DataType enum; see DataTypeName.
  int64_t step = 0;       // Step (group) id after the reference's fix-ups.
  StringId op_name = StringPool::kEmpty;
  StringId region_type = StringPool::kEmpty;
  StringId shape = StringPool::kEmpty;
  MemoryActivity activity = MemoryActivity::kAllocation;

  // stack + heap, saturating. Inline: the passes call it for every event.
  int64_t in_use() const { return SaturatingAdd(stack_bytes, heap_bytes); }
};

// A row of the breakdown: equal allocations alive at the peak, merged.
struct ActiveAllocation {
  int64_t allocation_bytes = 0;
  int64_t requested_bytes = 0;
  StringId op_name = StringPool::kEmpty;
  StringId region_type = StringPool::kEmpty;
  int64_t data_type = 0;
  StringId shape = StringPool::kEmpty;
  int64_t occurrences = 1;
  int64_t step = 0;
  // The allocation's index in the timeline, or -1 for the two made-up rows
  // (heap not explained by allocations seen in the window, and the stack).
  int64_t snapshot = -1;
  int special = -1;  // 0, 1 for the made-up rows in the order they were added.
};

// PyTorch only: the ops whose allocations were alive at the peak, one row
// per op (the innermost PyTorch op around the allocation on its thread).
struct OpMemoryAtPeak {
  StringId op_name = StringPool::kEmpty;  // Empty: allocated outside any op.
  int64_t bytes = 0;                      // Sum of the live allocations.
  int64_t allocations = 0;
  int64_t largest_bytes = 0;
};

// What PyTorch's `[memory]` events say beyond what the snapshots hold
// (lib/summary/kineto_memory_events_to_profile.h). In the snapshots of a
// PyTorch profile heap = allocated ("Total Allocated"), free = reserved -
// allocated, stack = 0, so capacity_bytes is the memory reserved at the peak.
struct PyTorchMemoryDetails {
  bool allocated_known = true;  // "Total Allocated" present; else the running sum of Bytes from 0.
  bool reserved_known = true;   // "Total Reserved" present.
  bool addresses_known = true;  // "Addr" present: allocations and frees can be matched.
  int64_t peak_reserved_bytes = 0;
  int64_t peak_reserved_time_ps = 0;
  int64_t unmatched_frees = 0;     // Frees of memory allocated before the trace.
  int64_t live_at_peak_bytes = 0;  // Allocations made in the trace and alive at the peak.
  int64_t live_at_peak_allocations = 0;
  // Allocated at the peak minus live_at_peak_bytes: allocated before the
  // trace began and still held (0 when negative or unknown).
  int64_t before_trace_bytes = 0;
  std::vector<OpMemoryAtPeak> ops_at_peak;  // Most bytes first.
};

struct AllocatorMemoryProfile {
  std::string memory_id;                 // e.g. "GPU_0_bfc", "gpu_host_bfc".
  std::vector<MemorySnapshot> timeline;  // Every event, in time order (unless sampled, below).
  // A stored run summary keeps only the snapshots the report's samplings
  // show (KeepSampledTimelines): then `timeline` is their union in time
  // order, timeline_events the number of events it was sampled from, and
  // reference_points / legacy_points the positions in `timeline` of
  // SampleTimeline's picks (xprof's, TensorFlow 2.x's) at sampled_to points.
  // timeline_events == 0: `timeline` is whole.
  uint64_t timeline_events = 0;
  uint32_t sampled_to = 0;
  std::vector<uint32_t> reference_points, legacy_points;
  int64_t allocations = 0;
  int64_t deallocations = 0;
  int64_t lifetime_peak_bytes = 0;  // The allocator's peak_bytes_in_use (see options).
  // The allocator at the window peak: the event with the most stack + heap
  // (the last one in capture order among equals).
  MemorySnapshot peak;
  int64_t peak_bytes = 0;  // stack + heap at the peak.
  int64_t peak_time_ps = 0;
  int64_t capacity_bytes = 0;  // stack + heap + free at the peak.
  int64_t peak_step = 0;
  std::vector<ActiveAllocation> active;    // The breakdown, largest first.
  std::vector<ActiveAllocation> specials;  // The made-up rows, by special index.
  PyTorchMemoryDetails pytorch;            // MemorySource::kPyTorch only.
};

// Where a host's profile comes from: TensorFlow's allocator events
// (MemoryAllocation/MemoryDeallocation, xplane.pb) or PyTorch's `[memory]`
// instant events (Kineto trace JSON recorded with profile_memory=True).
// A TensorFlow 1 timeline's tensor lifetimes (show_memory=True) read as
// allocator events (lib/read/chrome_trace_tf1_memory.h): TensorFlow's
// profile, whose heap is the bytes of the tensors alive and whose
// allocator state (reserved, free, fragmentation, limit, lifetime peak)
// the timeline does not record.
enum class MemorySource : uint8_t { kTensorFlow, kPyTorch, kTf1Timeline };

struct HostMemoryProfile {
  std::string host;
  MemorySource source = MemorySource::kTensorFlow;
  // Where time 0 of the snapshots lies, in ps after the host's time origin
  // (Host::time_origin_ns): the earliest start of a host thread.
  int64_t time_zero_ps = 0;
  StringPool strings;
  std::vector<AllocatorMemoryProfile> allocators;  // By memory id, byte order.
  // Why there is no profile (empty when there is one): no host plane, no
  // allocator events (a Chrome trace: no PyTorch [memory] events).
  std::string no_profile_reason;
  // Grouping had no steps; every event then counts as step 0.
  std::string no_steps_reason;
  // Step (group) id -> its name as grouping gives it ("train 5").
  std::map<int64_t, std::string> step_names;

  std::string_view Str(StringId id) const { return strings.Get(id); }
};

struct MemoryProfileOptions {
  // Times as the reference takes them: the event's offset within its line.
  // Otherwise times are since the earliest line start of the host plane,
  // which is the same whenever all lines share one start (every capture we
  // know) and stays one clock when they do not.
  bool line_offsets = false;
  // Read integer stats only when stored as int64 and the fragmentation only
  // when stored as a double, as the reference does (a fragmentation of
  // exactly 0 or 1 is written as an integer and so reads 0).
  bool strict_stat_types = false;
  // The lifetime peak as the reference takes it: the peak_bytes_in_use of
  // the last event in capture order (threads one after another), not the
  // largest.
  bool last_event_lifetime_peak = false;
  // Among equal window peaks the first in capture order, as TensorFlow 1's
  // timeline.py takes its AllocationMaximum (set for TF1 timelines); else
  // the last, as the reference does.
  bool first_peak = false;
  // The name of the row for heap not explained by allocations in the window:
  // current xprof says "unused preallocated device memory", TensorFlow 2.x
  // wrote "preallocated/unknown".
  std::string unexplained_heap_name = "unused preallocated device memory";
  // How many points each allocator's timeline keeps: 0, every snapshot;
  // else, for a timeline of more events, only SampleTimeline's picks at
  // that many points (reference and legacy), exactly as KeepSampledTimelines
  // cuts a whole one down. Set by commands that show no more than that
  // (`memory` without --all-points): the profile then never holds a
  // snapshot per event (100 bytes each, 0.45 GiB at 1 GB of capture).
  size_t timeline_points = 0;
  // The capture-order pass reads the host plane in pieces of this many
  // events, on up to `collect_threads` threads (0: as many as the events'
  // count warrants, ThreadsForEvents), and joins them in order: the result
  // is the same for any split. Tests make both small.
  size_t collect_piece_events = size_t{1} << 18;
  size_t collect_threads = 0;
  // Each allocator's events are merged into time order from the pieces
  // in slices of time of about this many events each (a slice never
  // splits equal times), one per thread up to collect_threads: the result
  // is the same for any slicing. Tests make it small.
  size_t merge_slice_events = size_t{1} << 16;
  // The walk in time order reads each event's sizes, address, kind and
  // group from the model, most of its time: in blocks of this many events, up to
  // `walk_read_ahead` blocks of them read ahead on a second thread while
  // the walk takes the one before, in parts of `walk_part_events` that the
  // walk's thread reads too rather than wait (from four blocks on; 0: read
  // where walked). The result is the same either way. Tests make the blocks
  // and parts small.
  size_t walk_block_events = size_t{1} << 13;
  size_t walk_read_ahead = 2;
  size_t walk_part_events = 2048;
};
MemoryProfileOptions MemoryProfileOptionsFor(Compat compat);

// The host's event groups (which step each event is in), asked for only
// when the host has allocator events; empty: grouped here with default
// options. HostToRunSummary hands in the one grouping of its pass.
using EventGroupsSource = std::function<const EventGroups&()>;

// A Chrome trace's profile is PyTorch's (BuildKinetoMemoryProfile,
// kineto_memory_events_to_profile.h; the options do not apply to it).
HostMemoryProfile BuildMemoryProfile(const Host& host, const MemoryProfileOptions& options, Diagnostics& diagnostics,
                                     const EventGroupsSource& groups = {});
// Whether BuildMemoryProfile asks a TensorFlow capture's host for its
// groups: it has a host-threads plane naming allocator events (a Chrome
// trace's profile asks only for some). Such a caller may start the
// grouping early, beside the profile.
bool MemoryProfileGroups(const Host& host);

// Indices into `timeline` of at most `max_points` snapshots to plot.
// Reference (xprof): split the timeline into max_points windows of nearly
// equal width and keep the highest point (stack + heap) of each, so peaks
// survive. Legacy (TensorFlow 2.x): keep the max_points snapshots with the
// least free memory. Both return indices in time order.
std::vector<size_t> SampleTimeline(const std::vector<MemorySnapshot>& timeline, size_t max_points, bool legacy = false);

// How many points the memory report samples a timeline to (the reference's
// limit), and what a stored summary keeps.
inline constexpr size_t kMemoryTimelinePoints = 1000;

// Cuts each allocator's timeline longer than `max_points` down to the
// snapshots SampleTimeline picks at `max_points` (reference and legacy
// alike), so that a stored summary's size does not grow with the capture's
// allocator events while every report that shows sampled points reads the
// same (AllocatorTimelinePoints).
void KeepSampledTimelines(HostMemoryProfile& profile, size_t max_points);

// The snapshots of `a.timeline` to show: every one (max_points 0), or
// SampleTimeline's pick (legacy: TensorFlow 2.x's). Throws InputError
// (exit 4) when the timeline was cut down by KeepSampledTimelines and what
// is asked is not what it kept.
std::vector<size_t> AllocatorTimelinePoints(const AllocatorMemoryProfile& a, size_t max_points, bool legacy);
// How many events the allocator's timeline had before any sampling.
inline uint64_t TimelineEvents(const AllocatorMemoryProfile& a) {
  return a.timeline_events ? a.timeline_events : a.timeline.size();
}

}  // namespace tfprof
