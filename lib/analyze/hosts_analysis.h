// `hosts`: one row per host (a PyTorch rank, a TensorFlow worker) with its
// own steps' times and breakdown, and how it compares with the median host:
// the view that finds the straggler of a many-host run. Built from each
// host's own step database in the run summary (O(hosts x steps)), so it
// reads the same from captures and from combined summaries.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "lib/summary/event_span.h"
#include "lib/summary/run_summary.h"

namespace tfprof {

// The straggler rule's thresholds (docs/hosts.md), as fractions of the
// median host's average step time.
inline constexpr double kSlowHostFraction = 0.10;  // Step time this much over the median's.
inline constexpr double kLateHostFraction = 0.10;  // Busy this much longer than the median host.

struct HostRow {
  std::string host, source;
  size_t steps = 0;  // The host's own steps (first and last dropped when more than five, as the overview does).
  double step_avg_ms = 0, step_p50_ms = 0, step_p90_ms = 0, step_max_ms = 0;
  std::array<double, kCategories> category_avg_ms{};
  double idle_avg_ms = 0;             // "All others": no event covers it.
  double collectives_avg_ms = 0;      // Device collectives.
  double busy_avg_ms = 0;             // Step time less idle and collectives: the host's own work.
  bool compared = false;              // Counted in the medians (has steps; a device host when any host has one).
  double step_vs_median_percent = 0;  // Average step time against the median host's, in %.
  double late_ms = 0;                 // Busy time less the median host's busy time.
  bool slow = false, late = false;    // The two halves of the straggler rule.
  std::string no_steps_reason;        // Why the host has no steps, when it has none.
};

struct HostsAnalysis {
  std::vector<HostRow> rows;  // In the run's host order.
  size_t compared = 0;        // Hosts in the medians.
  double median_step_ms = 0, median_busy_ms = 0;
  std::vector<std::string> stragglers;  // Hosts flagged slow or late, slowest (largest late_ms) first.
};

// The p-th percentile (0 < p <= 100) by nearest rank: the smallest value
// with at least p% of the values at or below it. 0 for no values.
double NearestRankPercentile(std::vector<double> values, double p);
// The middle value, or the mean of the two middle ones. 0 for no values.
double Median(std::vector<double> values);

HostsAnalysis AnalyzeHosts(const RunSummary& run);

}  // namespace tfprof
