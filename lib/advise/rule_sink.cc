#include <algorithm>
#include <cmath>

#include "fmt/format.h"
#include "lib/advise/rules.h"

namespace tfprof {

Finding& RuleSink::Add(std::string_view id, FindingSeverity severity, std::optional<double> ms,
                       std::optional<double> share, std::string summary) {
  const RuleDef* def = FindRule(id);
  Finding f;
  f.id = std::string(id);
  f.severity = severity;
  f.ms_per_step = ms;
  f.step_percent = share;
  f.summary = std::move(summary);
  if (def) {
    std::string_view guide = def->guide;
    if (in.pytorch && !def->pytorch_guide.empty()) guide = def->pytorch_guide;
    if (in.jax) guide = def->jax_guide.empty() ? JaxGpuGuide() : def->jax_guide;
    f.guide = std::string(guide);
  }
  Check(id, RuleStatus::kFired, f.summary);
  out_.findings.push_back(std::move(f));
  return out_.findings.back();
}

bool RuleSink::TooSmall(std::string_view id, double share, double ms, const std::string& summary) {
  const double min = Threshold("finding.min_step_percent");
  if (share >= min) return false;
  Pass(id, summary + fmt::format(" But only {} per step is at stake ({} of the step; findings from {}).", Millis(ms),
                                 Percent(share), Percent(min)));
  return true;
}

Finding& RuleSink::Fire(std::string_view id, std::optional<double> ms_per_step, std::string summary,
                        std::optional<double> share) {
  FindingSeverity severity = FindingSeverity::kLow;
  if (ms_per_step && in.step_ms > 0) {
    // Whole-profile totals can hold time outside the steps: a step cannot
    // lose more than itself (gaps, outside it, are not capped), nor less
    // than nothing.
    ms_per_step = std::max(0.0, share ? *ms_per_step : std::min(*ms_per_step, in.step_ms));
    if (!share) share = in.PercentOfStep(*ms_per_step);
    if (TooSmall(id, *share, *ms_per_step, summary)) {
      scratch_ = Finding{};
      return scratch_;
    }
    if (*share >= Threshold("severity.high_percent")) severity = FindingSeverity::kHigh;
    else if (*share >= Threshold("severity.medium_percent")) severity = FindingSeverity::kMedium;
  } else {
    share.reset();
  }
  return Add(id, severity, ms_per_step, share, std::move(summary));
}

Finding& RuleSink::FireRisk(std::string_view id, FindingSeverity severity, std::string summary) {
  Finding& f = Add(id, severity, std::nullopt, std::nullopt, std::move(summary));
  f.risk = true;
  return f;
}

void RuleSink::PassBelow(std::string_view id, std::string_view before, double value, std::string_view after,
                         double min) {
  Pass(id, fmt::format("{} {}{} (fires from {})", before, Percent(value), after, Percent(min)));
}

void RuleSink::Pass(std::string_view id, std::string detail) { Check(id, RuleStatus::kPassed, std::move(detail)); }
void RuleSink::Undecided(std::string_view id, std::string why) { Check(id, RuleStatus::kUndecided, std::move(why)); }
void RuleSink::NotApplicable(std::string_view id, std::string why) {
  Check(id, RuleStatus::kNotApplicable, std::move(why));
}

void RuleSink::Check(std::string_view id, RuleStatus status, std::string detail) {
  out_.checks.push_back({std::string(id), status, std::move(detail)});
}

std::string Percent(double value) { return fmt::format("{:.1f}%", value); }
std::string Millis(double ms) { return fmt::format("{:.3f} ms", ms); }
std::string Micros(double us) { return fmt::format("{:.1f} us", us); }
std::string Bytes(double bytes) {
  if (std::fabs(bytes) >= 1e9) return fmt::format("{:.2f} GB", bytes / 1e9);
  if (std::fabs(bytes) >= 1e6) return fmt::format("{:.1f} MB", bytes / 1e6);
  if (std::fabs(bytes) >= 1e3) return fmt::format("{:.1f} kB", bytes / 1e3);
  return fmt::format("{:.0f} B", bytes);
}

std::string ShortKernelName(std::string_view name) {
  constexpr size_t kMax = 100;
  if (name.size() <= kMax) return std::string(name);
  return std::string(name.substr(0, kMax)) + "...";
}

std::string NoStepsReason(const AdviseInputs& in) {
  if (in.has_steps && in.step_ms > 0) return "";
  const std::string& why = in.overview.steps.no_steps_reason;
  return "no steps to measure against" + (why.empty() ? std::string() : ": " + why);
}

bool NoGpu(RuleSink& sink, std::string_view id) {
  if (sink.in.ops.env.has_device()) return false;
  const RunEnvironment& env = sink.in.ops.env;
  sink.NotApplicable(id, env.tpu_count > 0 ? "no GPU in the capture: its devices are TPUs, which no rule reads"
                         : env.untraced_gpus > 0
                             ? fmt::format("no GPU activity in the trace, though it lists {} GPU{}: the program "
                                           "ran on the CPU, or its GPU work was not traced (profile with "
                                           "ProfilerActivity.CUDA among the activities)",
                                           env.untraced_gpus, env.untraced_gpus == 1 ? "" : "s")
                             : "no GPU in the capture (no device plane)");
  return true;
}

}  // namespace tfprof
