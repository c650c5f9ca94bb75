#include "lib/summary/memory_events_to_profile.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>

#include "lib/model/diagnostic_kinds.h"
#include "lib/model/errors.h"
#include "lib/model/tf1_timeline.h"
#include "lib/model/xplane_schema.h"
#include "lib/summary/event_grouping.h"
#include "lib/summary/kineto_memory_events_to_profile.h"
#include "lib/summary/memory_capture_order_pass.h"
#include "lib/summary/memory_snapshot_source.h"
#include "lib/summary/memory_time_order_pass.h"
#include "lib/summary/time_span.h"
#include "lib/util/phase_times.h"

namespace tfprof {

using memory_internal::AllocatorEvent;
using memory_internal::Collecting;
using memory_internal::ProfileStrings;
using memory_internal::SnapshotReader;
using memory_internal::SnapshotSource;

MemoryProfileOptions MemoryProfileOptionsFor(Compat compat) {
  MemoryProfileOptions o;
  if (compat == Compat::kDefault) return o;
  o.line_offsets = true;
  o.strict_stat_types = true;
  o.last_event_lifetime_peak = true;
  if (compat == Compat::kTfLegacy) o.unexplained_heap_name = "preallocated/unknown";
  return o;
}

namespace {

// The host-threads plane whose allocator events the profile reads (the
// last of that name); host.planes.size() when there is none.
size_t AllocatorEventsPlane(const Host& host) {
  size_t plane_index = host.planes.size();
  for (size_t i = 0; i < host.planes.size(); ++i)
    if (host.PlaneName(host.planes[i]) == schema::kHostThreadsPlane) plane_index = i;
  return plane_index;
}
}  // namespace

bool MemoryProfileGroups(const Host& host) {
  if (host.format == CaptureFormat::kChromeTrace) return false;
  const size_t p = AllocatorEventsPlane(host);
  if (p == host.planes.size()) return false;
  for (const EventMetadata& m : host.planes[p].event_metadata)
    if (schema::IsAllocatorEvent(host.Str(m.name))) return true;
  return false;
}

HostMemoryProfile BuildMemoryProfile(const Host& host, const MemoryProfileOptions& asked, Diagnostics& diag,
                                     const EventGroupsSource& source) {
  // A Chrome trace holds no TensorFlow allocator events (its exporters drop
  // them), but a PyTorch trace may hold PyTorch's own.
  const bool tf1 = Tf1SessionRunLine(host) != nullptr;
  if (host.format == CaptureFormat::kChromeTrace && !tf1) {
    HostMemoryProfile kineto = BuildKinetoMemoryProfile(host, diag, source);
    KeepSampledTimelines(kineto, asked.timeline_points);
    return kineto;
  }
  HostMemoryProfile out;
  out.host = host.name;
  MemoryProfileOptions options = asked;
  if (tf1) {
    out.source = MemorySource::kTf1Timeline;
    options.first_peak = true;
  }
  const size_t plane_index = AllocatorEventsPlane(host);
  if (plane_index == host.planes.size()) {
    out.no_profile_reason = "the capture has no host plane (/host:CPU), where TensorFlow records allocator events";
    return out;
  }
  const Plane& plane = host.planes[plane_index];
  // AllocatorEvent keeps a line's index in 31 bits.
  if (plane.lines.size() >= AllocatorEvent::kInRecords)
    throw InputError(host.source_path, "a host plane of more than 2 billion lines; not supported");

  // Which event names are allocator events (by the raw name, as the
  // reference matches them).
  std::vector<int8_t> kind(plane.event_metadata.size(), -1);
  bool any = false;
  for (size_t m = 0; m < plane.event_metadata.size(); ++m) {
    std::string_view name = host.Str(plane.event_metadata[m].name);
    if (name == schema::kMemoryAllocationEvent) kind[m] = 0;
    else if (name == schema::kMemoryDeallocationEvent) kind[m] = 1;
    any = any || kind[m] >= 0;
  }
  if (!any && tf1) {
    out.no_profile_reason =
        "this TensorFlow 1 timeline has no tensor lifetimes: write it with "
        "timeline.Timeline(run_metadata.step_stats).generate_chrome_trace_format(show_memory=True) for a memory "
        "profile of the tensors of each session.run";
    return out;
  }
  if (!any) {
    out.no_profile_reason =
        "no MemoryAllocation/MemoryDeallocation events on the host plane: TensorFlow records them only for its BFC "
        "allocators (GPU memory, and host memory with TF_CPU_ALLOCATOR_USE_BFC=true), so CPU-only runs usually have "
        "no memory profile (JAX records them for its GPU allocators too)";
    return out;
  }

  // Grouped here (no source): first, so its diagnostics come before the
  // profile's. A source's groups are asked for once the snapshots are
  // collected: its grouping may be running beside this (HostToRunSummary).
  std::optional<EventGroups> own;
  if (!source) own = GroupEvents(host, diag, {}, GroupingRun{.eager = false});

  // Line starts: the reference's time is the offset within the line; ours is
  // since the earliest line start (the same when all lines start together).
  int64_t earliest_ns = std::numeric_limits<int64_t>::max();
  bool lines_differ = false;
  for (const Line& line : plane.lines) {
    // A line whose events the reader left out counts as read
    // (EventStatFilter::only_allocator_events_when_steps_allow).
    if (!line.HadEvents()) continue;
    if (earliest_ns != std::numeric_limits<int64_t>::max() && line.timestamp_ns != earliest_ns) lines_differ = true;
    earliest_ns = std::min(earliest_ns, line.timestamp_ns);
  }
  if (earliest_ns != std::numeric_limits<int64_t>::max()) out.time_zero_ps = (earliest_ns - host.time_origin_ns) * 1000;
  if (lines_differ && options.line_offsets) diag.Add(diag_kind::kMemoryLineStartsDiffer);

  const SnapshotReader reader(host, plane, options);
  PhaseTimer collect_phase("memory profile: collect events");
  // out.time_zero_ps: the earliest start of a line with events.
  std::map<std::string, Collecting> by_id =
      memory_internal::CollectInCaptureOrder(host, plane, kind, reader, options, out.time_zero_ps, diag);
  collect_phase.Stop();
  PhaseTimer groups_phase("memory profile: wait for the groups");
  const EventGroups& groups = source ? source() : *own;
  groups_phase.Stop();
  if (groups.groups.empty()) out.no_steps_reason = groups.no_groups_reason;
  for (const StepGroup& g : groups.groups) out.step_names[g.id] = g.name;
  ProfileStrings strings(host, out);
  const SnapshotSource snapshot_of{plane, kind, reader, groups, plane_index, strings};
  for (auto& [id, c] : by_id) {
    c.profile.memory_id = id;
    memory_internal::FinishInTimeOrder(c, snapshot_of, options, out, diag);
    memory_internal::AllocatorEvents().swap(c.events);
    out.allocators.push_back(std::move(c.profile));
  }
  // A timeline holds the tensors, not the allocator: no limit, so no
  // capacity (stack + heap + free would read as the peak itself).
  if (tf1)
    for (AllocatorMemoryProfile& a : out.allocators) a.capacity_bytes = 0;
  return out;
}

}  // namespace tfprof
