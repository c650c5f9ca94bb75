// What PyTorch (Kineto) captures do not record and TensorFlow's do: a
// kernel's data type and Tensor Core use, and whether its op could use
// Tensor Cores. TensorFlow's XPlanes answer these from their own stats
// (`shape`, and the reference's kernel and op name lists in
// device_plane_to_kernel_stats.h); for Kineto traces they come from the
// names below. The rules, with examples, are in docs/formats/pytorch-kineto.md.
#pragma once

#include <cstdint>
#include <string_view>

namespace tfprof {

// The narrowest data type a kernel computes with. 8-bit covers FP8 (e4m3,
// e5m2), narrower MX types (e2m1) and int8 Tensor Core math; 16-bit BF16
// and FP16; 32-bit FP32, TF32 and wider.
enum class ComputePrecision : uint8_t { kUnknown, k8Bit, k16Bit, k32Bit };

// "8-bit", "16-bit", "32-bit", "unknown".
std::string_view ComputePrecisionName(ComputePrecision p);

// The narrowest precision that `text` names: a kernel name
// ("ampere_bf16_s16816gemm_bf16_...", "void ...<float>", AMD Tensile's
// "Cijk_..._BBS_...") or an op's `Input type` arg ("[\"c10::BFloat16\",
// \"float\"]"). kUnknown when it names none (integer-only kernels, Triton's
// "triton_poi_fused_add_0").
ComputePrecision PrecisionNamedIn(std::string_view text);

// The narrower of two (kUnknown when both are).
ComputePrecision Narrower(ComputePrecision a, ComputePrecision b);

// Whether a kernel's name says it runs on Tensor Cores (Volta to Blackwell
// MMA instruction names, cuBLAS/cuDNN xmma and nvjet, CUTLASS tensorop,
// flash attention, FP8 GEMMs; AMD Matrix Core (MFMA) kernels count too).
// A SIMT kernel ("cutlass_80_simt_sgemm", "ampere_sgemm_...", cuBLAS's
// FP32 "sm80_xmma_gemm_f32f32_..._ffma_...", FP32 attention built for
// before sm80 "fmha_cutlassF_f32_..._sm50") does not.
bool IsTorchKernelUsingTensorCore(std::string_view kernel_name);

// Whether a PyTorch op is of a kind that can run on Tensor Cores: matrix
// multiplications (aten::mm, aten::addmm, aten::bmm, aten::linear,
// aten::matmul, aten::_scaled_mm, ...), convolutions, attention and cuDNN
// RNNs.
bool IsTorchOpTensorCoreEligible(std::string_view op_name);

// PyTorch host ops that are bookkeeping, not computation to move to the
// GPU: tensor allocation and views (aten::empty, aten::view, aten::t, ...),
// the autograd engine and its graph nodes ("autograd::engine::
// evaluate_function: ...", "<Name>Backward0", "torch::autograd::
// AccumulateGrad"), record_function scopes that older builds wrote as ops
// ("Optimizer.step#SGD.step", "enumerate(DataLoader)#..."), PyTorch's
// own scopes ("TorchDynamo Cache Lookup"; no op name has a space), and
// names without a namespace: an autograd Function's Python forward
// ("_NoopSaveInputs"), "detach".
bool IsTorchBookkeepingOp(std::string_view op_name);

// A collective communication kernel (NCCL, RCCL): device collectives, not
// compute, as the step breakdown counts them.
bool IsCollectiveKernel(std::string_view kernel_name);

}  // namespace tfprof
