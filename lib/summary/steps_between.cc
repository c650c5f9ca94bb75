#include "lib/summary/steps_between.h"

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lib/model/stat_finder.h"
#include "lib/model/xplane_schema.h"

namespace tfprof {
namespace {

struct Marker {
  int64_t start_ps, end_ps;
  uint32_t line;
};

// The starts of the markers that open a step, in time order: every matching
// event of the host plane's own lines but those nested in an earlier marker
// of their thread.
std::vector<int64_t> MarkerStarts(const Host& host, const Plane& plane, const NameRegex& markers) {
  std::vector<bool> matches(plane.event_metadata.size());
  for (size_t m = 0; m < matches.size(); ++m) matches[m] = markers.Matches(host.Str(plane.event_metadata[m].name));
  std::vector<Marker> found;
  for (uint32_t l = 0; l < plane.lines.size(); ++l) {
    const Line& line = plane.lines[l];
    if (schema::IsDerivedLineId(line.id)) continue;
    for (const Event& e : line.events)
      if (matches[e.metadata]) found.push_back({e.start_ps, e.end_ps(), l});
  }
  // Longer first at one start: the outer of two nested markers opens the step.
  std::sort(found.begin(), found.end(), [](const Marker& a, const Marker& b) {
    return a.start_ps != b.start_ps ? a.start_ps < b.start_ps : a.end_ps > b.end_ps;
  });
  absl::flat_hash_map<uint32_t, int64_t> open_until;  // Per line: the end of its last step-opening marker.
  std::vector<int64_t> starts;
  for (const Marker& m : found) {
    auto it = open_until.find(m.line);
    if (it != open_until.end() && m.start_ps < it->second) continue;
    open_until[m.line] = m.end_ps;
    starts.push_back(m.start_ps);
  }
  // Markers on different threads may share a start: one step, not an empty one.
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  return starts;
}

// The end of the trace: the latest end of an event of the host or a device
// (derived lines, such as GPU annotations, are views of these).
int64_t TraceEnd(const Host& host) {
  int64_t end = INT64_MIN;
  for (const Plane& plane : host.planes) {
    std::string_view name = host.PlaneName(plane);
    if (name != schema::kHostThreadsPlane && !schema::IsGpuPlane(name)) continue;
    for (const Line& line : plane.lines) {
      if (schema::IsDerivedLineId(line.id)) continue;
      for (const Event& e : line.events) end = std::max(end, e.end_ps());
    }
  }
  return end;
}

}  // namespace

EventGroups GroupStepsBetween(const Host& host, const NameRegex& markers, std::string_view pattern) {
  EventGroups out;
  out.group.Reset(host);
  const Plane* cpu = host.FindPlane(schema::kHostThreadsPlane);
  const std::vector<int64_t> starts = cpu ? MarkerStarts(host, *cpu, markers) : std::vector<int64_t>();
  if (starts.empty()) {
    out.no_groups_reason = "no host event matches --steps-between '" + std::string(pattern) + "'";
    return out;
  }
  // Window i: [starts[i], starts[i+1]); the last: [starts.back(), trace end].
  const int64_t trace_end = std::max(TraceEnd(host), starts.back());
  for (size_t i = 0; i < starts.size(); ++i) {
    StepGroup g;
    g.id = static_cast<int64_t>(i);
    g.step_number = static_cast<int64_t>(i) + 1;
    g.name = "step " + std::to_string(i + 1);
    g.numbered_by_name = true;  // The table's # is then the name's number, not the group id.
    out.groups.push_back(std::move(g));
    out.marker_windows.emplace_back(starts[i], i + 1 < starts.size() ? starts[i + 1] : trace_end);
  }
  auto window_of = [&](int64_t start_ps) -> int32_t {
    auto it = std::upper_bound(starts.begin(), starts.end(), start_ps);
    return it == starts.begin() ? kNoGroup : static_cast<int32_t>(it - starts.begin() - 1);
  };

  // Host (and any other non-GPU plane): by start. Launches remember theirs.
  absl::flat_hash_map<uint64_t, int32_t> step_of_launch;
  std::vector<size_t> gpu_planes;
  for (size_t p = 0; p < host.planes.size(); ++p) {
    const Plane& plane = host.planes[p];
    if (schema::IsGpuPlane(host.PlaneName(plane))) {
      gpu_planes.push_back(p);
      continue;
    }
    const bool is_host = &plane == cpu;
    const StatFinder corr(host, plane, "correlation_id");
    for (size_t l = 0; l < plane.lines.size(); ++l) {
      const Line& line = plane.lines[l];
      for (size_t e = 0; e < line.events.size(); ++e) {
        const int32_t g = window_of(line.events[e].start_ps);
        out.group.At(p, l, e) = g;
        if (!is_host || g == kNoGroup || schema::IsDerivedLineId(line.id)) continue;
        if (auto c = corr.In(line.EventStats(e))) step_of_launch[c->AsUint()] = g;
      }
    }
  }
  // Devices: the launch's step, else the step of the device event before
  // (by start, longer first) on the same device. GPU annotations (derived
  // lines) only show the host's ranges there: by start.
  for (size_t p : gpu_planes) {
    const Plane& plane = host.planes[p];
    const StatFinder corr(host, plane, "correlation_id");
    for (uint32_t l = 0; l < plane.lines.size(); ++l) {
      const Line& line = plane.lines[l];
      if (schema::IsDerivedLineId(line.id))
        for (size_t e = 0; e < line.events.size(); ++e) out.group.At(p, l, e) = window_of(line.events[e].start_ps);
    }
    int32_t last = kNoGroup;
    for (auto [l, e] : DeviceEventsInStartOrder(plane)) {
      int32_t g = kNoGroup;
      if (auto c = corr.In(plane.lines[l].EventStats(e)))
        if (auto it = step_of_launch.find(c->AsUint()); it != step_of_launch.end()) g = it->second;
      if (g == kNoGroup) g = last;
      else last = g;
      out.group.At(p, l, e) = g;
    }
  }
  out.from_marker = true;
  out.note = "steps: between the " + std::to_string(starts.size()) + " host events matching --steps-between '" +
             std::string(pattern) +
             "' (each step from one marker's start to the next's, the last to the end of the trace; device work "
             "goes with its launch)";
  return out;
}

}  // namespace tfprof
