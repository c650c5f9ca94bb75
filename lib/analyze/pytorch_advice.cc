#include "lib/analyze/pytorch_advice.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <vector>

#include "fmt/format.h"
#include "lib/summary/pytorch_kernel_rules.h"

namespace tfprof {
namespace {

// Below this share of 16- and 8-bit time in the known-precision compute
// time, suggest mixed precision (the reference's 16-bit threshold).
constexpr double kLowPrecisionThreshold = 10;
// From this share of kernel time in eligible ops off Tensor Cores, say so.
constexpr double kTensorCoreUnusedThreshold = 10;

// Below this share of the step time, device compute is too small for its
// precision or Tensor Core use to matter much (AdviseForPyTorch).
constexpr double kMinorDeviceComputePercent = 5.0;

double Pct(uint64_t part, uint64_t whole) {
  return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

void SetPrecision(const std::vector<KernelReport>& kernels, Overview& o) {
  std::array<uint64_t, 4> ns{};  // By ComputePrecision.
  for (const KernelReport& r : kernels)
    if (!IsCollectiveKernel(r.name)) ns[static_cast<size_t>(r.precision)] += r.total_ns;
  const uint64_t total = ns[0] + ns[1] + ns[2] + ns[3];
  auto pct = [&](ComputePrecision p) { return Pct(ns[static_cast<size_t>(p)], total); };
  o.compute_8bit_percent = pct(ComputePrecision::k8Bit);
  o.compute_16bit_percent = pct(ComputePrecision::k16Bit);
  o.compute_32bit_percent = pct(ComputePrecision::k32Bit);
  o.compute_unknown_precision_percent = pct(ComputePrecision::kUnknown);
  o.precision_statement.clear();
  o.precision_level = "no";
  if (total == 0) return;
  const uint64_t low =
      ns[static_cast<size_t>(ComputePrecision::k8Bit)] + ns[static_cast<size_t>(ComputePrecision::k16Bit)];
  const uint64_t known = low + ns[static_cast<size_t>(ComputePrecision::k32Bit)];
  if (known == 0) {
    o.precision_level = "unknown";
    o.precision_statement =
        "The data type of the device computation is unknown: neither the kernels' names nor their ops' input "
        "types name a floating-point type (integer work, or ops without input types: those need "
        "record_shapes=True).";
  } else if (Pct(low, known) < kLowPrecisionThreshold) {
    o.precision_level = "low_16bit";
    o.precision_statement = fmt::format(
        "Only {:.1f}% of device compute time is in 16-bit or 8-bit kernels ({:.1f}% 32-bit, {:.1f}% of unknown "
        "precision). If the reduced accuracy is acceptable, run more of it in 16-bit with automatic mixed precision "
        "(torch.autocast with torch.bfloat16 or torch.float16).",
        o.compute_8bit_percent + o.compute_16bit_percent, o.compute_32bit_percent, o.compute_unknown_precision_percent);
  }
}

// What to do about float32 matmuls off Tensor Cores on this device, or ""
// when it has none (NVIDIA before Volta).
std::string TensorCoreRemedy(const DeviceProperties& d) {
  if (d.vendor == "AMD")
    return "Run them in bfloat16 or float16 with automatic mixed precision (torch.autocast), which the Matrix Cores "
           "take.";
  if (d.compute_cap_major > 0 && d.compute_cap_major < 7) return "";
  if (d.compute_cap_major == 7)
    return "Run them in float16 with automatic mixed precision (torch.autocast with torch.float16 and a GradScaler): "
           "this GPU's Tensor Cores take float16, not TF32.";
  return "For float32, allow TF32 (torch.backends.cuda.matmul.allow_tf32 = True and torch.backends.cudnn.allow_tf32 = "
         "True, or torch.set_float32_matmul_precision('high')), or use automatic mixed precision (torch.autocast with "
         "torch.bfloat16).";
}

void SetTensorCores(const std::vector<KernelReport>& kernels, const DeviceProperties& device, Overview& o) {
  uint64_t total = 0, unused = 0, unused_narrow = 0;
  std::map<std::string, uint64_t> unused_by_op;
  for (const KernelReport& r : kernels) {
    total += r.total_ns;
    if (r.op_tensor_core_eligible && !r.uses_tensor_core) {
      unused += r.total_ns;
      unused_by_op[r.op_name] += r.total_ns;
      if (r.precision == ComputePrecision::k8Bit || r.precision == ComputePrecision::k16Bit)
        unused_narrow += r.total_ns;
    }
  }
  o.tensor_core_eligible_unused_percent = Pct(unused, total);
  o.tensor_core_statement.clear();
  std::string remedy = TensorCoreRemedy(device);
  // Mostly 16- or 8-bit already: precision is not what keeps them off.
  if (!remedy.empty() && 2 * unused_narrow > unused)
    remedy =
        "Most of them already work in 16 or 8 bits: Tensor Core kernels also need matrix dimensions that are "
        "multiples of 8 and layouts the library supports (or the kernels are hand-written ones whose names do "
        "not say).";
  if (o.tensor_core_eligible_unused_percent < kTensorCoreUnusedThreshold || remedy.empty()) return;
  std::vector<std::pair<std::string, uint64_t>> top(unused_by_op.begin(), unused_by_op.end());
  std::stable_sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string ops;
  for (size_t i = 0; i < top.size() && i < 3; ++i)
    ops += fmt::format("{}{} {:.1f}%", i ? ", " : "", top[i].first, Pct(top[i].second, total));
  o.tensor_core_statement =
      fmt::format("{:.1f}% of kernel time is in ops that can use Tensor Cores but whose kernels do not ({}). {}",
                  o.tensor_core_eligible_unused_percent, ops, remedy);
}

}  // namespace

std::string PyTorchInputAdvice() {
  return "Recommendations: load batches in worker processes (DataLoader num_workers > 0, persistent_workers=True), "
         "keep more batches prefetched (prefetch_factor), pin host memory (pin_memory=True) and copy with "
         ".to(device, non_blocking=True); move expensive per-sample preprocessing out of the loop (precompute it, or "
         "run it on the GPU).";
}

void AdviseForPyTorch(const HostSummary& ops, Overview& o) {
  const std::vector<KernelReport> kernels = ops.kernels.Sorted(0);
  SetPrecision(kernels, o);
  SetTensorCores(kernels, o.env.first_device, o);
  // Kernel advice is about device compute: where that is a sliver of the
  // steps (a run waiting in collectives, compiling, or on its host), it is
  // not what holds the run back, and the advice says so rather than lead.
  if (!o.steps.rows.empty()) {
    // Tested as shown (one decimal), so that the caveat never says 5.0%.
    const double device =
        std::round(o.steps.category_percent[static_cast<size_t>(Category::kDeviceCompute)] * 10.0) / 10.0;
    if (device < kMinorDeviceComputePercent) {
      const std::string minor = fmt::format(
          " Device compute is only {:.1f}% of the step time, though: this gains little until the rest is cut.", device);
      if (!o.precision_statement.empty()) o.precision_statement += minor;
      if (!o.tensor_core_statement.empty()) o.tensor_core_statement += minor;
    }
  }
  // PyTorch runs op by op anyway: there is no tf.function to suggest.
  o.eager_statement.clear();
  // A trace whose steps hold torch.compile's compilation shows the cost of
  // compiling, not of the compiled program: say so before anything else
  // is read into its breakdown.
  const double compiling = o.steps.category_percent[static_cast<size_t>(Category::kCompilation)];
  if (compiling >= 10.0)
    o.compilation_statement = fmt::format(
        "{:.1f}% of the total step time sampled is torch.compile compiling ({:.2f} ms a step): the profiled steps "
        "hold the first calls of a compiled function or its recompilations. Profile steps after warm-up "
        "(torch.profiler.schedule with warmup) to see the compiled program; if it recompiles step after step, "
        "TORCH_LOGS=recompiles says why.",
        compiling, o.steps.category_ms[static_cast<size_t>(Category::kCompilation)].avg);
  const std::string& verdict = o.bottleneck.verdict;
  if (verdict == "HIGHLY input-bound" || verdict == "MODERATELY input-bound")
    o.summary_next_step =
        "The steps wait for their input: see the recommendations below (DataLoader workers, "
        "prefetching, pinned memory).";
  else if (verdict == "POTENTIALLY input-bound")
    o.summary_next_step =
        "Time no traced op covers ('All Others') may be input work on the training loop's thread "
        "(loading or preprocessing batches): see the recommendations below.";
  else o.summary_next_step = "You may skip the rest of this page.";
}

}  // namespace tfprof
