#include "lib/summary/pytorch_kernel_rules.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace tfprof {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool Contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

template <size_t N>
bool ContainsAny(std::string_view s, const std::string_view (&parts)[N]) {
  return std::any_of(std::begin(parts), std::end(parts), [&](std::string_view p) { return Contains(s, p); });
}

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// Whether `word` occurs in `s` between characters that are not letters or
// digits ("float" in "lambda(float)" and "c10::complex<float>", not in
// "bfloat16"; '_' separates too: "__half").
template <size_t N>
bool HasAnyWord(std::string_view s, const std::string_view (&words)[N]) {
  for (size_t i = 0; i < s.size();) {
    if (!IsWordChar(s[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < s.size() && IsWordChar(s[j])) ++j;
    std::string_view w = s.substr(i, j - i);
    if (std::find(std::begin(words), std::end(words), w) != std::end(words)) return true;
    i = j;
  }
  return false;
}

// AMD Tensile (rocBLAS / hipBLASLt) GEMM names, "Cijk_Alik_Bljk_BBS_BH_...":
// the fourth '_'-separated token starts with the input data type (S float,
// D double, C/Z complex, H half, B bfloat16, F8/B8 FP8, I8 int8).
ComputePrecision TensilePrecision(std::string_view lower) {
  if (lower.substr(0, 5) != "cijk_") return ComputePrecision::kUnknown;
  size_t start = 0;
  for (int token = 0; token < 3; ++token) {
    start = lower.find('_', start);
    if (start == std::string_view::npos) return ComputePrecision::kUnknown;
    ++start;
  }
  std::string_view type = lower.substr(start, lower.find('_', start) - start);
  if (type.empty()) return ComputePrecision::kUnknown;
  if (type.substr(0, 2) == "f8" || type.substr(0, 2) == "b8" || type.substr(0, 2) == "i8")
    return ComputePrecision::k8Bit;
  if (type[0] == 'h' || type[0] == 'b') return ComputePrecision::k16Bit;
  if (type[0] == 's' || type[0] == 'd' || type[0] == 'c' || type[0] == 'z') return ComputePrecision::k32Bit;
  return ComputePrecision::kUnknown;
}

// cuBLAS's nvjet GEMMs (Hopper and later), "nvjet_sm90_tst_128x64_...":
// the token after the architecture spells the types of the operands, the
// compute and the result, a letter each (q FP8 e4m3, r FP8 e5m2, h FP16,
// t BF16, s FP32, d FP64): "tst" BF16 in, FP32 compute; "hsh" FP16;
// "qqtst" FP8. The narrowest letter is the data's. (cuBLAS does not
// document the names; on the H100/H200 captures in testdata every "tst"
// kernel ran for an op with BF16 inputs, "hsh" FP16, "qqtst"/"rqtst" FP8.)
ComputePrecision NvjetPrecision(std::string_view lower) {
  if (lower.substr(0, 6) != "nvjet_") return ComputePrecision::kUnknown;
  std::string_view rest = lower.substr(6);
  auto token = [&] { return rest.substr(0, rest.find('_')); };
  if (std::string_view arch = token();
      arch.size() > 2 && arch.substr(0, 2) == "sm" && std::isdigit(static_cast<unsigned char>(arch[2])))
    rest.remove_prefix(std::min(rest.size(), arch.size() + 1));
  std::string_view types = token();
  if (types.size() < 3 || types.size() > 6) return ComputePrecision::kUnknown;
  ComputePrecision p = ComputePrecision::kUnknown;
  for (char c : types) {
    ComputePrecision letter = ComputePrecision::kUnknown;
    if (c == 'q' || c == 'r') letter = ComputePrecision::k8Bit;
    else if (c == 'h' || c == 't') letter = ComputePrecision::k16Bit;
    else if (c == 's' || c == 'd') letter = ComputePrecision::k32Bit;
    else return ComputePrecision::kUnknown;  // Not a types token.
    p = Narrower(p, letter);
  }
  return p;
}

}  // namespace

std::string_view ComputePrecisionName(ComputePrecision p) {
  switch (p) {
    case ComputePrecision::k8Bit: return "8-bit";
    case ComputePrecision::k16Bit: return "16-bit";
    case ComputePrecision::k32Bit: return "32-bit";
    case ComputePrecision::kUnknown: break;
  }
  return "unknown";
}

ComputePrecision Narrower(ComputePrecision a, ComputePrecision b) {
  if (a == ComputePrecision::kUnknown) return b;
  if (b == ComputePrecision::kUnknown) return a;
  return std::min(a, b);  // The enum runs from narrow to wide.
}

ComputePrecision PrecisionNamedIn(std::string_view text) {
  const std::string s = Lower(text);
  // FP8 and narrower (MX FP4/FP6) element types, int8 Tensor Core shapes.
  static constexpr std::string_view k8Bit[] = {"e4m3", "e5m2", "e2m1", "e3m2", "e2m3", "fp8", "fp4", "i8816", "i16832"};
  // BF16/FP16 in cuBLAS, cuDNN, CUTLASS and PyTorch names ("f16" covers
  // bf16, fp16, bf16f32; "float16" covers bfloat16); Tensor Core shapes
  // that only 16-bit inputs have (h: half accumulate; s16816: m16n8k16
  // with float accumulate).
  static constexpr std::string_view k16Bit[] = {"f16",    "float16", "h884",  "h1688",
                                                "h16816", "s16816",  "hgemm", "hcudnn"};
  static constexpr std::string_view k16BitWords[] = {"half", "half2"};
  // FP32 (and TF32, which keeps FP32 data), FP64 and complex GEMMs.
  static constexpr std::string_view k32Bit[] = {"f32",   "fp32",  "f64",   "fp64",  "sgemm",
                                                "dgemm", "cgemm", "zgemm", "scudnn"};
  static constexpr std::string_view k32BitWords[] = {"float",   "float2", "float4", "float32",
                                                     "float64", "double", "double2"};
  if (ContainsAny(s, k8Bit)) return ComputePrecision::k8Bit;
  const ComputePrecision coded = Narrower(TensilePrecision(s), NvjetPrecision(s));  // Types spelt in a code.
  if (coded == ComputePrecision::k8Bit) return coded;
  if (ContainsAny(s, k16Bit) || HasAnyWord(s, k16BitWords) || coded == ComputePrecision::k16Bit)
    return ComputePrecision::k16Bit;
  if (ContainsAny(s, k32Bit) || HasAnyWord(s, k32BitWords) || coded == ComputePrecision::k32Bit)
    return ComputePrecision::k32Bit;
  return ComputePrecision::kUnknown;
}

bool IsTorchKernelUsingTensorCore(std::string_view kernel_name) {
  const std::string s = Lower(kernel_name);
  // CUDA-core kernels whatever else their names say: CUTLASS's SIMT ones,
  // cuBLAS's FP32 "sm80_xmma_gemm_f32f32_..._ffma_..." (FFMA: the scalar
  // fused multiply-add), "ampere_sgemm_...".
  static constexpr std::string_view kCudaCores[] = {"simt", "ffma", "sgemm"};
  if (ContainsAny(s, kCudaCores)) return false;
  // MMA instructions by name (hmma, wgmma, imma, xmma; "_mma"/"mma_" for
  // the libraries' MMA templates, not a bare "mma": GammaBetaBackward),
  // CUTLASS's tensorop kernels and OpClassTensorOp (not MIOpen's
  // "SubTensorOpWithScalar1d"), the instruction shapes, cuBLAS's nvjet.
  static constexpr std::string_view kNvidia[] = {"hmma",      "gmma",          "imma",  "xmma",   "_mma",  "mma_",
                                                 "_tensorop", "classtensorop", "16816", "s1688",  "c1688", "h1688",
                                                 "h884",      "s884",          "i8816", "i16832", "nvjet"};
  if (ContainsAny(s, kNvidia)) return true;
  // Flash attention (FP16/BF16 on sm80+; Triton's "attn_fwd") and
  // memory-efficient attention ("fmha_cutlassF_..."): Tensor Cores but in
  // FP32 built for a GPU before sm80, where PyTorch's kernels fall back to
  // CUDA cores (from sm80 FP32 runs as 3xTF32 on Tensor Cores).
  static constexpr std::string_view kAmpereOrNewer[] = {"sm80", "sm86", "sm89", "sm90", "sm100"};
  const bool ampere_or_newer = ContainsAny(s, kAmpereOrNewer);
  static constexpr std::string_view kAttention[] = {
      "flash_fwd", "flash_bwd", "flash::", "fmha", "attn_fwd", "attn_bwd"};
  if (ContainsAny(s, kAttention) && (ampere_or_newer || PrecisionNamedIn(s) != ComputePrecision::k32Bit)) return true;
  if (Contains(s, "cutlass") && ampere_or_newer) return true;
  // FP8 (and narrower) matrix math exists only on Tensor Cores (but
  // fbgemm_gpu's FP8 quantize kernels are no GEMMs).
  std::string without_fbgemm = s;
  for (size_t at = without_fbgemm.find("fbgemm"); at != std::string::npos; at = without_fbgemm.find("fbgemm", at))
    without_fbgemm.replace(at, 6, "fb");
  static constexpr std::string_view kGemm[] = {"gemm", "bmm"};
  if (PrecisionNamedIn(s) == ComputePrecision::k8Bit && ContainsAny(without_fbgemm, kGemm)) return true;
  // AMD Matrix Cores: Tensile's MFMA tile token "_MI16x16x1", composable
  // kernel's xdl(ops) kernels, MIOpen's xdlops implicit GEMMs
  // ("igemm_fwd_gtcx3_...").
  if (s.substr(0, 5) == "cijk_") {
    for (size_t i = s.find("_mi"); i != std::string::npos; i = s.find("_mi", i + 1))
      if (i + 3 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 3]))) return true;
  }
  static constexpr std::string_view kAmd[] = {"mfma", "_xdl_", "xdlops", "_gtcx"};
  return ContainsAny(s, kAmd);
}

