#include "lib/advise/run_summary_to_advice.h"

#include <algorithm>

#include "lib/advise/rules.h"

namespace tfprof {

Advice RunSummaryToAdvice(const RunSummary& run, const AdviseOptions& options) {
  const AdviseInputs in = GatherAdviseInputs(run, options.Get("small_kernels.max_avg_us"));
  Advice out;
  out.run = run.run;
  out.framework = in.pytorch ? "PyTorch" : in.jax ? "JAX" : "TensorFlow";
  out.steps = in.overview.steps.rows.size();
  out.step_ms = in.step_ms;
  RuleSink sink(in, options, out);
  // The guide's order: input first, then one GPU, then precision, then
  // many GPUs and memory. Each framework runs its own variant of a rule.
  InputBoundRule(sink);
  if (in.pytorch) {
    DataLoaderWorkersRule(sink);
    PinMemoryRule(sink);
  } else {
    TfDataStageRule(sink);
  }
  StepGapsRule(sink);
  KernelLaunchRule(sink, in.pytorch ? "cuda_graphs" : "kernel_launch_bound");
  if (!in.pytorch) HostThreadContentionRule(sink);
  SmallKernelsRule(sink);
  FusionRule(sink, in.pytorch ? "torch_compile" : "xla_fusion");
  if (!in.pytorch) HostOpsOnGpuRunRule(sink);
  MixedPrecisionRule(sink, in.pytorch ? "amp" : "mixed_precision");
  Tf32Rule(sink);
  MultiGpuImbalanceRule(sink);
  AllreduceTimeRule(sink);
  if (!in.pytorch) EagerExecutionRule(sink);
  MemoryNearCapacityRule(sink);
  MemcpyHeavyRule(sink);
  std::stable_sort(out.findings.begin(), out.findings.end(), FindingBefore);
  return out;
}

}  // namespace tfprof
