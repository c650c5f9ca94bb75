// `memory`: the memory profile as tables. `summary` (one row per host and
// memory id), `timeline` (with --timeline) and `breakdown` (with
// --breakdown); docs/memory.md documents every column.
#pragma once

#include <string>
#include <vector>

#include "lib/report/report.h"
#include "lib/summary/analysis_options.h"
#include "lib/summary/memory_events_to_profile.h"

namespace tfprof {

enum class MemoryUnit { kGiB, kMiB, kBytes };

struct MemoryReportOptions {
  std::string memory_id;  // Only this allocator (empty: all).
  bool timeline = false;
  bool all_points = false;  // Timeline without sampling.
  bool breakdown = false;
  MemoryUnit unit = MemoryUnit::kMiB;
  size_t max_points = kMemoryTimelinePoints;  // The reference's sampling limit.
  Compat compat = Compat::kDefault;
};

// The memory ids of the hosts, "" when none has a profile.
std::vector<std::string> MemoryIds(const std::vector<HostMemoryProfile>& hosts);

Report BuildMemoryReport(const std::vector<HostMemoryProfile>& hosts, const MemoryReportOptions& options);

// Bytes as the TensorFlow Profiler's UI writes them: base 1024, two
// decimals, the largest unit that keeps the number >= 1 ("126.90 MiB").
std::string HumanBytes(int64_t bytes);

}  // namespace tfprof
