// Names and ids the profiler gives planes, lines and stats, and the checks
// analyses make on them (see ../shared/reference/ for where they come from).
#pragma once

#include <cstdint>
#include <string_view>

namespace tfprof::schema {

inline constexpr std::string_view kHostThreadsPlane = "/host:CPU";
inline constexpr std::string_view kGpuPlanePrefix = "/device:GPU:";
inline constexpr std::string_view kTpuPlanePrefix = "/device:TPU:";

inline bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
inline bool IsGpuPlane(std::string_view name) { return StartsWith(name, kGpuPlanePrefix); }
inline bool IsTpuPlane(std::string_view name) { return StartsWith(name, kTpuPlanePrefix); }
// Any accelerator's plane: GPU, TPU or another device ("/device:CUSTOM:0").
inline bool IsDevicePlane(std::string_view name) { return StartsWith(name, "/device:"); }

// The instant events a BFC allocator writes on the host-threads plane for
// every allocation and free (matched by the raw event name). Only the
// memory profile reads them; xprof's op statistics also count each as a
// zero-time run of the op it allocates for (--compat xprof).
inline constexpr std::string_view kMemoryAllocationEvent = "MemoryAllocation";
inline constexpr std::string_view kMemoryDeallocationEvent = "MemoryDeallocation";
inline bool IsAllocatorEvent(std::string_view name) {
  return name == kMemoryAllocationEvent || name == kMemoryDeallocationEvent;
}

// Lines the profiler derives from others (Steps, TensorFlow Ops, XLA Ops,
// ...) get ids in a block starting at 0xdeadbeef, compared as a 32-bit int.
// Analyses skip them so nothing is counted twice.
inline bool IsDerivedLineId(int64_t line_id) {
  constexpr int32_t kMin = static_cast<int32_t>(0xdeadbeefu);
  constexpr int32_t kMax = kMin + 289;
  const auto id = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(line_id)));
  return id >= kMin && id <= kMax;
}
// The first of them: the device's Steps line, which captures grouped when
// taken carry (the step database reads it).
inline bool IsDerivedStepsLineId(int64_t line_id) {
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(line_id))) ==
         static_cast<int32_t>(0xdeadbeefu);
}

}  // namespace tfprof::schema
