// The advisor's output model: one Finding per rule that fires (what was
// found, the time at stake per step, the evidence with the analysis each
// number comes from, what to try and the guide section that explains it),
// and one RuleCheck per rule of the catalogue, so a rule that did not fire
// says why (passed with its measured value, could not decide, or does not
// apply to this framework) instead of staying silent. docs/advise.md
// documents every rule.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tfprof {

enum class FindingSeverity : uint8_t { kLow, kMedium, kHigh };
std::string_view SeverityName(FindingSeverity s);  // "low", "medium", "high"
std::optional<FindingSeverity> ParseFindingSeverity(std::string_view text);

struct Evidence {
  std::string what;    // "input time, % of the step time"
  std::string value;   // "79.8%"
  std::string source;  // The command that shows the number: "overview", "kernel-stats", ...
};

struct Finding {
  std::string id;  // Stable: docs/advise.md, `check --no-finding ID`.
  FindingSeverity severity = FindingSeverity::kLow;
  // Estimated time per step the finding costs (what fixing it could win at
  // most); absent for a risk that costs no time (memory near capacity).
  std::optional<double> ms_per_step;
  std::optional<double> step_percent;  // ms_per_step as % of the average step.
  std::string summary;                 // One sentence: what was found.
  std::vector<Evidence> evidence;
  std::string advice;  // What to try.
  std::string guide;   // The guide section (URL) that explains it.
  bool risk = false;   // A risk (FireRisk), not time: ms_per_step stays empty.
};

enum class RuleStatus : uint8_t { kFired, kPassed, kUndecided, kNotApplicable };
std::string_view RuleStatusName(RuleStatus s);  // "fired", "passed", "undecided", "not applicable"

struct RuleCheck {
  std::string id;
  RuleStatus status = RuleStatus::kPassed;
  std::string detail;  // The measured value against the threshold, or why the rule cannot decide.
};

struct Advice {
  std::string run;
  std::string framework;  // "TensorFlow", "JAX" or "PyTorch": which rule set and remedies.
  size_t steps = 0;
  double step_ms = 0;             // Average step time the percentages are of.
  std::vector<Finding> findings;  // Most costly first (FindingBefore).
  std::vector<RuleCheck> checks;  // Every rule of the framework's set, in catalogue order.
};

// Order of findings: severity, then time at stake per step (a finding
// without a time after those with one), then id.
bool FindingBefore(const Finding& a, const Finding& b);

// --- Rules and thresholds ----------------------------------------------------

// kTensorFlow rules run on TensorFlow and JAX runs (JAX's device side is
// XLA's, as TensorFlow's; the rules word their advice for each).
enum class RuleFramework : uint8_t { kAny, kTensorFlow, kPyTorch };

struct RuleDef {
  std::string_view id;
  RuleFramework framework;
  std::string_view title;          // What the rule asks, as the guide's checklist does.
  std::string_view guide;          // URL of the guide section (TensorFlow's for rules of any framework).
  std::string_view pytorch_guide;  // For a PyTorch run, when it differs from `guide`.
  std::string_view jax_guide;      // For a JAX run (empty: JAX's GPU performance tips).
};
// Every rule, in the order checks are listed.
const std::vector<RuleDef>& RuleCatalogue();
// The guide a JAX finding links when its rule names none of its own.
std::string_view JaxGpuGuide();
const RuleDef* FindRule(std::string_view id);

struct ThresholdDef {
  std::string_view name;  // "<rule or group>.<what>", e.g. "input_bound.min_percent".
  double value;           // The default.
  std::string_view meaning;
  std::string_view source;  // Where the default comes from (a guide, xprof, or "ours").
};
const std::vector<ThresholdDef>& ThresholdCatalogue();

// Thresholds in force: the catalogue's defaults, overridden by `--threshold NAME=VALUE`.
class AdviseOptions {
 public:
  // Throws std::invalid_argument for an unknown name or a malformed value.
  void Set(std::string_view assignment);
  double Get(std::string_view name) const;  // A name not in the catalogue is a bug: std::logic_error.

 private:
  std::map<std::string, double, std::less<>> overrides_;
};

}  // namespace tfprof
