// The reports of `metrics`, `check` and `diff`: their tables, whose column
// keys docs/metrics.md and docs/ci.md define, and the outcomes of a check
// or diff as a report of their own (what --junit renders).
#pragma once

#include <string>
#include <vector>

#include "lib/analyze/metric_rules.h"
#include "lib/analyze/run_diff.h"
#include "lib/analyze/run_summary_to_metrics.h"
#include "lib/report/report.h"

namespace tfprof {

// `metrics`: table `metrics` (metric, value, unit, command, meaning).
Report BuildMetricsReport(const RunAnalysis& run);

// `check`: table `checks` (rule, status, value, unit, origin, message).
Report BuildCheckReport(const RunAnalysis& run, const std::vector<CheckOutcome>& outcomes);

struct DiffReportOptions {
  std::string base_label, next_label;  // The paths as given.
  size_t top = 20;                     // Changed rows per row table (0: all).
};

struct DiffInputs {
  const RunAnalysis* base = nullptr;
  const RunAnalysis* next = nullptr;
  std::vector<MetricDelta> metrics;
  RowDiff ops, kernels;
  std::vector<CheckOutcome> fail_if;
};

// What `diff` compares of two runs (no --fail-if conditions): metrics, op
// rows, kernel rows. `base`/`next` must outlive the result.
DiffInputs DiffRuns(const RunAnalysis& base, const RunAnalysis& next, const AnalysisOptions& options);

// `diff`: tables `overview`, `ops`, `kernels` (when either run has GPU
// kernels), `fail_if` (with --fail-if) and `metrics` (detail: every metric).
Report BuildDiffReport(const DiffInputs& diff, const DiffReportOptions& options);

// The outcomes of `check` or `diff --fail-if` (`command`): table
// `outcomes` (name, status, message, origin), one row per outcome, and
// table `properties` (name, value) saying what was checked; `--junit`
// renders it as JUnit XML.
Report BuildOutcomesReport(const std::string& command, const std::vector<CheckOutcome>& outcomes,
                           const std::vector<std::pair<std::string, std::string>>& properties);

// "2 of 5 rules failed: overview.input_percent = 53.8 %, not <= 20; ..."
// for the one-line error; empty when none failed.
std::string FailureSummary(const std::vector<CheckOutcome>& outcomes, const std::string& what);

}  // namespace tfprof
