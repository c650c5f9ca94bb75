// What the reader leaves in the model of a TensorFlow 1 `timeline.json`
// (lib/read/chrome_trace_tf1_timeline.h) for the analyses to find: the
// planes it built say so in a plane stat, and the host plane has a derived
// line with one event per session.run (per timeline file), the steps.
#pragma once

#include <cstdint>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "lib/model/model.h"
#include "lib/model/xplane_schema.h"

namespace tfprof {

// Plane stat of the /host:CPU and /device:GPU:<n> planes built from a TF1
// timeline: the TF1 process names they were made from.
inline constexpr std::string_view kTf1TimelinePlaneStat = "tf1_timeline_processes";

// The host plane's derived line of session.run spans: in the block of ids
// xprof gives derived lines (schema::IsDerivedLineId), far from the ids it
// uses, so analyses that skip derived lines skip it.
inline constexpr int64_t kTf1SessionRunLineId = int64_t{0xdeadbeef} + 280;
inline constexpr std::string_view kTf1SessionRunName = "session.run";
// The host plane's derived line of allocator events made from the tensor
// lifetimes of a timeline written with show_memory=True
// (lib/read/chrome_trace_tf1_memory.h): derived, so that only the memory
// profile reads them, not the host's ops.
inline constexpr int64_t kTf1TensorLifetimesLineId = kTf1SessionRunLineId + 1;
// Stat of a session.run event: the timeline file it came from.
inline constexpr std::string_view kTf1TimelineFileStat = "timeline_file";

inline bool IsTf1TimelinePlane(const Host& host, const Plane& plane) {
  return plane.FindStatKey(host.strings, kTf1TimelinePlaneStat).has_value();
}

// Whether a host-plane line of a TF1 timeline holds a GPU's executor ops
// (`/job:localhost/replica:0/task:0/device:GPU:0 Compute/0`; older
// `.../gpu:0`, XLA's `.../device:XLA_GPU:0`): ops placed on the GPU, whose
// executor time is their launch.
inline bool IsTf1GpuExecutorLine(std::string_view line_name) {
  const std::string_view device = line_name.substr(0, line_name.find(' '));
  return absl::StrContains(absl::AsciiStrToLower(absl::string_view(device.data(), device.size())), "gpu:");
}

// The host plane's session.run line, or null when the host is not a TF1
// timeline.
inline const Line* Tf1SessionRunLine(const Host& host) {
  for (const Plane& p : host.planes) {
    if (host.PlaneName(p) != schema::kHostThreadsPlane) continue;
    for (const Line& l : p.lines)
      if (l.id == kTf1SessionRunLineId) return &l;
  }
  return nullptr;
}

}  // namespace tfprof
