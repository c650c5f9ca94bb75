// What the advisor's rules read, computed once per run from its summary:
// the overview (step breakdown, precision, eager share), the combined op
// and kernel summary, the tf.data analysis, the hosts comparison, the
// memory profiles, and a few aggregates no table shows (gaps between
// steps, small and element-wise kernels, Tensor-Core-eligible kernels
// that do not use Tensor Cores). Rules stay small: each compares numbers
// from here with its thresholds.
#pragma once

#include <string>
#include <vector>

#include "lib/analyze/hosts_analysis.h"
#include "lib/analyze/overview_analysis.h"
#include "lib/analyze/run_summary_to_metrics.h"
#include "lib/summary/host_summary.h"
#include "lib/summary/run_summary.h"
#include "lib/summary/tf_data_events_to_pipelines.h"

namespace tfprof {

// A kernel row and its time, for evidence lists.
struct KernelShare {
  std::string name, op;
  uint64_t launches = 0;
  double ms = 0;
};

struct KernelAggregates {
  uint64_t launches = 0;
  double ms = 0;
  // Kernels whose average duration is under small_kernels.max_avg_us.
  uint64_t small_launches = 0;
  double small_ms = 0;
  std::vector<KernelShare> top_small;  // Most launches first, at most 3.
  // Element-wise kernels (PyTorch's *elementwise_kernel, Eigen's EigenMetaKernel).
  uint64_t elementwise_launches = 0;
  double elementwise_ms = 0;
  std::vector<KernelShare> top_elementwise;  // Most time first, at most 3.
  // Kernels of Tensor-Core-eligible ops that do not use Tensor Cores; the
  // 32-bit ones separately (PyTorch records the precision; for TensorFlow
  // and JAX the kernel's name must say float/f32).
  double eligible_unused_ms = 0, eligible_unused_fp32_ms = 0;
  // Eligible kernels whose Tensor Core use their name cannot tell: XLA's
  // Triton and cuBLASLt kernels (gemm_fusion_*, triton_*, cutlass*, nvjet*)
  // on TensorFlow/JAX, which the kernel-name list of the TensorFlow
  // Profiler (kernel-stats' column) does not know. Left out of the above.
  double eligible_unknown_ms = 0;
  std::vector<KernelShare> top_eligible_unused;  // Most time first, at most 3.
  bool triton = false;                           // torch.compile's kernels (triton_*) are present.
};

struct AdviseInputs {
  const RunSummary& run;
  bool pytorch = false;
  bool jax = false;          // XLA-compiled device ops and no TensorFlow op on the host.
  bool host_tf_ops = false;  // Any TensorFlow op ran on the host (non-IDLE host op rows).
  HostSummary ops;           // All hosts combined.
  Overview overview;         // Steps: the combined steps, first and last dropped past five.
  TfDataAnalysis tf_data;
  HostsAnalysis hosts;
  KernelAggregates kernels;
  bool has_steps = false;
  double step_ms = 0;  // Average step time (overview).
  // Host-steps the whole-profile totals (kernels, runtime facts) divide by:
  // every host's own steps, summed (the overview's list drops some).
  uint64_t host_steps = 0;
  // Kernel totals add up every GPU of a host: they divide by each host's
  // steps times its GPUs (per GPU and step).
  uint64_t device_steps = 0;
  // Gaps between a host's consecutive steps (end of one to start of the
  // next), averaged over all such pairs of all hosts. Pairs whose step
  // markers skip numbers (a profiler schedule's unprofiled steps lie
  // between) are left out; `whole_steps`: the steps are separate TF1
  // session.run timelines, so the time between them was not profiled.
  double gap_ms = 0;
  uint64_t gaps = 0;
  bool whole_steps = false;
  bool xla_compiled = false;  // Device ops belong to XLA modules (JAX, jit_compile).

  double CategoryMs(Category c) const { return overview.steps.category_ms[static_cast<size_t>(c)].avg; }
  double PercentOfStep(double ms) const { return step_ms > 0 ? 100.0 * ms / step_ms : 0.0; }
  // A whole-profile total (ms) per host and step, in ms.
  double PerStepMs(double total_ms) const { return host_steps ? total_ms / static_cast<double>(host_steps) : 0.0; }
  // A whole-profile kernel total, per GPU and step, in ms.
  double PerDeviceStepMs(double total_ms) const {
    return device_steps ? total_ms / static_cast<double>(device_steps) : 0.0;
  }
};

// `combined`: the run's combined ops and overview when the caller has them
// already (RunSummaryToMetrics makes the same), so they are not made twice.
AdviseInputs GatherAdviseInputs(const RunSummary& run, double small_kernel_max_avg_us,
                                const RunAnalysis* combined = nullptr);

// A TensorFlow/JAX kernel whose name tells nothing about Tensor Core use
// (compiler-generated GEMMs).
bool TensorCoreUseUnknown(std::string_view kernel_name);

}  // namespace tfprof
