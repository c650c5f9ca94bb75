#include "lib/read/chrome_trace_legacy_autograd.h"

#include "lib/model/diagnostic_kinds.h"
#include "lib/read/stat_edit.h"

namespace tfprof {
bool IsLegacyAutogradTrace(const Host& host) {
  for (const Plane& p : host.planes) {
    // A category on its events would make it some other producer's process
    // that happens to bear the name. Either process will do: a trace whose
    // ops recorded nothing may still hold device ranges.
    const std::string_view name = host.PlaneName(p);
    if ((name == kLegacyCpuProcess || name == kLegacyCudaProcess) && p.EventCount() > 0 &&
        !p.FindStatKey(host.strings, "cat"))
      return true;
  }
  return false;
}

void ApplyLegacyAutogradConventions(Host& host, Diagnostics& diagnostics) {
  const StringId cpu_op = host.strings.Intern("cpu_op");
  uint64_t ops = 0, device_ranges = 0;
  std::string example;
  for (Plane& plane : host.planes) {
    const std::string_view name = host.PlaneName(plane);
    if (name == kLegacyCudaProcess) {
      device_ranges += plane.EventCount();
      continue;
    }
    if (name != kLegacyCpuProcess || plane.FindStatKey(host.strings, "cat")) continue;
    SetPlaneStatString(host, plane, "labels", "CPU");
    const StatKey cat = StatKeyFor(host, plane, "cat");
    for (Line& line : plane.lines) {
      if (MakeRoomForStats(line, [](size_t) -> size_t { return 1; }) == 0) continue;
      for (size_t i = 0; i < line.events.size(); ++i)
        line.stats[line.events[i].stats_end - 1] = Stat::String(cat, cpu_op);
      ops += line.events.size();
      if (example.empty() && !line.events.empty())
        example = std::string(host.Str(plane.event_metadata[line.events[0].metadata].name));
    }
  }
  // PyTorch's, whatever the Kineto conventions then find (a trace of
  // device ranges alone has no CPU process for them to label).
  host.framework = Framework::kPyTorch;
  diagnostics.Add(diag_kind::kJsonPyTorchLegacyOps, example, ops);
  diagnostics.Add(diag_kind::kJsonPyTorchLegacyDeviceRanges, "", device_ranges);
}

}  // namespace tfprof
