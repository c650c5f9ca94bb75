#include "lib/analyze/overview_analysis.h"

#include <map>

#include "fmt/format.h"
#include "lib/analyze/pytorch_advice.h"
#include "lib/summary/device_plane_to_op_metrics.h"
#include "lib/summary/run_summary_combine.h"

namespace tfprof {
namespace {

// Thresholds of the reference (percent of the total step time).
constexpr double kHighlyInputBound = 20, kModeratelyInputBound = 5, kAllOthersPotential = 3;
constexpr double kHigh = 15, kModerate = 3;

double Pct(const StepSummary& s, Category c) { return s.category_percent[static_cast<size_t>(c)]; }

void Classify(double pct, const std::string& what, std::string& classification, std::string& statement) {
  if (pct >= kHigh) classification = "high";
  else if (pct >= kModerate) classification = "moderate";
  else {
    classification = "no";
    statement.clear();
    return;
  }
  statement = fmt::format("{:.1f} % of the total step time sampled is spent on '{}'", pct, what);
}

// One of the reference's input-bound verdicts, in its words: "Your program
// is <verdict> because [only ]<percent>% of the total step time sampled is
// <what>." and the advice that follows.
void SetInputVerdict(Bottleneck& b, const char* classification, const char* verdict, const char* only, double percent,
                     const char* what, const char* advice) {
  b.input_classification = classification;
  b.verdict = verdict;
  b.input_statement = fmt::format("Your program is {} because {}{:.1f}% of the total step time sampled is {}.{}",
                                  verdict, only, percent, what, advice);
}

}  // namespace

Bottleneck AnalyzeBottleneck(const StepSummary& s, bool tf_data_in_use) {
  Bottleneck b;
  b.input_percent = Pct(s, Category::kInput);
  b.output_percent = Pct(s, Category::kOutput);
  b.compute_percent = Pct(s, Category::kDeviceCompute);
  b.collectives_percent = Pct(s, Category::kDeviceCollectives);
  b.kernel_launch_percent = Pct(s, Category::kKernelLaunch);
  b.all_other_percent = Pct(s, Category::kAllOthers);
  bool all_others_reported = false;
  if (s.rows.empty()) {
    // Without step time the reference's bottleneck analysis returns before
    // computing any percentage: idle_percent stays 0, not 100 - 0.
    b.input_classification = "unknown";
    b.verdict = "unknown";
    b.input_statement = "No step time measured. Therefore we cannot tell where the performance bottleneck is.";
  } else if (b.input_percent >= kHighlyInputBound) {
    SetInputVerdict(b, "host", "HIGHLY input-bound", "", b.input_percent, "waiting for input",
                    " Therefore, you should first focus on reducing the input time.");
  } else if (b.input_percent >= kModeratelyInputBound) {
    SetInputVerdict(b, "both", "MODERATELY input-bound", "", b.input_percent, "waiting for input",
                    " Therefore, you would need to reduce both the input time and other time.");
  } else if (b.all_other_percent >= kAllOthersPotential) {
    SetInputVerdict(b, "both", "POTENTIALLY input-bound", "", b.all_other_percent,
                    "spent on 'All Others' time (which could be due to I/O or Python execution or both)", "");
    all_others_reported = true;
  } else {
    SetInputVerdict(b, "device", "NOT input-bound", "only ", b.input_percent, "waiting for input",
                    " Therefore, you should focus on reducing other time.");
  }
  if (!s.rows.empty())
    b.idle_percent =
        std::max(0.0, 100 - b.input_percent - b.output_percent - b.compute_percent - b.collectives_percent);
  Classify(b.kernel_launch_percent, "Kernel Launch", b.kernel_launch_classification, b.kernel_launch_statement);
  if (!b.kernel_launch_statement.empty()) {
    b.kernel_launch_statement += ".";
    if (tf_data_in_use)
      b.kernel_launch_statement +=
          " It could be due to CPU contention with tf.data. In this case, you may try to set the "
          "environment variable TF_GPU_THREAD_MODE=gpu_private.";
  }
  if (all_others_reported) {
    b.all_other_classification = "no";
  } else {
    Classify(b.all_other_percent, "All Others", b.all_other_classification, b.all_other_statement);
    if (!b.all_other_statement.empty())
      b.all_other_statement += " time. This could be due to Python execution overhead.";
  }
  Classify(b.collectives_percent, "Device Collective Communication", b.collectives_classification,
           b.collectives_statement);
  if (!b.collectives_statement.empty()) b.collectives_statement += ".";
  return b;
}

double EagerPercent(const OpMetricsDb& db) {
  uint64_t total = 0, eager = 0;
  for (const OpMetrics& m : db.rows()) {
    if (m.is_idle()) continue;
    total += m.self_time_ps;
    if (m.is_eager) eager += m.self_time_ps;
  }
  return total ? 100.0 * static_cast<double>(eager) / static_cast<double>(total) : 0;
}

std::string EagerStatement(double host_percent, double device_percent) {
  constexpr double kThreshold = 10;  // The reference's: above it, say so.
  std::string s;
  if (host_percent > kThreshold)
    s += fmt::format("{:.1f}% of Op time on the host used eager execution. ", host_percent);
  if (device_percent > kThreshold)
    s += fmt::format("{:.1f}% of Op time on the device used eager execution. ", device_percent);
  // The reference links "tf.function." to https://www.tensorflow.org/guide/function.
  if (!s.empty()) s += "Performance could be improved with tf.function.";
  return s;
}

Overview BuildOverview(const HostSummary& ops, StepSummary steps, const AnalysisOptions& options) {
  Overview o;
  o.env = ops.env;
  o.input = ops.env.pytorch() ? AnalyzePyTorchInput(ops.pytorch) : AnalyzeInputPipeline(ops.host_ops, steps);
  o.bottleneck = AnalyzeBottleneck(steps, o.input.tf_data_in_use);
  const double c16 = static_cast<double>(steps.compute_16bit_ps), c32 = static_cast<double>(steps.compute_32bit_ps);
  if (c16 + c32 > 0) {
    o.compute_16bit_percent = 100 * c16 / (c16 + c32);
    o.compute_32bit_percent = 100 * c32 / (c16 + c32);
    if (o.compute_16bit_percent < 10)
      o.precision_statement = fmt::format(
          "Only {:.1f}% of device computation is 16 bit. So you might want to replace more 32-bit Ops by 16-bit Ops to "
          "improve performance (if the reduced accuracy is acceptable).",
          o.compute_16bit_percent);
    if (!o.precision_statement.empty()) o.precision_level = "low_16bit";
  }
  o.placement = ComputePlacement(ops, "(all)");
  OpMetricsDb tf = DeviceOpsToTfOps(ops.device_ops, /*with_idle=*/false, options);
  o.host_eager_percent = EagerPercent(ops.host_ops);
  o.device_eager_percent = EagerPercent(tf);
  o.eager_statement = EagerStatement(o.host_eager_percent, o.device_eager_percent);

  // Top device ops: TF ops on the device without idle, with Tensor Core use
  // from their kernels.
  std::map<std::string, std::pair<bool, uint64_t>> tc;  // op -> (eligible of first row, TC time)
  for (const KernelReport& r : ops.kernels.Sorted()) {
    auto [it, fresh] = tc.try_emplace(r.op_name, r.op_tensor_core_eligible, 0);
    if (r.uses_tensor_core) it->second.second += r.total_ns;
  }
  double cumulative = 0;
  for (const OpMetrics* m : tf.Sorted(10)) {
    TopDeviceOp t;
    t.name = m->name;
    t.category = m->category;
    t.self_fraction =
        tf.total_op_time_ps ? static_cast<double>(m->self_time_ps) / static_cast<double>(tf.total_op_time_ps) : 0;
    cumulative += t.self_fraction;
    t.cumulative_fraction = cumulative;
    if (auto it = tc.find(m->name); it != tc.end()) {
      t.tensor_core_eligible = it->second.first;
      t.uses_tensor_core = it->second.second != 0;
    }
    o.top_device_ops.push_back(std::move(t));
  }

  // The reference points to the host-side input analysis only when the run
  // is input-bound (highly, moderately or potentially); otherwise the page
  // has nothing more to say, whether tf.data is used or not.
  const std::string& cls = o.bottleneck.input_classification;
  if (cls != "host" && cls != "both") o.summary_next_step = "You may skip the rest of this page.";
  else if (!o.input.tf_data_in_use)
    o.summary_next_step =
        "Consider using the tf.data API to enable profiler's host-side analysis for input pipeline. "
        "Profiler currently does not support custom input pipeline (please ignore Section 3 below).";
  else o.summary_next_step = "Look at Section 3 for the breakdown of input time on the host.";
  if (steps.rows.empty()) {
    const std::string hint =
        options.word_no_steps_hint ? options.word_no_steps_hint(options.StepFallbacks(o.env.pytorch())) : "";
    o.warnings.push_back("No step marker observed and hence the step time is unknown: " + steps.no_steps_reason +
                         (hint.empty() ? std::string(".") : ". Use " + hint + " to get a breakdown anyway."));
  }
  o.steps = std::move(steps);
  // Precision, Tensor Cores, eager and input advice in PyTorch's terms.
  if (o.env.pytorch()) AdviseForPyTorch(ops, o);
  return o;
}

Overview RunSummaryToOverview(const RunSummary& run) {
  return BuildOverview(CombineHostOps(run), SummarizeSteps(CombineRunSteps(run)), run.options);
}

}  // namespace tfprof
