// Is the GPU kept busy: kernel launches, launch-thread contention, tiny
// kernels, fusion, host ops of a GPU run, copies.
#include <algorithm>
#include <vector>

#include "fmt/format.h"
#include "lib/advise/rules.h"

namespace tfprof {
namespace {

void AddKernelEvidence(Finding& f, const std::vector<KernelShare>& top, std::string_view label) {
  for (const KernelShare& k : top)
    f.evidence.push_back({std::string(label) + ": " + ShortKernelName(k.name) + (k.op.empty() ? "" : " (" + k.op + ")"),
                          fmt::format("{} launches, {}", k.launches, Millis(k.ms)), "kernel-stats"});
}

}  // namespace

void KernelLaunchRule(RuleSink& sink, std::string_view id) {
  if (NoGpu(sink, id)) return;
  const AdviseInputs& in = sink.in;
  if (std::string why = NoStepsReason(in); !why.empty()) return sink.Undecided(id, why);
  const double pct = in.overview.bottleneck.kernel_launch_percent, ms = in.CategoryMs(Category::kKernelLaunch);
  const double min = sink.Threshold("kernel_launch.min_percent");
  if (pct < min) return sink.PassBelow(id, "kernel launch", pct, " of the step time", min);
  // A launch takes microseconds; launch time of a tenth of a millisecond or
  // more per kernel is other host work inside the GPU ops: first-run setup
  // (cuDNN autotuning, cuBLAS/cuRAND handles) or synchronous ops (a TF1
  // timeline of one session.run: 688 ms for 7 launches).
  constexpr double kSetupMsPerLaunch = 0.1;
  const double launches = in.device_steps ? static_cast<double>(in.kernels.launches) / in.device_steps : 0;
  if (launches > 0 && ms / launches >= kSetupMsPerLaunch) {
    Finding& f = sink.Fire(
        id, ms,
        fmt::format("The GPU waits {} of the step time ({} per step) while the host runs its ops, {} per kernel "
                    "launched: far more than launching takes, so it is setup or synchronous work, not launch "
                    "overhead.",
                    Percent(pct), Millis(ms), Millis(ms / launches)));
    f.evidence.push_back({"kernel launch time, % of the step time", Percent(pct), "overview"});
    f.evidence.push_back({"kernel launches per step and GPU", fmt::format("{:.0f}", launches), "kernel-stats"});
    f.advice =
        "Profile a step after warm-up: the first run of an op autotunes (cuDNN) and creates library handles "
        "(cuBLAS, cuRAND). If it persists, look for ops that wait for the GPU (copies to the host, .numpy(), "
        "print of tensors) in the step.";
    return;
  }
  Finding& f = sink.Fire(
      id, ms,
      fmt::format("The GPU waits for kernel launches {} of the step time ({} per step).", Percent(pct), Millis(ms)));
  f.evidence.push_back({"kernel launch time, % of the step time", Percent(pct), "overview"});
  f.evidence.push_back(
      {"device compute, % of the step time", Percent(in.overview.bottleneck.compute_percent), "overview"});
  if (in.device_steps)
    f.evidence.push_back(
        {"kernel launches per step and GPU",
         fmt::format("{:.0f}", static_cast<double>(in.kernels.launches) / static_cast<double>(in.device_steps)),
         "kernel-stats"});
  if (in.pytorch) {
    if (in.ops.pytorch.cuda_graph_launches)
      f.evidence.push_back(
          {"CUDA graph replays (cudaGraphLaunch)", std::to_string(in.ops.pytorch.cuda_graph_launches), "advise"});
    f.advice = in.ops.pytorch.cuda_graph_launches
                   ? "CUDA graphs are already replayed, but launches still cost this much: capture more of the step "
                     "in them (the optimizer step, the loss), fuse small ops (torch.compile), use larger batches."
                   : "Replay the step's kernels from a CUDA graph (torch.compile(mode=\"reduce-overhead\"), or "
                     "torch.cuda.graph / torch.cuda.make_graphed_callables): one launch instead of one per kernel. "
                     "Fusing small ops (torch.compile) and larger batches also leave fewer launches per sample.";
  } else if (in.jax) {
    f.advice =
        "Launch fewer, larger executables: put the whole step under one jax.jit, replace Python loops with "
        "jax.lax.scan / fori_loop, use larger batches.";
  } else {
    f.advice =
        "Launch fewer, larger kernels: compile the step with XLA (tf.function(jit_compile=True)), use larger "
        "batches; keep the launch threads off busy cores (TF_GPU_THREAD_MODE=gpu_private, see "
        "host_thread_contention).";
  }
}

void HostThreadContentionRule(RuleSink& sink) {
  constexpr std::string_view kId = "host_thread_contention";
  if (NoGpu(sink, kId)) return;
  const AdviseInputs& in = sink.in;
  if (in.jax) return sink.NotApplicable(kId, "JAX: TensorFlow's GPU launch threads (TF_GPU_THREAD_MODE) do not run");
  if (std::string why = NoStepsReason(in); !why.empty()) return sink.Undecided(kId, why);
  const double pct = in.overview.bottleneck.kernel_launch_percent, min = sink.Threshold("kernel_launch.min_percent");
  if (pct < min) return sink.PassBelow(kId, "kernel launch", pct, " of the step time", min);
  if (!in.overview.input.tf_data_in_use)
    return sink.Pass(kId, fmt::format("kernel launch {} of the step time, but no tf.data work on the host competes "
                                      "with the launch threads",
                                      Percent(pct)));
  const double ms = in.CategoryMs(Category::kKernelLaunch);
  Finding& f = sink.Fire(kId, ms,
                         fmt::format("Kernel launches take {} of the step while tf.data works on the same cores: the "
                                     "GPU launch threads may be starved.",
                                     Percent(pct)));
  f.evidence.push_back({"kernel launch time, % of the step time", Percent(pct), "overview"});
  f.evidence.push_back({"tf.data reads or preprocesses on the host", "yes", "input-pipeline"});
  f.advice =
      "Set TF_GPU_THREAD_MODE=gpu_private (each GPU gets its own launch threads; TF_GPU_THREAD_COUNT sets how "
      "many), and keep tf.data from taking every core (options.threading.private_threadpool_size).";
}

void SmallKernelsRule(RuleSink& sink) {
  constexpr std::string_view kId = "small_kernels";
  if (NoGpu(sink, kId)) return;
  const AdviseInputs& in = sink.in;
  const KernelAggregates& k = in.kernels;
  if (k.launches == 0) return sink.Undecided(kId, "no kernel events on the GPU planes");
  const double max_us = sink.Threshold("small_kernels.max_avg_us");
  const double pct = 100.0 * static_cast<double>(k.small_launches) / static_cast<double>(k.launches);
  const double min = sink.Threshold("small_kernels.min_launch_percent");
  if (pct < min)
    return sink.Pass(kId, fmt::format("{} of the launches are of kernels under {} on average (fires from {})",
                                      Percent(pct), Micros(max_us), Percent(min)));
  std::optional<double> ms;
  if (in.device_steps && NoStepsReason(in).empty())
    ms = static_cast<double>(k.small_launches) / static_cast<double>(in.device_steps) *
         sink.Threshold("small_kernels.launch_overhead_us") / 1e3;
  Finding& f = sink.Fire(kId, ms,
                         fmt::format("{} of {} kernel launches run under {} on average: launch latency, not the "
                                     "math, sets their pace.",
                                     k.small_launches, k.launches, Micros(max_us)));
  f.evidence.push_back({"launches of small kernels, % of all", Percent(pct), "kernel-stats"});
  f.evidence.push_back({"their average duration",
                        Micros(k.small_ms * 1e3 / static_cast<double>(std::max<uint64_t>(k.small_launches, 1))),
                        "kernel-stats"});
  if (ms)
    f.evidence.push_back(
        {"time at stake: launches per step x launch latency",
         fmt::format("{:.0f} x {} = {}", static_cast<double>(k.small_launches) / static_cast<double>(in.device_steps),
                     Micros(sink.Threshold("small_kernels.launch_overhead_us")), Millis(*ms)),
         "advise"});
  AddKernelEvidence(f, k.top_small, "small kernel");
  f.advice = in.pytorch ? "Fuse the small ops (torch.compile), replay them from a CUDA graph (cuda_graphs), or give "
                          "each kernel more work (larger batches; optimizers with foreach=True or fused=True)."
             : in.jax   ? "Give each kernel more work (larger batches), jit larger functions so XLA fuses more, and "
                          "replace Python loops with jax.lax.scan."
                        : "Fuse the small ops (XLA: tf.function(jit_compile=True)) or give each kernel more work "
                          "(larger batches).";
}

void FusionRule(RuleSink& sink, std::string_view id) {
  if (NoGpu(sink, id)) return;
  const AdviseInputs& in = sink.in;
  const KernelAggregates& k = in.kernels;
  if (k.launches == 0 || k.ms <= 0) return sink.Undecided(id, "no kernel time on the GPU planes");
  if (!in.pytorch && in.xla_compiled)
    return sink.Pass(id, "the device ops belong to XLA modules: the program is already compiled by XLA");
  if (in.pytorch && k.triton)
    return sink.Pass(id, "torch.compile's Triton kernels (triton_*) are present: the model is already compiled");
  const double pct = 100.0 * k.elementwise_ms / k.ms, min = sink.Threshold("fusion.min_elementwise_percent");
  if (pct < min) return sink.PassBelow(id, "element-wise kernels take", pct, " of the kernel time", min);
  std::optional<double> ms;
  if (in.device_steps && NoStepsReason(in).empty()) ms = in.PerDeviceStepMs(k.elementwise_ms);
  Finding& f = sink.Fire(id, ms,
                         fmt::format("Element-wise kernels take {} of the GPU's kernel time ({} launches): each reads "
                                     "and writes memory that one fused kernel would keep in registers.",
                                     Percent(pct), k.elementwise_launches));
  f.evidence.push_back({"element-wise kernel time, % of all kernel time", Percent(pct), "kernel-stats"});
  f.evidence.push_back({"element-wise launches", std::to_string(k.elementwise_launches), "kernel-stats"});
  AddKernelEvidence(f, k.top_elementwise, "element-wise kernel");
  f.advice = in.pytorch ? "Compile the model or the step with torch.compile: Inductor fuses chains of element-wise "
                          "ops into single Triton kernels. The time at stake is an upper bound (the fused kernels "
                          "still run)."
                        : "Compile the step with XLA (tf.function(jit_compile=True), or TF_XLA_FLAGS="
                          "--tf_xla_auto_jit=2): it fuses chains of element-wise ops. The time at stake is an upper "
                          "bound (the fused kernels still run).";
}

void HostOpsOnGpuRunRule(RuleSink& sink) {
  constexpr std::string_view kId = "host_ops_on_gpu_run";
  if (NoGpu(sink, kId)) return;
  const AdviseInputs& in = sink.in;
  if (std::string why = NoStepsReason(in); !why.empty()) return sink.Undecided(kId, why);
  if (!in.host_tf_ops)
    return sink.NotApplicable(kId,
                              "no TensorFlow ops on the host: host compute is the framework's own dispatch and "
                              "Python");
  const double pct = in.overview.steps.category_percent[static_cast<size_t>(Category::kHostCompute)];
  const double ms = in.CategoryMs(Category::kHostCompute), min = sink.Threshold("host_ops_on_gpu_run.min_percent");
  if (pct < min) return sink.PassBelow(kId, "host compute", pct, " of the step time", min);
  Finding& f = sink.Fire(kId, ms,
                         fmt::format("TensorFlow ops compute on the host {} of the step time ({} per step) while the "
                                     "GPU waits.",
                                     Percent(pct), Millis(ms)));
  f.evidence.push_back({"host compute, % of the step time", Percent(pct), "overview"});
  std::vector<const OpMetrics*> ops;
  for (const OpMetrics& m : in.ops.host_ops.rows())
    if (!m.is_idle() && m.device_launching_occurrences == 0) ops.push_back(&m);  // Not a GPU op's launch.
  std::stable_sort(ops.begin(), ops.end(),
                   [](const OpMetrics* a, const OpMetrics* b) { return a->self_time_ps > b->self_time_ps; });
  for (size_t i = 0; i < ops.size() && i < 3; ++i)
    f.evidence.push_back({"host op: " + ops[i]->name + " (" + ops[i]->category + ")",
                          Millis(static_cast<double>(ops[i]->self_time_ps) / 1e9) + " self time", "op-stats"});
  f.advice =
      "Find why these ops run on the host (tf.debugging.set_log_device_placement(True)): ops without a GPU kernel, "
      "int32 or string tensors, code under tf.device('/CPU:0'). Move preprocessing into tf.data, or use ops that "
      "have GPU kernels.";
}

void MemcpyHeavyRule(RuleSink& sink) {
  constexpr std::string_view kId = "memcpy_heavy";
  if (NoGpu(sink, kId)) return;
  const AdviseInputs& in = sink.in;
  if (std::string why = NoStepsReason(in); !why.empty()) return sink.Undecided(kId, why);
  const double h2d = in.overview.steps.host_to_device_ms.avg, d2h = in.CategoryMs(Category::kOutput),
               d2d = in.CategoryMs(Category::kDeviceToDevice);
  const double ms = h2d + d2h + d2d, pct = in.PercentOfStep(ms), min = sink.Threshold("memcpy_heavy.min_percent");
  if (pct < min) return sink.PassBelow(kId, "copies take", pct, " of the step time", min);
  Finding& f = sink.Fire(
      kId, ms,
      fmt::format("Copies between host and device take {} of the step time ({} per step).", Percent(pct), Millis(ms)));
  f.evidence.push_back({"host to device per step", Millis(h2d), "input-pipeline"});
  f.evidence.push_back({"device to host (output) per step", Millis(d2h), "overview"});
  f.evidence.push_back({"device to device per step", Millis(d2d), "overview"});
  f.advice = in.jax ? "Keep arrays on the device between steps (no jax.device_get or np.asarray in the step), put "
                      "the next batch on the device while the current step runs (jax.device_put ahead of time), "
                      "return fewer or smaller outputs per step."
             : in.pytorch
                 ? "Keep tensors on the GPU between steps; avoid .item(), .cpu() and .numpy() inside the step; "
                   "copy batches from pinned memory with non_blocking=True so copies overlap compute."
                 : "Keep tensors on the GPU between steps (no .numpy() in the step); prefetch batches to the "
                   "device (tf.data.experimental.prefetch_to_device); return fewer or smaller outputs per step.";
}

}  // namespace tfprof