bool IsTorchOpTensorCoreEligible(std::string_view op_name) {
  static constexpr std::string_view kMatmul[] = {"aten::mm",          "aten::addmm",
                                                 "aten::bmm",         "aten::baddbmm",
                                                 "aten::addbmm",      "aten::matmul",
                                                 "aten::linear",      "aten::_addmm_activation",
                                                 "aten::_scaled_mm",  "aten::_scaled_grouped_mm",
                                                 "aten::_grouped_mm", "aten::einsum",
                                                 "aten::tensordot",   "aten::lstm",
                                                 "aten::gru",         "aten::rnn_tanh",
                                                 "aten::rnn_relu"};
  if (std::find(std::begin(kMatmul), std::end(kMatmul), op_name) != std::end(kMatmul)) return true;
  if (op_name.substr(0, 6) != "aten::") return false;
  // Convolutions (aten::convolution, aten::cudnn_convolution_backward_input,
  // aten::conv_transpose2d, ...), attention (aten::scaled_dot_product_attention,
  // aten::_flash_attention_forward, aten::_efficient_attention_backward, ...)
  // and cuDNN RNNs.
  return (Contains(op_name, "conv") && !Contains(op_name, "convert")) || Contains(op_name, "attention") ||
         Contains(op_name, "cudnn_rnn");
}

