#include "lib/model/step_markers.h"

#include "lib/model/tf1_timeline.h"
#include "lib/model/xplane_schema.h"

namespace tfprof::schema {

bool IsStepRootEventName(std::string_view name) {
  return name == "TraceContext" || name == "ProcessBatch" || name == "OrbaxServing::ProcessBatch" ||
         name == "BatchingSessionRun" || name == "ExecutorState::Process";
}

// Checked by hand: a fixed name needs no regular expression, and this scan
// cannot fail on a name of any length.
bool IsProfilerStepName(std::string_view name) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  if (name.size() <= kPrefix.size() || name.substr(0, kPrefix.size()) != kPrefix) return false;
  return name.find_first_not_of("0123456789", kPrefix.size()) == std::string_view::npos;
}

bool PlaneMayHaveSteps(const Host& host, const Plane& plane) {
  if (plane.FindStatKey(host.strings, "group_id") || plane.FindStatKey(host.strings, "_r")) return true;
  const bool host_threads = host.PlaneName(plane) == kHostThreadsPlane;
  for (const EventMetadata& m : plane.event_metadata) {
    const std::string_view name = host.Str(m.name);
    if (IsStepRootEventName(name) || (host_threads && IsProfilerStepName(name))) return true;
  }
  return false;
}

bool HostMayHaveSteps(const Host& host) {
  for (const Plane& plane : host.planes)
    if (PlaneMayHaveSteps(host, plane)) return true;
  return Tf1SessionRunLine(host) != nullptr;
}

}  // namespace tfprof::schema
