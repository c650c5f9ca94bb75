#include "lib/analyze/hosts_analysis.h"

#include <algorithm>
#include <cmath>

#include "lib/analyze/step_summary.h"
#include "lib/summary/planes_to_step_db.h"

namespace tfprof {

double NearestRankPercentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double rank = std::ceil(p / 100.0 * static_cast<double>(values.size()));
  const size_t index = static_cast<size_t>(std::clamp(rank, 1.0, static_cast<double>(values.size()))) - 1;
  return values[index];
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

HostsAnalysis AnalyzeHosts(const RunSummary& run) {
  HostsAnalysis out;
  bool any_device = false;
  for (const HostPartials& h : run.hosts) any_device = any_device || h.steps.has_device;
  std::vector<double> step_avgs, busy_avgs, outside_collectives;
  for (const HostPartials& h : run.hosts) {
    HostRow& row = out.rows.emplace_back();
    row.host = h.host;
    row.source = h.source;
    // One host through the fold the run's steps go through: the same
    // trimming of a cut first and last step as its own overview.
    const StepSummary s = SummarizeSteps(CombineHostSteps({h.steps}, run.options));
    row.steps = s.rows.size();
    row.no_steps_reason = s.no_steps_reason;
    if (s.rows.empty()) continue;
    std::vector<double> times;
    for (const StepRow& r : s.rows) times.push_back(r.step_time_ms);
    row.step_avg_ms = s.step_time_ms.avg;
    row.step_p50_ms = NearestRankPercentile(times, 50);
    row.step_p90_ms = NearestRankPercentile(times, 90);
    row.step_max_ms = s.step_time_ms.max;
    for (size_t c = 0; c < kCategories; ++c) row.category_avg_ms[c] = s.category_ms[c].avg;
    row.idle_avg_ms = row.category_avg_ms[static_cast<size_t>(Category::kAllOthers)];
    row.collectives_avg_ms = row.category_avg_ms[static_cast<size_t>(Category::kDeviceCollectives)];
    row.busy_avg_ms = std::max(0.0, row.step_avg_ms - row.idle_avg_ms - row.collectives_avg_ms);
    // A coordinator (no device in a run with devices) waits on the workers
    // by design: shown, not compared.
    row.compared = !any_device || h.steps.has_device;
    if (row.compared) {
      step_avgs.push_back(row.step_avg_ms);
      busy_avgs.push_back(row.busy_avg_ms);
      outside_collectives.push_back(row.step_avg_ms - row.collectives_avg_ms);
    }
  }
  out.compared = step_avgs.size();
  out.median_step_ms = Median(step_avgs);
  out.median_busy_ms = Median(busy_avgs);
  const double median_outside_collectives_ms = Median(outside_collectives);
  if (out.compared < 2 || out.median_step_ms <= 0) return out;
  std::vector<const HostRow*> flagged;
  for (HostRow& row : out.rows) {
    if (!row.compared) continue;
    row.step_vs_median_percent = 100.0 * (row.step_avg_ms / out.median_step_ms - 1.0);
    row.late_ms = row.busy_avg_ms - out.median_busy_ms;
    // A step long only by its wait in collectives is a host waiting for the
    // others (its peers' send or all-reduce), not a slow one.
    // Measured against the step, as `late` is: the time outside collectives
    // of a send/recv benchmark is a few us, where a ratio is noise.
    row.slow = row.step_avg_ms >= (1.0 + kSlowHostFraction) * out.median_step_ms &&
               row.step_avg_ms - row.collectives_avg_ms - median_outside_collectives_ms >=
                   kSlowHostFraction * out.median_step_ms;
    row.late = row.late_ms >= kLateHostFraction * out.median_step_ms;
    if (row.slow || row.late) flagged.push_back(&row);
  }
  std::stable_sort(flagged.begin(), flagged.end(),
                   [](const HostRow* a, const HostRow* b) { return a->late_ms > b->late_ms; });
  for (const HostRow* row : flagged) out.stragglers.push_back(row->host);
  return out;
}

}  // namespace tfprof