bool IsTorchBookkeepingOp(std::string_view op_name) {
  // Allocation, views and metadata: no arithmetic to move anywhere.
  // clang-format off
  static constexpr std::string_view kTensorBookkeeping[] = {
      "aten::empty",        "aten::empty_strided", "aten::empty_like",  "aten::new_empty",  "aten::new_empty_strided",
      "aten::resize_",      "aten::set_",          "aten::view",        "aten::view_as",    "aten::_reshape_alias",
      "aten::reshape",      "aten::_unsafe_view",  "aten::as_strided",  "aten::as_strided_", "aten::alias",
      "aten::t",            "aten::transpose",     "aten::transpose_",  "aten::permute",    "aten::expand",
      "aten::expand_as",    "aten::unsqueeze",     "aten::unsqueeze_",  "aten::squeeze",    "aten::squeeze_",
      "aten::slice",        "aten::select",        "aten::narrow",      "aten::split",      "aten::split_with_sizes",
      "aten::chunk",        "aten::unbind",        "aten::flatten",     "aten::unflatten",  "aten::detach",
      "aten::detach_",      "aten::lift_fresh",    "aten::numpy_T",     "aten::contiguous", "aten::record_stream",
      "aten::is_nonzero",   "aten::item",          "aten::_local_scalar_dense", "aten::size", "aten::stride",
      "aten::movedim",      "aten::moveaxis",      "aten::resolve_neg", "aten::resolve_conj", "aten::result_type",
      "aten::broadcast_tensors", "aten::view_as_real", "aten::view_as_complex"};
  // clang-format on
  if (std::find(std::begin(kTensorBookkeeping), std::end(kTensorBookkeeping), op_name) != std::end(kTensorBookkeeping))
    return true;
  // The autograd engine and its nodes: the Python or C++ side of a
  // backward, whose arithmetic is in the ops they call.
  if (op_name.substr(0, 18) == "autograd::engine::" || op_name.substr(0, 17) == "torch::autograd::") return true;
  size_t end = op_name.size();
  while (end > 0 && std::isdigit(static_cast<unsigned char>(op_name[end - 1]))) --end;
  if (op_name.substr(0, end).ends_with("Backward")) return true;
  // record_function scopes ("Optimizer.step#SGD.step") and PyTorch's own
  // scopes ("TorchDynamo Cache Lookup", "## Call CompiledFxGraph ... ##"):
  // not ops; no op name has a space. Operators are namespaced (aten::,
  // c10d::, vllm::); a name without "::" is an autograd Function's Python
  // forward ("_NoopSaveInputs", "CheckpointFunction") or a bare scope
  // ("detach").
  return op_name.find('#') != std::string_view::npos || op_name.find(' ') != std::string_view::npos ||
         op_name.find("::") == std::string_view::npos;
}

bool IsCollectiveKernel(std::string_view kernel_name) {
  return kernel_name.size() >= 4 && Lower(kernel_name.substr(0, 4)) == "nccl";
}

}  // namespace tfprof
