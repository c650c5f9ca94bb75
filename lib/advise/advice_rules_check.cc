#include "lib/advise/advice_rules_check.h"

#include <stdexcept>

#include "absl/strings/numbers.h"
#include "fmt/format.h"

namespace tfprof {

FindingGate ParseNoFindingFlag(const std::string& id) {
  if (!FindRule(id))
    throw std::invalid_argument("--no-finding: no advisor rule named '" + id + "' (docs/advise.md lists them)");
  FindingGate g;
  g.kind = FindingGate::Kind::kNoFinding;
  g.id = id;
  g.text = "no finding " + id;
  return g;
}

FindingGate ParseMaxFindingsFlag(const std::string& text) {
  FindingGate g;
  g.kind = FindingGate::Kind::kMaxFindings;
  const size_t eq = text.find('=');
  const std::string severity = text.substr(0, eq);
  const std::optional<FindingSeverity> s = ParseFindingSeverity(severity);
  if (!s) throw std::invalid_argument("--max-findings: '" + severity + "' is not a severity (low, medium or high)");
  g.severity = *s;
  if (eq != std::string::npos) {
    uint64_t n = 0;
    if (!absl::SimpleAtoi(text.substr(eq + 1), &n))
      throw std::invalid_argument("--max-findings " + severity + "=N: '" + text.substr(eq + 1) +
                                  "' is not a whole number");
    g.allowed = static_cast<size_t>(n);
  }
  g.text = fmt::format("findings at or above {} <= {}", SeverityName(g.severity), g.allowed);
  return g;
}

std::vector<CheckOutcome> EvaluateFindingGates(const std::vector<FindingGate>& gates, const Advice& advice,
                                               MissingPolicy missing) {
  std::vector<CheckOutcome> out;
  for (const FindingGate& g : gates) {
    CheckOutcome o;
    o.name = g.text;
    if (g.kind == FindingGate::Kind::kNoFinding) {
      o.metric = "advise." + g.id;
      o.origin = "--no-finding";
      const RuleCheck* check = nullptr;
      for (const RuleCheck& c : advice.checks)
        if (c.id == g.id) check = &c;
      if (!check) {
        // The rule belongs to the other framework's set (tf_data_stage on a
        // PyTorch run): it cannot fire here.
        o.status = OutcomeStatus::kPass;
        o.message = g.id + " is not checked on a " + advice.framework + " run";
      } else if (check->status == RuleStatus::kFired) {
        o.status = OutcomeStatus::kFail;
        o.actual = 1;
        o.message = g.id + " fired: " + check->detail;
      } else if (check->status == RuleStatus::kUndecided) {
        o.missing = true;
        o.status = missing == MissingPolicy::kSkip ? OutcomeStatus::kSkip : OutcomeStatus::kFail;
        o.message = g.id + " could not decide: " + check->detail;
      } else {
        o.status = OutcomeStatus::kPass;
        o.actual = 0;
        o.message = std::string(RuleStatusName(check->status)) + ": " + check->detail;
      }
    } else {
      o.metric = fmt::format("advise.findings.{}", SeverityName(g.severity));
      o.origin = "--max-findings";
      std::vector<std::string> ids;
      for (const Finding& f : advice.findings)
        if (f.severity >= g.severity) ids.push_back(f.id);
      o.actual = static_cast<double>(ids.size());
      o.status = ids.size() > g.allowed ? OutcomeStatus::kFail : OutcomeStatus::kPass;
      o.message = ids.empty() ? fmt::format("no finding at or above {}", SeverityName(g.severity))
                              : fmt::format("{} at or above {}: {}", ids.size(), SeverityName(g.severity),
                                            fmt::join(ids, ", "));
    }
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace tfprof
