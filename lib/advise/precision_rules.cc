// Do Tensor-Core-eligible ops use Tensor Cores: mixed precision / AMP, and
// TF32 on Ampere and later.
#include <algorithm>

#include "fmt/format.h"
#include "lib/advise/rules.h"

namespace tfprof {
namespace {

// What moving `unused_ms` of kernel time (the whole profile) onto Tensor
// Cores could win per step, or none without steps.
std::optional<double> TensorCoreGain(const RuleSink& sink, double unused_ms) {
  const AdviseInputs& in = sink.in;
  if (!in.device_steps || !NoStepsReason(in).empty()) return std::nullopt;
  const double speedup = std::max(1.0, sink.Threshold("mixed_precision.speedup"));
  return in.PerDeviceStepMs(unused_ms) * (1 - 1 / speedup);
}

void AddEligibleEvidence(Finding& f, const AdviseInputs& in, double unused_ms) {
  f.evidence.push_back({"kernel time of Tensor-Core-eligible ops not on Tensor Cores, % of kernel time",
                        Percent(100 * unused_ms / in.kernels.ms), "kernel-stats"});
  f.evidence.push_back({"device compute in 32-bit kernels", Percent(in.overview.compute_32bit_percent), "overview"});
  for (const KernelShare& k : in.kernels.top_eligible_unused)
    f.evidence.push_back({"kernel: " + ShortKernelName(k.name) + (k.op.empty() ? "" : " (" + k.op + ")"),
                          fmt::format("{} launches, {}", k.launches, Millis(k.ms)), "kernel-stats"});
}

// Below the threshold on the kernels whose Tensor Core use is known, but
// over it with those whose names cannot tell: the rule cannot decide.
bool UnknownDecides(RuleSink& sink, std::string_view id, double pct, double min) {
  const AdviseInputs& in = sink.in;
  const double unknown = 100 * in.kernels.eligible_unknown_ms / in.kernels.ms;
  if (pct >= min || pct + unknown < min) return false;
  sink.Undecided(id, fmt::format("{} of the kernel time is in kernels of Tensor-Core-eligible ops whose names do not "
                                 "tell whether they use Tensor Cores (XLA's Triton and cuBLASLt GEMMs: gemm_fusion_*, "
                                 "triton_*, cutlass*, nvjet*)",
                                 Percent(unknown)));
  return true;
}

}  // namespace

void MixedPrecisionRule(RuleSink& sink, std::string_view id) {
  if (NoGpu(sink, id)) return;
  const AdviseInputs& in = sink.in;
  if (in.kernels.ms <= 0) return sink.Undecided(id, "no kernel time on the GPU planes");
  const double pct = 100 * in.kernels.eligible_unused_ms / in.kernels.ms;
  const double min = sink.Threshold("mixed_precision.min_percent");
  if (UnknownDecides(sink, id, pct, min)) return;
  if (pct < min)
    return sink.PassBelow(id, "Tensor-Core-eligible ops off Tensor Cores:", pct, " of the kernel time", min);
  Finding& f = sink.Fire(id, TensorCoreGain(sink, in.kernels.eligible_unused_ms),
                         fmt::format("Matmuls and convolutions that could use Tensor Cores run without them: {} of "
                                     "the GPU's kernel time.",
                                     Percent(pct)));
  AddEligibleEvidence(f, in, in.kernels.eligible_unused_ms);
  f.advice = in.jax ? "Compute in bfloat16: cast parameters and activations to jnp.bfloat16 for the forward and "
                      "backward pass and keep float32 master weights (e.g. jmp policies). The time at stake assumes "
                      "Tensor Cores run these kernels mixed_precision.speedup times faster."
             : in.pytorch
                 ? "Run the forward pass under torch.autocast(device_type=\"cuda\", dtype=torch.bfloat16) (float16 "
                   "with torch.amp.GradScaler on GPUs without bfloat16); keep matrix dimensions multiples of 8. The "
                   "time at stake assumes Tensor Cores run these kernels mixed_precision.speedup times faster."
                 : "Enable mixed precision: tf.keras.mixed_precision.set_global_policy(\"mixed_float16\") "
                   "(\"mixed_bfloat16\" on Ampere and later), with a LossScaleOptimizer in custom loops; keep "
                   "dimensions multiples of 8. The time at stake assumes Tensor Cores run these kernels "
                   "mixed_precision.speedup times faster.";
}

void Tf32Rule(RuleSink& sink) {
  constexpr std::string_view kId = "tf32";
  if (NoGpu(sink, kId)) return;
  const AdviseInputs& in = sink.in;
  const DeviceProperties& d = in.ops.env.first_device;
  // TF32 is an Nvidia format (Ampere on); AMD's compute capability counts
  // another way (an MI300X's 9.4).
  if (!d.vendor.empty() && d.vendor != "Nvidia")
    return sink.NotApplicable(kId, fmt::format("the GPU is {}'s: TF32 is Nvidia's (Ampere or later)", d.vendor));
  if (d.compute_cap_major == 0)
    return sink.Undecided(kId, "the capture does not record the GPU's compute capability (TF32 needs 8.0 or later)");
  if (d.compute_cap_major < 8)
    return sink.NotApplicable(
        kId, fmt::format("the GPU ({}) has compute capability {}.{}: TF32 needs Ampere (8.0) "
                         "or later",
                         d.name.empty() ? in.ops.env.device_type : d.name, d.compute_cap_major, d.compute_cap_minor));
  if (in.kernels.ms <= 0) return sink.Undecided(kId, "no kernel time on the GPU planes");
  const double pct = 100 * in.kernels.eligible_unused_fp32_ms / in.kernels.ms;
  const double min = sink.Threshold("mixed_precision.min_percent");
  if (UnknownDecides(sink, kId, pct, min)) return;
  if (pct < min)
    return sink.Pass(kId, fmt::format("FP32 Tensor-Core-eligible kernels off Tensor Cores: {} of the kernel time "
                                      "(fires from {})",
                                      Percent(pct), Percent(min)));
  Finding& f = sink.Fire(kId, TensorCoreGain(sink, in.kernels.eligible_unused_fp32_ms),
                         fmt::format("On a compute capability {}.{} GPU, FP32 matmuls and convolutions run on CUDA "
                                     "cores ({} of the kernel time): TF32 would put them on Tensor Cores with no "
                                     "change to the model.",
                                     d.compute_cap_major, d.compute_cap_minor, Percent(pct)));
  AddEligibleEvidence(f, in, in.kernels.eligible_unused_fp32_ms);
  f.evidence.push_back({"GPU",
                        fmt::format("{} (compute capability {}.{})", d.name.empty() ? in.ops.env.device_type : d.name,
                                    d.compute_cap_major, d.compute_cap_minor),
                        "info"});
  f.advice = in.jax       ? "jax.config.update(\"jax_default_matmul_precision\", \"tensorfloat32\") (or pass "
                            "precision= to the matmuls that tolerate it)."
             : in.pytorch ? "torch.set_float32_matmul_precision(\"high\") (or torch.backends.cuda.matmul.allow_tf32 = "
                            "True) and torch.backends.cudnn.allow_tf32 = True."
                          : "TF32 is on by default since TensorFlow 2.4: make sure nothing calls "
                            "tf.config.experimental.enable_tensor_float_32_execution(False).";
}

}  // namespace tfprof
