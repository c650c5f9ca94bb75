#include "lib/advise/advise_inputs.h"

#include <algorithm>
#include <cstdint>

#include "lib/summary/pytorch_kernel_rules.h"
#include "lib/summary/run_summary_combine.h"
#include "lib/summary/time_span.h"

namespace tfprof {
namespace {

bool IsElementwiseKernel(std::string_view name) {
  return name.find("elementwise_kernel") != std::string_view::npos ||
         name.find("EigenMetaKernel") != std::string_view::npos;
}

void KeepTop(std::vector<KernelShare>& top, KernelShare k, bool by_launches) {
  top.push_back(std::move(k));
  std::stable_sort(top.begin(), top.end(), [by_launches](const KernelShare& a, const KernelShare& b) {
    return by_launches ? a.launches > b.launches : a.ms > b.ms;
  });
  if (top.size() > 3) top.pop_back();
}

KernelAggregates AggregateKernels(const KernelStatsDb& db, double small_max_avg_us, bool pytorch) {
  KernelAggregates k;
  for (const KernelReport& r : db.Sorted(0)) {
    const double ms = static_cast<double>(r.total_ns) / 1e6;
    k.launches += r.occurrences;
    k.ms += ms;
    const KernelShare share{r.name, r.op_name, r.occurrences, ms};
    if (r.occurrences > 0 &&
        static_cast<double>(r.total_ns) / static_cast<double>(r.occurrences) < small_max_avg_us * 1e3) {
      k.small_launches += r.occurrences;
      k.small_ms += ms;
      KeepTop(k.top_small, share, /*by_launches=*/true);
    }
    if (IsElementwiseKernel(r.name)) {
      k.elementwise_launches += r.occurrences;
      k.elementwise_ms += ms;
      KeepTop(k.top_elementwise, share, /*by_launches=*/false);
    }
    if (r.op_tensor_core_eligible && !r.uses_tensor_core) {
      if (!pytorch && TensorCoreUseUnknown(r.name)) {
        k.eligible_unknown_ms += ms;
      } else {
        k.eligible_unused_ms += ms;
        const ComputePrecision p = pytorch ? r.precision : PrecisionNamedIn(r.name);
        if (p == ComputePrecision::k32Bit) k.eligible_unused_fp32_ms += ms;
        KeepTop(k.top_eligible_unused, share, /*by_launches=*/false);
      }
    }
    if (r.name.rfind("triton_", 0) == 0) k.triton = true;
  }
  return k;
}

}  // namespace

bool TensorCoreUseUnknown(std::string_view name) {
  for (std::string_view part : {"gemm_fusion", "triton", "cutlass", "nvjet", "cublasLt"})
    if (name.find(part) != std::string_view::npos) return true;
  return false;
}

AdviseInputs GatherAdviseInputs(const RunSummary& run, double small_kernel_max_avg_us, const RunAnalysis* combined) {
  AdviseInputs in{.run = run};
  if (combined) {
    in.ops = combined->ops;
    in.overview = combined->overview;
  } else {
    in.ops = CombineHostOps(run);
    in.overview = BuildOverview(in.ops, SummarizeSteps(CombineRunSteps(run)), run.options);
  }
  in.pytorch = in.ops.env.pytorch();
  in.tf_data = CombineRunTfData(run);
  in.hosts = AnalyzeHosts(run);
  in.kernels = AggregateKernels(in.ops.kernels, small_kernel_max_avg_us, in.pytorch);
  in.has_steps = !in.overview.steps.rows.empty();
  in.step_ms = in.overview.steps.step_time_ms.avg;
  double gap_ps = 0;
  for (const HostPartials& h : run.hosts) {
    std::vector<const StepRecord*> steps;
    for (const StepRecord& s : h.steps.steps) steps.push_back(&s);
    in.host_steps += steps.size();
    in.device_steps += steps.size() * static_cast<uint64_t>(std::max(h.ops.env.device_core_count, 1));
    std::sort(steps.begin(), steps.end(),
              [](const StepRecord* a, const StepRecord* b) { return a->begin_ps < b->begin_ps; });
    in.whole_steps = in.whole_steps || h.steps.whole_steps;
    for (size_t i = 1; i < steps.size(); ++i) {
      const auto& prev = steps[i - 1]->marker_number;
      const auto& next = steps[i]->marker_number;
      if (prev && next && *next != *prev + 1) continue;
      // Saturating: a corrupt capture may hold any begin and duration.
      const int64_t end = SaturatingAdd(steps[i - 1]->begin_ps,
                                        static_cast<int64_t>(std::min<uint64_t>(steps[i - 1]->duration_ps, INT64_MAX)));
      const int64_t gap = steps[i]->begin_ps > end ? SaturatingSub(steps[i]->begin_ps, end) : 0;
      gap_ps += static_cast<double>(gap);
      ++in.gaps;
    }
  }
  if (in.gaps) in.gap_ms = gap_ps / static_cast<double>(in.gaps) / 1e9;
  // XLA's device ops: a module id, or JAX's "jit_<function>/<hlo op>" names.
  for (const OpMetrics& m : in.ops.device_ops.rows())
    if (m.module_id != 0 || m.name.rfind("jit_", 0) == 0 || m.name.rfind("pmap_", 0) == 0) in.xla_compiled = true;
  for (const OpMetrics& m : in.ops.host_ops.rows())
    if (!m.is_idle()) in.host_tf_ops = true;
  in.jax = !in.pytorch && in.xla_compiled && !in.host_tf_ops;
  return in;
}

}  // namespace tfprof
