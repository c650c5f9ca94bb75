// Comparing two runs (`diff BASE NEW`): every metric side by side with its
// signed change, op-stats and kernel-stats rows matched by name (added,
// removed, grown, shrunk, by the size of the change, as bloaty's diff mode),
// and the `--fail-if` conditions that turn a regression into exit code 5.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/analyze/metric_rules.h"
#include "lib/analyze/run_summary_to_metrics.h"

namespace tfprof {

struct MetricDelta {
  std::string name;
  const MetricDef* def = nullptr;
  std::optional<double> base, next;
  // next - base; NaN unless both sides have the metric.
  double delta() const;
  // 100 * delta / |base|; 0 when both are 0, +-inf when only base is 0,
  // NaN unless both sides have the metric.
  double delta_percent() const;
};

// Every metric of either run, in the runs' order (a metric only NEW has is
// placed after its predecessor in NEW).
std::vector<MetricDelta> DiffMetrics(const RunAnalysis& base, const RunAnalysis& next);

enum class RowChange { kAdded, kRemoved, kGrown, kShrunk };
std::string_view RowChangeName(RowChange c);  // "added", "removed", "grown", "shrunk"

struct RowDelta {
  std::string side;    // op rows: "host" or "device"; kernel rows: "".
  std::string name;    // The op, or the kernel.
  std::string detail;  // The op's type, or the kernel's op.
  double base_us = 0, next_us = 0;
  uint64_t base_count = 0, next_count = 0;
  RowChange change = RowChange::kGrown;
  double delta_us() const { return next_us - base_us; }
};

struct RowDiff {
  std::vector<RowDelta> rows;  // Changed rows, largest |change| first.
  size_t unchanged = 0;        // Rows in both with the same time.
};

// TF ops by (side, name), compared on total self time; IDLE rows are left
// out (the idle metrics carry them).
RowDiff DiffOpRows(const HostSummary& base, const HostSummary& next, const AnalysisOptions& options);

// Kernels by (kernel name, op), compared on total time; rows that differ
// only in launch parameters are summed, since a change of batch size
// changes the grid but not which kernel ran.
RowDiff DiffKernelRows(const HostSummary& base, const HostSummary& next);

// `METRIC OP CHANGE`: OP one of > >= < <=, CHANGE a signed number, with `%`
// for a change relative to BASE (`overview.step_time_ms.avg>+5%`) and
// without for an absolute one (`overview.input_percent>+2`). The condition
// holding means the check FAILS.
struct DeltaCondition {
  std::string metric;
  RuleOp op = RuleOp::kGt;
  double amount = 0;
  bool relative = false;
  std::string text;  // As normalised: "overview.step_time_ms.avg > +5%".
};

// Throws std::invalid_argument (a usage error) when malformed or when the
// metric is not in the catalogue.
DeltaCondition ParseDeltaCondition(std::string_view text);

std::vector<CheckOutcome> EvaluateDeltaConditions(const std::vector<DeltaCondition>& conditions,
                                                  const std::vector<MetricDelta>& deltas, const RunAnalysis& base,
                                                  const RunAnalysis& next, MissingPolicy missing);

// "+1.5", "-0.25", "+inf": a signed number for statements.
std::string SignedValue(double value, std::string_view unit);

// The unit of an absolute change: "points" for a percentage (53.8% to 0.9%
// is -52.9 points, not -52.9%), else the metric's unit.
std::string_view DeltaUnit(std::string_view unit);

}  // namespace tfprof
