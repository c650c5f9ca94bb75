// The advisor's rules, grouped by what they look at (input_rules.cc,
// device_rules.cc, precision_rules.cc, scale_rules.cc), and the sink they
// report to. A rule reads AdviseInputs, compares with its thresholds
// (AdviseOptions) and ends in exactly one of Fire, FireRisk, Pass,
// Undecided or NotApplicable for its id.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "lib/advise/advise_inputs.h"
#include "lib/advise/finding.h"

namespace tfprof {

class RuleSink {
 public:
  RuleSink(const AdviseInputs& inputs, const AdviseOptions& options, Advice& out)
      : in(inputs), options(options), out_(out) {}

  // A finding that costs `ms_per_step` (none: unknown, e.g. no steps); its
  // severity follows its share of the step time (severity.* thresholds).
  // Under finding.min_step_percent of the step the rule passes instead
  // (what it found is noise at this step time) and the returned finding is
  // a scratch one the caller may fill, which is dropped.
  // `share`: the % of the step the time is, when not ms_per_step / step
  // (gaps lie outside the step). ms_per_step is clamped to [0, step time].
  Finding& Fire(std::string_view id, std::optional<double> ms_per_step, std::string summary,
                std::optional<double> share = std::nullopt);
  // A risk that costs no time per step, with its own severity.
  Finding& FireRisk(std::string_view id, FindingSeverity severity, std::string summary);
  void Pass(std::string_view id, std::string detail);
  void Undecided(std::string_view id, std::string why);
  void NotApplicable(std::string_view id, std::string why);

  double Threshold(std::string_view name) const { return options.Get(name); }
  // Passes with "<before> <value>%<after> (fires from <min>%)": the
  // measured share against the rule's threshold.
  void PassBelow(std::string_view id, std::string_view before, double value, std::string_view after, double min);

  const AdviseInputs& in;
  const AdviseOptions& options;

 private:
  bool TooSmall(std::string_view id, double share, double ms, const std::string& summary);
  Finding& Add(std::string_view id, FindingSeverity severity, std::optional<double> ms, std::optional<double> share,
               std::string summary);
  void Check(std::string_view id, RuleStatus status, std::string detail);
  Advice& out_;
  Finding scratch_;
};

// Number formats shared by the rules' evidence and details.
std::string Percent(double value);  // "12.3%"
std::string Millis(double ms);      // "1.234 ms"
std::string Micros(double us);      // "4.2 us"
std::string Bytes(double bytes);    // "76.6 GB"
// A kernel's name cut to 100 characters ("..." after): C++ template
// signatures run to hundreds; kernel-stats shows them whole.
std::string ShortKernelName(std::string_view name);

// Why step-based rules cannot decide on this run ("" when it has steps).
std::string NoStepsReason(const AdviseInputs& in);
// True (after reporting NotApplicable) when the run has no GPU.
bool NoGpu(RuleSink& sink, std::string_view id);

// input_rules.cc
void InputBoundRule(RuleSink& sink);
void TfDataStageRule(RuleSink& sink);
void DataLoaderWorkersRule(RuleSink& sink);
void PinMemoryRule(RuleSink& sink);
void StepGapsRule(RuleSink& sink);
// device_rules.cc
void KernelLaunchRule(RuleSink& sink, std::string_view id);  // kernel_launch_bound or cuda_graphs
void HostThreadContentionRule(RuleSink& sink);
void SmallKernelsRule(RuleSink& sink);
void FusionRule(RuleSink& sink, std::string_view id);  // xla_fusion or torch_compile
void HostOpsOnGpuRunRule(RuleSink& sink);
void MemcpyHeavyRule(RuleSink& sink);
// precision_rules.cc
void MixedPrecisionRule(RuleSink& sink, std::string_view id);  // mixed_precision or amp
void Tf32Rule(RuleSink& sink);
// scale_rules.cc
void MultiGpuImbalanceRule(RuleSink& sink);
void AllreduceTimeRule(RuleSink& sink);
void EagerExecutionRule(RuleSink& sink);
void MemoryNearCapacityRule(RuleSink& sink);

}  // namespace tfprof
