#include "lib/advise/finding.h"

#include <algorithm>
#include <stdexcept>
#include <tuple>

#include "absl/strings/numbers.h"

namespace tfprof {
namespace {

constexpr std::string_view kGpuGuide = "https://www.tensorflow.org/guide/gpu_performance_analysis";
constexpr std::string_view kPyTorchTuning = "https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html";

}  // namespace

std::string_view JaxGpuGuide() { return "https://docs.jax.dev/en/latest/gpu_performance_tips.html"; }

namespace {}  // namespace

std::string_view SeverityName(FindingSeverity s) {
  switch (s) {
    case FindingSeverity::kLow: return "low";
    case FindingSeverity::kMedium: return "medium";
    case FindingSeverity::kHigh: return "high";
  }
  return "low";
}

std::optional<FindingSeverity> ParseFindingSeverity(std::string_view text) {
  for (FindingSeverity s : {FindingSeverity::kLow, FindingSeverity::kMedium, FindingSeverity::kHigh})
    if (text == SeverityName(s)) return s;
  return std::nullopt;
}

std::string_view RuleStatusName(RuleStatus s) {
  switch (s) {
    case RuleStatus::kFired: return "fired";
    case RuleStatus::kPassed: return "passed";
    case RuleStatus::kUndecided: return "undecided";
    case RuleStatus::kNotApplicable: return "not applicable";
  }
  return "passed";
}

bool FindingBefore(const Finding& a, const Finding& b) {
  if (a.severity != b.severity) return a.severity > b.severity;
  if (a.ms_per_step.has_value() != b.ms_per_step.has_value()) return a.ms_per_step.has_value();
  if (a.ms_per_step && *a.ms_per_step != *b.ms_per_step) return *a.ms_per_step > *b.ms_per_step;
  return a.id < b.id;
}

const std::vector<RuleDef>& RuleCatalogue() {
  using F = RuleFramework;
  static const std::vector<RuleDef> kRules = {
      {"input_bound", F::kAny, "Is the program input-bound (steps waiting for their next batch)?",
       "https://www.tensorflow.org/guide/data_performance_analysis",
       "https://pytorch.org/docs/stable/data.html#single-and-multi-process-data-loading",
       "https://www.tensorflow.org/guide/data_performance_analysis"},
      {"tf_data_stage", F::kTensorFlow, "Which tf.data stage is the bottleneck of the input pipeline?",
       "https://www.tensorflow.org/guide/data_performance_analysis", "",
       "https://www.tensorflow.org/guide/data_performance_analysis"},
      {"dataloader_workers", F::kPyTorch, "Does the DataLoader load batches in the training process itself?", "",
       "https://pytorch.org/docs/stable/data.html#single-and-multi-process-data-loading"},
      {"pin_memory", F::kPyTorch, "Are host-to-device copies made from pageable (unpinned) memory?", "",
       "https://pytorch.org/docs/stable/data.html#memory-pinning"},
      {"step_gaps", F::kAny, "Are there gaps between steps (the host busy with something else)?", kGpuGuide,
       kPyTorchTuning},
      {"kernel_launch_bound", F::kTensorFlow, "Is the GPU waiting for the host to launch kernels?", kGpuGuide, ""},
      {"cuda_graphs", F::kPyTorch, "Is the GPU waiting for the host to launch kernels (CUDA graphs would replay them)?",
       "", "https://pytorch.org/docs/stable/notes/cuda.html#cuda-graphs"},
      {"host_thread_contention", F::kTensorFlow,
       "Do the GPU launch threads compete with tf.data for the CPU (TF_GPU_THREAD_MODE=gpu_private)?", kGpuGuide, ""},
      {"small_kernels", F::kAny, "Are kernels so short that launch latency dominates?", kGpuGuide, kPyTorchTuning},
      {"xla_fusion", F::kTensorFlow, "Would XLA fuse the many small element-wise ops?",
       "https://www.tensorflow.org/xla", ""},
      {"torch_compile", F::kPyTorch, "Would torch.compile fuse the many small element-wise kernels?", "",
       "https://pytorch.org/docs/stable/generated/torch.compile.html"},
      {"host_ops_on_gpu_run", F::kTensorFlow, "Do ops that could run on the GPU run on the host?", kGpuGuide, ""},
      {"mixed_precision", F::kTensorFlow,
       "Do Tensor-Core-eligible ops run in FP32 (mixed precision would use Tensor Cores)?",
       "https://www.tensorflow.org/guide/mixed_precision", ""},
      {"amp", F::kPyTorch, "Do Tensor-Core-eligible ops run in FP32 (autocast would use Tensor Cores)?", "",
       "https://pytorch.org/docs/stable/amp.html"},
      {"tf32", F::kAny, "On Ampere or later, do FP32 matmuls and convolutions skip TF32 Tensor Cores?",
       "https://www.tensorflow.org/api_docs/python/tf/config/experimental/enable_tensor_float_32_execution",
       "https://pytorch.org/docs/stable/notes/cuda.html#tensorfloat-32-tf32-on-ampere-and-later-devices"},
      {"multi_gpu_imbalance", F::kAny, "Are the hosts or ranks of a multi-GPU run unevenly busy (a straggler)?",
       kGpuGuide, "https://pytorch.org/docs/stable/notes/ddp.html"},
      {"allreduce_time", F::kAny, "How long do collectives (AllReduce) take per step?", kGpuGuide,
       "https://pytorch.org/docs/stable/notes/ddp.html"},
      {"eager_execution", F::kTensorFlow, "Do ops run eagerly, op by op, outside tf.function?",
       "https://www.tensorflow.org/guide/function", ""},
      {"memory_near_capacity", F::kAny, "Is the peak memory in use close to the device's capacity?",
       "https://www.tensorflow.org/guide/profiler#memory_profile_tool",
       "https://pytorch.org/docs/stable/notes/cuda.html#memory-management",
       "https://docs.jax.dev/en/latest/gpu_memory_allocation.html"},
      {"memcpy_heavy", F::kAny, "Do host/device copies take a large share of the step?", kGpuGuide,
       "https://pytorch.org/docs/stable/notes/cuda.html#use-pinned-memory-buffers"},
  };
  return kRules;
}

const RuleDef* FindRule(std::string_view id) {
  for (const RuleDef& r : RuleCatalogue())
    if (r.id == id) return &r;
  return nullptr;
}

const std::vector<ThresholdDef>& ThresholdCatalogue() {
  static const std::vector<ThresholdDef> kThresholds = {
      {"severity.high_percent", 20, "a finding costing this % of the step time or more is high",
       "xprof: HIGHLY input-bound at 20%"},
      {"severity.medium_percent", 5, "... this % or more is medium (below: low)",
       "xprof: MODERATELY input-bound at 5%"},
      {"finding.min_step_percent", 1, "a rule whose time at stake is under this % of the step passes (noise)", "ours"},
      {"input_bound.min_percent", 5, "input time, % of the step time, from which input_bound fires",
       "xprof: input-bound from 5%"},
      {"dataloader_workers.min_percent", 5, "main-process DataLoader time, % of the step time", "ours (input_bound's)"},
      {"pin_memory.min_percent", 1, "pageable host-to-device copy time, % of the step time", "ours"},
      {"step_gaps.min_percent", 10,
       "average gap between consecutive steps, % of the time from one step's start to the next's", "ours"},
      {"kernel_launch.min_percent", 3,
       "kernel launch time, % of the step time (kernel_launch_bound, cuda_graphs, host_thread_contention)",
       "xprof: moderately kernel-launch bound from 3%"},
      {"small_kernels.max_avg_us", 10, "a kernel whose average duration is under this is small",
       "ours (a few launch latencies)"},
      {"small_kernels.min_launch_percent", 50, "small kernels' launches, % of all launches", "ours"},
      {"small_kernels.launch_overhead_us", 5, "host time one launch costs, for the time at stake",
       "ours (CUDA launch latency: a few us)"},
      {"fusion.min_elementwise_percent", 30,
       "element-wise kernels' time, % of all kernel time (xla_fusion, torch_compile)", "ours"},
      {"host_ops_on_gpu_run.min_percent", 10, "host compute time on a GPU run, % of the step time", "ours"},
      {"mixed_precision.min_percent", 10,
       "kernel time of Tensor-Core-eligible ops in kernels not using Tensor Cores, % of all kernel time "
       "(mixed_precision, amp, tf32)",
       "ours (the overview's PyTorch Tensor Core statement)"},
      {"mixed_precision.speedup", 2, "how much faster Tensor Cores run those kernels, for the time at stake",
       "ours (conservative)"},
      {"allreduce_time.min_percent", 10, "device collective time, % of the step time", "ours"},
      {"eager_execution.min_percent", 10, "op time in eager execution, % of all op time",
       "xprof: the eager statement from 10%"},
      {"memory_near_capacity.min_percent", 85,
       "peak memory, % of the capacity (TensorFlow: the allocator's limit; PyTorch: the device's memory)", "ours"},
      {"memory_near_capacity.high_percent", 95, "... from this % the finding is high", "ours"},
      {"memcpy_heavy.min_percent", 10,
       "host-to-device, device-to-host and device-to-device copy time, % of the step time", "ours"},
  };
  return kThresholds;
}

void AdviseOptions::Set(std::string_view assignment) {
  const size_t eq = assignment.find('=');
  if (eq == std::string_view::npos)
    throw std::invalid_argument("--threshold wants NAME=VALUE, got '" + std::string(assignment) + "'");
  const std::string_view name = assignment.substr(0, eq), text = assignment.substr(eq + 1);
  const auto& all = ThresholdCatalogue();
  if (std::none_of(all.begin(), all.end(), [&](const ThresholdDef& t) { return t.name == name; }))
    throw std::invalid_argument("--threshold: no threshold named '" + std::string(name) +
                                "' (docs/advise.md lists them; `advise --verbose` shows those in force)");
  double value = 0;
  if (!absl::SimpleAtod(absl::string_view(text.data(), text.size()), &value) || !(value >= 0) || value > 1e12)
    throw std::invalid_argument("--threshold " + std::string(name) + ": '" + std::string(text) +
                                "' is not a number from 0 to 1e12");
  overrides_[std::string(name)] = value;
}

double AdviseOptions::Get(std::string_view name) const {
  if (auto it = overrides_.find(name); it != overrides_.end()) return it->second;
  for (const ThresholdDef& t : ThresholdCatalogue())
    if (t.name == name) return t.value;
  throw std::logic_error("no advisor threshold named " + std::string(name));
}

}  // namespace tfprof
