// `check --no-finding ID` and `check --max-findings SEVERITY[=N]`: the
// advisor as a CI gate. Each flag becomes one CheckOutcome beside the
// metric rules, so the table, JUnit XML and exit code 5 work the same.
#pragma once

#include <string>
#include <vector>

#include "lib/advise/finding.h"
#include "lib/analyze/metric_rules.h"

namespace tfprof {

struct FindingGate {
  enum class Kind { kNoFinding, kMaxFindings } kind = Kind::kNoFinding;
  std::string id;                                    // kNoFinding: the rule.
  FindingSeverity severity = FindingSeverity::kLow;  // kMaxFindings: counted at or above this.
  size_t allowed = 0;                                // kMaxFindings: at most this many.
  std::string text;                                  // As given, for the outcome's name.
};

// Parses `--no-finding ID` (a rule of the catalogue) and `--max-findings
// SEVERITY[=N]`. Throws std::invalid_argument naming the flag.
FindingGate ParseNoFindingFlag(const std::string& id);
FindingGate ParseMaxFindingsFlag(const std::string& text);

// A rule that could not decide fails under MissingPolicy::kFail (what a
// rule on a missing metric does) and is skipped under kSkip; a rule that
// does not apply to the run passes.
std::vector<CheckOutcome> EvaluateFindingGates(const std::vector<FindingGate>& gates, const Advice& advice,
                                               MissingPolicy missing);

}  // namespace tfprof
