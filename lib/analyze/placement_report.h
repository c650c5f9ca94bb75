// `placement`: where TF ops ran (host vs device), by count and by time, per
// host and combined; and the host ops of a GPU run ranked by host self time
// (candidates to move to the GPU, as the TensorFlow Profiler guide advises).
#pragma once

#include <string>
#include <vector>

#include "lib/report/report.h"
#include "lib/summary/host_summary.h"

namespace tfprof {

struct Placement {
  std::string host;  // "(all)" for the combined row.
  uint64_t host_op_executions = 0, device_op_executions = 0;
  uint64_t host_self_time_ps = 0, device_self_time_ps = 0;
  double host_percent() const;  // Of executions, as the overview shows.
  double device_percent() const;
};

// Host executions: occurrences of host ops; device executions: occurrences
// of TF ops on the device (an op's count is the most any of its kernels ran).
Placement ComputePlacement(const HostSummary& summary, const std::string& host_name);

Report BuildPlacementReport(const std::vector<Placement>& per_host, const HostSummary& combined, size_t top_candidates);

}  // namespace tfprof
