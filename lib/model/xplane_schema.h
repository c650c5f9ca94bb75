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
