// `op-stats`: the TensorFlow Stats table (device rows, then host rows),
// optionally per op type.
#pragma once

#include <string>

#include "lib/report/report.h"
#include "lib/summary/host_summary.h"

namespace tfprof {

struct TfStatsOptions {
  bool with_idle = true;  // The reference's "Include IDLE".
  std::string side;       // "", "host" or "device".
  bool by_type = false;   // One row per op type.
  size_t top = 0;         // Rows per side (0: the reference's 500).
  std::string sort;       // A column key to sort by, descending (default: self time).
  AnalysisOptions analysis;
};

// One record of the table, before rendering.
struct TfStatsRecord {
  int64_t rank = 0;
  bool on_device = false;
  std::string op_type, op_name;
  uint64_t occurrences = 0;
  double total_time_us = 0, avg_time_us = 0, total_self_time_us = 0, avg_self_time_us = 0;
  double device_self_fraction = 0, device_cumulative_fraction = 0;
  double host_self_fraction = 0, host_cumulative_fraction = 0;
  double tensor_core_utilization = 0;
  bool is_eager = false;
};

// How many rows each side had before the cut to `top` (or the reference's
// 500), for the note that says rows were left out.
struct TfStatsRowCounts {
  size_t device = 0, host = 0;
};

std::vector<TfStatsRecord> BuildTfStatsRecords(const HostSummary& summary, const TfStatsOptions& options,
                                               TfStatsRowCounts* before_cut = nullptr);

// Throws std::invalid_argument for an unknown --sort column.
Report BuildTfStatsReport(const HostSummary& summary, const TfStatsOptions& options);

}  // namespace tfprof
