#include "lib/advise/run_summary_to_advice.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string_view>

#include "lib/advise/rules.h"

namespace tfprof {

Advice RunSummaryToAdvice(const RunSummary& run, const AdviseOptions& options, const RunAnalysis* combined) {
  const AdviseInputs in = GatherAdviseInputs(run, options.Get("small_kernels.max_avg_us"), combined);
  Advice out;
  out.run = run.run;
  out.framework = in.pytorch ? "PyTorch" : in.jax ? "JAX" : "TensorFlow";
  out.steps = in.overview.steps.rows.size();
  out.step_ms = in.step_ms;
  RuleSink sink(in, options, out);
  using Rule = void (*)(RuleSink&);
  // Rules shared by two ids (the framework's variant) get their id from here.
  static const std::map<std::string_view, Rule> kRules = {
      {"input_bound", InputBoundRule},
      {"tf_data_stage", TfDataStageRule},
      {"dataloader_workers", DataLoaderWorkersRule},
      {"pin_memory", PinMemoryRule},
      {"step_gaps", StepGapsRule},
      {"kernel_launch_bound", [](RuleSink& s) { KernelLaunchRule(s, "kernel_launch_bound"); }},
      {"cuda_graphs", [](RuleSink& s) { KernelLaunchRule(s, "cuda_graphs"); }},
      {"host_thread_contention", HostThreadContentionRule},
      {"small_kernels", SmallKernelsRule},
      {"xla_fusion", [](RuleSink& s) { FusionRule(s, "xla_fusion"); }},
      {"torch_compile", [](RuleSink& s) { FusionRule(s, "torch_compile"); }},
      {"host_ops_on_gpu_run", HostOpsOnGpuRunRule},
      {"mixed_precision", [](RuleSink& s) { MixedPrecisionRule(s, "mixed_precision"); }},
      {"amp", [](RuleSink& s) { MixedPrecisionRule(s, "amp"); }},
      {"tf32", Tf32Rule},
      {"multi_gpu_imbalance", MultiGpuImbalanceRule},
      {"allreduce_time", AllreduceTimeRule},
      {"eager_execution", EagerExecutionRule},
      {"memory_near_capacity", MemoryNearCapacityRule},
      {"memcpy_heavy", MemcpyHeavyRule},
  };
  // The catalogue's order is the guide's: input first, then one GPU, then
  // precision, then many GPUs and memory. Each framework runs its set.
  for (const RuleDef& def : RuleCatalogue()) {
    if (def.framework == RuleFramework::kPyTorch && !in.pytorch) continue;
    if (def.framework == RuleFramework::kTensorFlow && in.pytorch) continue;
    auto it = kRules.find(def.id);
    if (it == kRules.end()) throw std::logic_error("advisor rule without code: " + std::string(def.id));
    it->second(sink);
  }
  std::stable_sort(out.findings.begin(), out.findings.end(), FindingBefore);
  return out;
}

}  // namespace tfprof
