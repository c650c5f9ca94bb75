// The Overview Page: the step-time breakdown and its verdicts, device
// compute precision, op placement, top device ops and the run environment,
// computed the way the TensorFlow Profiler computes them.
#pragma once

#include <string>
#include <vector>

#include "lib/analyze/input_pipeline_analysis.h"
#include "lib/analyze/placement_report.h"
#include "lib/analyze/step_summary.h"
#include "lib/summary/host_summary.h"
#include "lib/summary/run_summary.h"

namespace tfprof {

struct Bottleneck {
  // Totals over the steps as % of the total step time.
  double input_percent = 0, output_percent = 0, compute_percent = 0, idle_percent = 0, kernel_launch_percent = 0,
         all_other_percent = 0, collectives_percent = 0;
  std::string input_classification;  // host (highly), both (moderately / potentially), device (not), unknown
  std::string input_statement;
  std::string kernel_launch_classification, kernel_launch_statement;  // high, moderate, no
  std::string all_other_classification, all_other_statement;
  std::string collectives_classification, collectives_statement;
  std::string verdict;  // HIGHLY / MODERATELY / POTENTIALLY / NOT input-bound, or "unknown"
};

struct TopDeviceOp {
  std::string name, category;
  double self_fraction = 0, cumulative_fraction = 0;
  bool tensor_core_eligible = false, uses_tensor_core = false;
};

struct Overview {
  StepSummary steps;
  Bottleneck bottleneck;
  // Device compute time by the precision of its kernels, % (TensorFlow:
  // 16- and 32-bit only, from the step events as the reference; PyTorch:
  // 8-, 16-, 32-bit and unknown, from the kernels, pytorch_advice.h).
  double compute_16bit_percent = 0, compute_32bit_percent = 0;
  double compute_8bit_percent = 0, compute_unknown_precision_percent = 0;
  std::string precision_statement;
  std::string precision_level = "no";  // "no", "low_16bit", or "unknown" (nothing tells the data type).
  // Kernel time of ops that could use Tensor Cores in kernels that do not,
  // % of all kernel time, and the advice when it is high (PyTorch only).
  double tensor_core_eligible_unused_percent = 0;
  std::string tensor_core_statement;
  // Self time of the ops that ran eagerly (op by op, outside tf.function),
  // % of all ops' self time (IDLE excluded): host ops, and device ops
  // rolled up to TF ops. The statement when either is over 10%.
  double host_eager_percent = 0, device_eager_percent = 0;
  std::string eager_statement;
  // PyTorch: torch.compile compiling inside the profiled steps, when it is
  // 10% of the step time or more (pytorch_advice.h).
  std::string compilation_statement;
  Placement placement;
  std::vector<TopDeviceOp> top_device_ops;
  RunEnvironment env;
  InputPipelineAnalysis input;
  std::string summary_next_step;
  std::vector<std::string> warnings;  // e.g. why there are no steps
};

Bottleneck AnalyzeBottleneck(const StepSummary& steps, bool tf_data_in_use);
// 100 * self time of the eager rows / self time of all rows, IDLE excluded
// (0 without ops).
double EagerPercent(const OpMetricsDb& db);
// "<x.x>% of Op time on the host used eager execution. " and/or the device's,
// for a share over 10%, then "Performance could be improved with
// tf.function."; empty when neither is over 10%.
std::string EagerStatement(double host_percent, double device_percent);
Overview BuildOverview(const HostSummary& ops, StepSummary steps, const AnalysisOptions& options = {});

// The overview of a run: its hosts' op summaries and steps combined (the
// summary's parts: ops with eager marks, and steps).
Overview RunSummaryToOverview(const RunSummary& run);

}  // namespace tfprof
