// Threshold rules on run metrics (`check`): parsing them from flags
// (`--max NAME=VALUE`, `--min NAME=VALUE`) and rules files, and evaluating
// them. docs/ci.md documents the rules-file format:
//
//   # comment
//   overview.input_percent <= 20
//   memory.GPU_0_bfc.peak_heap_bytes < 6GiB     # trailing comments too
//   optional kernels.tensor_core_time_percent >= 30
//
// `optional` skips the rule when the capture lacks the metric, whatever the
// --missing policy says, so one rules file serves CPU and GPU runs.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/analyze/run_summary_to_metrics.h"

namespace tfprof {

enum class RuleOp { kLe, kLt, kGe, kGt, kEq, kNe };
std::string_view RuleOpText(RuleOp op);

struct MetricRule {
  std::string metric;
  RuleOp op = RuleOp::kLe;
  double threshold = 0;
  bool optional = false;
  std::string text;    // Normalised: "overview.input_percent <= 20".
  std::string origin;  // "--max", "--min" or "rules.txt:3".
};

// What a rule on a metric the capture lacks does.
enum class MissingPolicy { kFail, kSkip };

enum class OutcomeStatus { kPass, kFail, kSkip };
std::string_view OutcomeStatusName(OutcomeStatus s);  // "pass", "FAIL", "skip"

// The result of one rule (check) or one --fail-if condition (diff); the
// shape JUnit and the tables share.
struct CheckOutcome {
  std::string name;  // The rule as written, normalised.
  std::string metric;
  std::string origin;
  OutcomeStatus status = OutcomeStatus::kPass;
  bool missing = false;          // The metric was not in the capture.
  std::optional<double> actual;  // The value compared (check: the metric; diff: the delta).
  std::string message;           // One line: why it passed, failed or was skipped.
};

// A number with an optional unit suffix: `%` (ignored), KiB/MiB/GiB/TiB
// (powers of 1024), KB/MB/GB/TB (powers of 1000). Throws
// std::invalid_argument naming `context` when malformed or not a finite
// number once scaled (inf, nan, 1e400, 1e308GiB).
double ParseThreshold(std::string_view text, const std::string& context);

// `NAME=VALUE` of --max (rule NAME <= VALUE) or --min (NAME >= VALUE).
MetricRule ParseBoundFlag(std::string_view arg, bool is_max);

// Every rule of a rules file's text (a leading UTF-8 byte order mark is
// skipped); `source` names it in errors ("rules.txt:3: ..."). Throws
// std::invalid_argument.
std::vector<MetricRule> ParseRules(std::string_view text, const std::string& source);

// Throws std::invalid_argument for a metric name the catalogue does not
// have (a typo should not pass as "missing").
void ValidateMetricName(const std::string& metric, const std::string& origin);

std::vector<CheckOutcome> EvaluateRules(const std::vector<MetricRule>& rules, const RunAnalysis& run,
                                        MissingPolicy missing);

// Why the run has no `metric`: "not in this capture", with the collector's
// note for its group when there is one.
std::string MissingReason(const RunAnalysis& run, const std::string& metric);

// A metric value as text: whole numbers for counts and bytes, else up to
// three decimals without trailing zeros.
std::string FormatMetricValue(double value, std::string_view unit);

}  // namespace tfprof
