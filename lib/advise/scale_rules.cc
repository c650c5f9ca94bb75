// Many GPUs and the program around them: stragglers, collectives, eager
// execution, memory headroom.
#include <algorithm>
#include <numeric>
#include <vector>

#include "absl/strings/ascii.h"
#include "fmt/format.h"
#include "lib/advise/rules.h"

namespace tfprof {
namespace {

// GPU memory, not the host's: TensorFlow's GPU_<n>_bfc (not gpu_host_bfc),
// PyTorch's cuda_<n>.
bool IsDeviceAllocator(std::string_view memory_id, MemorySource source) {
  // PyTorch names a device as torch.device prints it (PyTorchDeviceName):
  // the accelerators' (cuda:0, hip:0 on ROCm, xpu:0, ...), not the host
  // memory kinds (cpu, mkldnn, ideep, meta, ...).
  if (source == MemorySource::kPyTorch) {
    static constexpr std::string_view kAccelerators[] = {
        "cuda:", "hip:", "xpu:", "mps:", "mtia:", "hpu:", "xla:", "maia:", "ipu:", "privateuseone:"};
    for (std::string_view a : kAccelerators)
      if (memory_id.substr(0, a.size()) == a) return true;
    return false;
  }
  const std::string id = absl::AsciiStrToLower(absl::string_view(memory_id.data(), memory_id.size()));
  return (id.rfind("gpu_", 0) == 0 && id.find("host") == std::string::npos) || id.rfind("cuda", 0) == 0;
}

// One host, several GPUs (MirroredStrategy, one process driving all): each
// synchronised step waits for the busiest GPU, so its busy time over the
// mean of the GPUs in use is what balancing could win. A GPU is late as a
// host is (docs/hosts.md): busy 10% of the median GPU's time or more over
// it. GPUs that ran (almost) no kernels are not in use: they are left out
// of the comparison and reported as a risk of their own (idle hardware, or
// GPUs of other processes the profiler saw).
void GpusOfOneHost(RuleSink& sink) {
  constexpr std::string_view kId = "multi_gpu_imbalance";
  const AdviseInputs& in = sink.in;
  const std::vector<uint64_t>& busy = in.run.hosts.front().ops.device_busy_ps;
  if (std::string why = NoStepsReason(in); !why.empty()) return sink.Undecided(kId, why);
  const double most = static_cast<double>(*std::max_element(busy.begin(), busy.end())) / 1e9;
  std::vector<size_t> used, unused;
  for (size_t g = 0; g < busy.size(); ++g)
    (static_cast<double>(busy[g]) / 1e9 > 0.01 * most ? used : unused).push_back(g);
  auto gpu_ms = [&](size_t g) { return static_cast<double>(busy[g]) / 1e9; };
  auto add_evidence = [&](Finding& f) {
    for (size_t g = 0; g < busy.size(); ++g)
      f.evidence.push_back(
          {fmt::format("GPU {} busy time (kernels, whole profile)", g), Millis(gpu_ms(g)), "op-stats"});
  };
  if (used.size() >= 2) {
    std::vector<double> ms;
    for (size_t g : used) ms.push_back(gpu_ms(g));
    const double median = Median(ms),
                 mean = std::accumulate(ms.begin(), ms.end(), 0.0) / static_cast<double>(ms.size());
    const size_t busiest = used[static_cast<size_t>(std::max_element(ms.begin(), ms.end()) - ms.begin())];
    const double over = gpu_ms(busiest) - median;
    if (over >= kLateHostFraction * median && in.host_steps) {
      Finding& f = sink.Fire(kId, (gpu_ms(busiest) - mean) / static_cast<double>(in.host_steps),
                             fmt::format("The {} GPUs in use on this host are unevenly busy: GPU {} works {} more "
                                         "than the median GPU in the profile, and every synchronised step waits for "
                                         "the busiest.",
                                         used.size(), busiest, Millis(over)));
      add_evidence(f);
      f.evidence.push_back({"median busy time of the GPUs in use", Millis(median), "advise"});
      f.advice = in.pytorch ? "Give every GPU the same work: equal batch shards per rank, no rank-0-only work in the "
                              "step; one process per GPU (DistributedDataParallel) rather than DataParallel."
                            : "Give every GPU the same work: a global batch divisible by the number of replicas, "
                              "equal shards (tf.distribute's dataset distribution), no ops pinned to one device.";
      return;
    }
    if (unused.empty())
      return sink.Pass(kId, fmt::format("{} GPUs of one host evenly busy: the busiest {} over the median's {} (fires "
                                        "from {:.0f}% of it)",
                                        used.size(), Millis(over), Millis(median), 100 * kLateHostFraction));
  }
  if (unused.empty() || used.empty()) return sink.Undecided(kId, "no GPU of this host ran kernels in the profile");
  Finding& f = sink.FireRisk(kId, FindingSeverity::kLow,
                             fmt::format("{} of the {} GPUs the profiler saw on this host ran no kernels (under 1% of "
                                         "the busiest's time): the run uses {} of them.",
                                         unused.size(), busy.size(), used.size()));
  add_evidence(f);
  f.advice = in.pytorch ? "If the job should use them, start one rank per GPU (torchrun --nproc_per_node); if they "
                          "belong to other jobs, nothing to do."
                        : "If the job should use them, distribute it (tf.distribute.MirroredStrategy over all GPUs, "
                          "or one worker per GPU); if they belong to other workers or jobs (CUDA_VISIBLE_DEVICES "
                          "hides them from this process), nothing to do.";
}

}  // namespace

void MultiGpuImbalanceRule(RuleSink& sink) {
  constexpr std::string_view kId = "multi_gpu_imbalance";
  const AdviseInputs& in = sink.in;
  const HostsAnalysis& h = in.hosts;
  if (h.compared < 2) {
    if (in.run.hosts.size() == 1 && in.run.hosts.front().ops.device_busy_ps.size() > 1) return GpusOfOneHost(sink);
    return sink.NotApplicable(
        kId, fmt::format("{} host(s) with steps to compare, at most one GPU each: needs two or more hosts or GPUs",
                         h.compared));
  }
  if (h.stragglers.empty())
    return sink.Pass(
        kId, fmt::format("{} hosts compared, no straggler (median step {})", h.compared, Millis(h.median_step_ms)));
  const HostRow* worst = nullptr;
  for (const HostRow& r : h.rows)
    if (r.host == h.stragglers.front()) worst = &r;
  if (!worst) return sink.Undecided(kId, "the straggler's row is missing");
  // A host flagged for its step time alone (not busier) costs its extra step time.
  const double extra_ms = std::max(worst->late_ms, worst->step_avg_ms - h.median_step_ms);
  Finding& f =
      sink.Fire(kId, extra_ms,
                fmt::format("{} of {} hosts straggle; the slowest, {}, takes {} per step more than the "
                            "median host (busy {} longer), and every synchronised step waits for it.",
                            h.stragglers.size(), h.compared, worst->host, Millis(extra_ms), Millis(worst->late_ms)));
  f.evidence.push_back({"stragglers", fmt::format("{}", fmt::join(h.stragglers, ", ")), "hosts"});
  f.evidence.push_back({worst->host + ": step time vs the median host",
                        fmt::format("{:+.1f}%", worst->step_vs_median_percent), "hosts"});
  f.evidence.push_back({worst->host + ": busy time per step", Millis(worst->busy_avg_ms), "hosts"});
  f.evidence.push_back({"median host's busy time per step", Millis(h.median_busy_ms), "hosts"});
  f.advice =
      "Find what the straggler does differently (tfprof-analyze hosts --per-step, trace --hosts NAME): its input "
      "(a slower loader or shard), extra work on one rank (logging, evaluation), a slower GPU or link. Balance the "
      "data shards; keep rank-0-only work off the step.";
}

void AllreduceTimeRule(RuleSink& sink) {
  constexpr std::string_view kId = "allreduce_time";
  if (NoGpu(sink, kId)) return;
  const AdviseInputs& in = sink.in;
  if (std::string why = NoStepsReason(in); !why.empty()) return sink.Undecided(kId, why);
  const double pct = in.overview.bottleneck.collectives_percent, ms = in.CategoryMs(Category::kDeviceCollectives);
  if (pct == 0 && in.ops.env.device_core_count <= 1 && in.run.hosts.size() <= 1)
    return sink.NotApplicable(kId, "one GPU: no collectives");
  if (pct == 0)
    return sink.Undecided(kId,
                          "no device collectives recorded: collectives on the host (gloo, or NCCL without "
                          "kernels in the trace) are not measured");
  const double min = sink.Threshold("allreduce_time.min_percent");
  if (pct < min) return sink.PassBelow(kId, "device collectives", pct, " of the step time", min);
  Finding& f = sink.Fire(kId, ms,
                         fmt::format("Device collectives (AllReduce and others) take {} of the step time ({} per "
                                     "step) without overlapping compute.",
                                     Percent(pct), Millis(ms)));
  f.evidence.push_back({"device collectives, % of the step time", Percent(pct), "overview"});
  f.evidence.push_back({"per step", Millis(ms), "steps"});
  f.evidence.push_back(
      {"achieved bandwidth", "not checked: the capture records no message sizes per collective", "advise"});
  f.advice = in.jax       ? "Let XLA overlap the collectives with compute (shard with jax.sharding / pjit so they are "
                            "scheduled inside the step, XLA_FLAGS=--xla_gpu_enable_latency_hiding_scheduler=true), "
                            "reduce in bfloat16, and check NCCL's topology (NCCL_DEBUG=INFO)."
             : in.pytorch ? "Overlap gradient AllReduce with the backward pass (DDP does; tune bucket_cap_mb), "
                            "communicate in bf16 (DDP comm hooks), accumulate gradients over several micro-batches "
                            "(no_sync), check NCCL uses NVLink/InfiniBand (NCCL_DEBUG=INFO)."
                          : "Overlap and batch the AllReduce (MirroredStrategy packs gradients; try "
                            "tf.distribute.experimental.CommunicationOptions with bytes_per_pack), reduce in 16-bit, "
                            "and check NCCL's topology (NCCL_DEBUG=INFO).";
}

void EagerExecutionRule(RuleSink& sink) {
  constexpr std::string_view kId = "eager_execution";
  const AdviseInputs& in = sink.in;
  // Eager self time on each side: a host op and the kernels it launched
  // are the same work, so the larger side (per host step, per GPU step)
  // is what is at stake, not their sum.
  uint64_t ops_ps = 0, host_eager_ps = 0, device_eager_ps = 0;
  for (const OpMetricsDb* db : {&in.ops.host_ops, &in.ops.device_ops})
    for (const OpMetrics& m : db->rows()) {
      if (m.is_idle()) continue;
      ops_ps += m.self_time_ps;
      if (m.is_eager) (db == &in.ops.host_ops ? host_eager_ps : device_eager_ps) += m.self_time_ps;
    }
  if (in.jax) return sink.NotApplicable(kId, "JAX: ops run under jax.jit or op by op, not tf.function");
  if (ops_ps == 0) return sink.Undecided(kId, "no TensorFlow op time in the capture");
  const double host = in.overview.host_eager_percent, device = in.overview.device_eager_percent;
  const double pct = std::max(host, device), min = sink.Threshold("eager_execution.min_percent");
  if (pct < min)
    return sink.Pass(kId, fmt::format("eager op time: host {}, device {} (fires from {})", Percent(host),
                                      Percent(device), Percent(min)));
  std::optional<double> ms;
  if (in.host_steps && NoStepsReason(in).empty())
    ms = std::max(in.PerStepMs(static_cast<double>(host_eager_ps) / 1e9),
                  in.PerDeviceStepMs(static_cast<double>(device_eager_ps) / 1e9));
  Finding& f = sink.Fire(kId, ms,
                         fmt::format("Ops run eagerly, one by one from Python: {} of the host's op time, {} of the "
                                     "device's.",
                                     Percent(host), Percent(device)));
  f.evidence.push_back({"host op time in eager execution", Percent(host), "overview"});
  f.evidence.push_back({"device op time in eager execution", Percent(device), "overview"});
  f.advice =
      "Run the training step as a graph: decorate it with @tf.function (Keras fit does so unless "
      "run_eagerly=True); keep Python side effects and .numpy() out of it.";
}

void MemoryNearCapacityRule(RuleSink& sink) {
  constexpr std::string_view kId = "memory_near_capacity";
  const AdviseInputs& in = sink.in;
  struct Worst {
    std::string host, allocator;
    double peak = 0, capacity = 0, pct = -1;
    std::string capacity_is;
  } worst;
  std::string no_profile;
  bool tf1 = false;
  for (const HostPartials& h : in.run.hosts) {
    if (!h.memory.no_profile_reason.empty() && no_profile.empty()) no_profile = h.memory.no_profile_reason;
    tf1 = tf1 || (h.memory.source == MemorySource::kTf1Timeline && !h.memory.allocators.empty());
    for (const AllocatorMemoryProfile& a : h.memory.allocators) {
      if (!IsDeviceAllocator(a.memory_id, h.memory.source)) continue;
      double peak = static_cast<double>(a.peak_bytes), capacity = static_cast<double>(a.capacity_bytes);
      std::string capacity_is = "the allocator's limit at the peak (in use + free)";
      if (h.memory.source == MemorySource::kPyTorch) {
        // PyTorch's capacity in the profile is what it had reserved; the
        // limit is the device's memory.
        peak = static_cast<double>(std::max(a.pytorch.peak_reserved_bytes, a.peak_bytes));
        capacity = static_cast<double>(h.ops.env.first_device.memory_bytes);
        if (capacity <= 0) capacity = static_cast<double>(in.ops.env.first_device.memory_bytes);
        capacity_is = "the device's memory";
      }
      if (capacity <= 0) continue;
      const double pct = 100 * peak / capacity;
      if (pct > worst.pct) worst = {h.host, a.memory_id, peak, capacity, pct, capacity_is};
    }
  }
  if (worst.pct < 0)
    return sink.Undecided(kId, tf1 ? "a TensorFlow 1 timeline records the tensors alive, not the GPU's memory limit"
                               : no_profile.empty() ? "no GPU allocator with a known capacity in the memory profile"
                                                    : "no GPU memory profile: " + no_profile);
  const double min = sink.Threshold("memory_near_capacity.min_percent");
  if (worst.pct < min)
    return sink.Pass(kId,
                     fmt::format("peak {} of {} on {} {} ({}; fires from {})", Bytes(worst.peak), Bytes(worst.capacity),
                                 worst.host, worst.allocator, Percent(worst.pct), Percent(min)));
  const FindingSeverity severity = worst.pct >= sink.Threshold("memory_near_capacity.high_percent")
                                       ? FindingSeverity::kHigh
                                       : FindingSeverity::kMedium;
  Finding& f =
      sink.FireRisk(kId, severity,
                    fmt::format("{} peaks at {} of {} ({}): little headroom before out-of-memory, and "
                                "no room for a larger batch.",
                                worst.allocator, Bytes(worst.peak), Bytes(worst.capacity), Percent(worst.pct)));
  f.evidence.push_back({"allocator", worst.host + " " + worst.allocator, "memory"});
  f.evidence.push_back({"peak memory", Bytes(worst.peak), "memory"});
  f.evidence.push_back({"capacity: " + worst.capacity_is, Bytes(worst.capacity), "memory"});
  f.advice = in.jax ? "Lower the peak: smaller micro-batches with gradient accumulation, rematerialisation "
                      "(jax.checkpoint), bfloat16; XLA_PYTHON_CLIENT_MEM_FRACTION sets how much JAX preallocates. The "
                      "memory command shows the allocations alive at the peak."
             : in.pytorch
                 ? "Lower the peak: smaller micro-batches with gradient accumulation, activation checkpointing "
                   "(torch.utils.checkpoint), bf16 autocast; fragmentation: PYTORCH_CUDA_ALLOC_CONF="
                   "expandable_segments:True. The memory command shows the ops alive at the peak."
                 : "Lower the peak: a smaller batch, mixed precision, recomputing activations "
                   "(tf.recompute_grad); the memory command shows the allocations alive at the peak.";
}

}  // namespace tfprof
