// The PyTorch kernel and op name rules on real kernel names (from the
// corpus traces and testdata/captures/torch_gpu_*), each answer checked by
// hand against what the library's naming says (docs/formats/pytorch-kineto.md).
#include <catch2/catch.hpp>

#include "lib/summary/pytorch_kernel_rules.h"

using namespace tfprof;

TEST_CASE("PrecisionNamedIn: the narrowest type a kernel name or an op's input types name", "[kernels][kineto]") {
  struct Case {
    const char* text;
    ComputePrecision want;
  };
  for (const Case& c : {
           Case{"ampere_sgemm_128x64_nn", ComputePrecision::k32Bit},
           Case{"ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x3_tn", ComputePrecision::k16Bit},
           Case{"sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x64x8_stage3_warpsize1x2x1_ffma",
                ComputePrecision::k32Bit},
           Case{"sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw", ComputePrecision::k32Bit},
           Case{"cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64",
                ComputePrecision::k16Bit},
           Case{"void at::native::cunn_SoftMaxForward<4, c10::BFloat16, float, c10::BFloat16>(...)",
                ComputePrecision::k16Bit},
           Case{"batched_transpose_32x32_half", ComputePrecision::k16Bit},
           Case{"bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x16x256u2", ComputePrecision::k8Bit},
           Case{"void deep_gemm::fp8_gemm_kernel<__nv_fp8_e4m3>(float*)", ComputePrecision::k8Bit},
           Case{"Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x224x64_MI16x16x1_SN", ComputePrecision::k16Bit},
           Case{"Cijk_Ailk_Bljk_SB_MT64x64x8_SN", ComputePrecision::k32Bit},
           Case{"void cub::DeviceRadixSortOnesweepKernel<cub::DoubleBuffer<long>, int>", ComputePrecision::kUnknown},
           Case{"triton_poi_fused_add_0", ComputePrecision::kUnknown},
           // cuBLAS nvjet: the types token after the architecture (the
           // testdata captures' names; their ops' input types agree).
           Case{"nvjet_sm90_qqtst_128x128_128x6_1x2_h_bz_coopA_algo2_TNT", ComputePrecision::k8Bit},
           Case{"nvjet_sm90_rqtst_128x128_128x6_2x1_v_bz_coopA_algo2_TNT", ComputePrecision::k8Bit},
           Case{"nvjet_sm90_tst_128x64_64x8_1x2_h_bz_bias_TNT", ComputePrecision::k16Bit},
           Case{"nvjet_sm90_hsh_64x8_64x16_2x4_h_bz_bias_TNT", ComputePrecision::k16Bit},
           Case{"nvjet_sm100_sss_128x64_64x8_1x2_h_bz_TNT", ComputePrecision::k32Bit},
           Case{"nvjet_tst_128x64_64x8_1x2_h_bz_NNT", ComputePrecision::k16Bit},  // No architecture token.
           Case{"nvjet_sm90_128x64_64x8", ComputePrecision::kUnknown},            // No types token.
           Case{"nvjet_sm90_tsx_128x64", ComputePrecision::kUnknown},             // 'x' is no type letter.
           // Op input types (record_shapes=True), as the JSON array's text.
           Case{R"(["c10::Float8_e4m3fn", "c10::Float8_e4m3fn", "float", "float"])", ComputePrecision::k8Bit},
           Case{R"(["c10::Half", "float"])", ComputePrecision::k16Bit},
           Case{R"(["float", "float", "", "Scalar"])", ComputePrecision::k32Bit},
           Case{R"(["long int", "bool"])", ComputePrecision::kUnknown},
       }) {
    INFO(c.text);
    CHECK(PrecisionNamedIn(c.text) == c.want);
  }
  CHECK(Narrower(ComputePrecision::k32Bit, ComputePrecision::k16Bit) == ComputePrecision::k16Bit);
  CHECK(Narrower(ComputePrecision::kUnknown, ComputePrecision::k32Bit) == ComputePrecision::k32Bit);
  CHECK(Narrower(ComputePrecision::kUnknown, ComputePrecision::kUnknown) == ComputePrecision::kUnknown);
}

TEST_CASE("IsTorchKernelUsingTensorCore: Tensor Core kernels by name, and look-alikes that are not",
          "[kernels][kineto]") {
  for (const char* yes : {"nvjet_sm90_tst_128x128_64x6_2x1_v_bz_TNT",
                          "cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16_knob_26_64x64x64",
                          "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_128x2_tn_align2>",
                          "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_tn_align1>",
                          "sm80_xmma_wgrad_implicit_gemm_indexed_bf16bf16_bf16f32_f32_nhwckrsc_nhwc",
                          "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false>>",
                          "fmha_cutlassF_f32_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<float>)",
                          "fmha_cutlassB_bf16_aligned_64x64_k64_seqaligned_sm80",
                          "void deep_gemm::fp8_gemm_kernel<__nv_fp8_e4m3>(float*)",
                          "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x224x64_MI16x16x1_SN",
                          "_ZN2ck16tensor_operation6device37kernel_batched_gemm_xdlops_bwd_weight",
                          "igemm_fwd_gtcx3_nhwc_bf16_bx0_ex1_bt128x128x32_wt32x32x8"}) {
    INFO(yes);
    CHECK(IsTorchKernelUsingTensorCore(yes));
  }
  for (const char* no :
       {"ampere_sgemm_128x64_nn", "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x64x8_stage3_warpsize1x2x1_ffma",
        "void cutlass::Kernel<cutlass_80_simt_sgemm_128x128_8x4_nn_align1>",
        "fmha_cutlassF_f32_aligned_64x64_rf_sm50(PyTorchMemEffAttention::AttentionKernel<float>)",
        "void at::native::GammaBetaBackwardCUDAKernelTemplate<float, float, 32u>", "SubTensorOpWithScalar1d",
        "void fbgemm_gpu::_compute_FP8_quantize_cuda_kernel<float>(float const*)",
        "void precomputed_convolve_sgemm<__nv_bfloat16, 128, 6, 7>",
        "void splitKreduce_kernel<float, float, float, float, true, false, false>", "triton_poi_fused_add_0"}) {
    INFO(no);
    CHECK_FALSE(IsTorchKernelUsingTensorCore(no));
  }
}

TEST_CASE("IsTorchOpTensorCoreEligible and IsTorchBookkeepingOp", "[placement][kernels][kineto]") {
  for (const char* op :
       {"aten::mm", "aten::addmm", "aten::bmm", "aten::linear", "aten::matmul", "aten::_scaled_mm", "aten::convolution",
        "aten::cudnn_convolution_backward_input", "aten::convolution_backward", "aten::scaled_dot_product_attention",
        "aten::_flash_attention_forward", "aten::_efficient_attention_backward", "aten::_cudnn_rnn"}) {
    INFO(op);
    CHECK(IsTorchOpTensorCoreEligible(op));
  }
  for (const char* op : {"aten::add_", "aten::copy_", "aten::_convert_indices_from_coo_to_csr", "vllm::moe_forward",
                         "ampere_sgemm_128x64_nn"}) {
    INFO(op);
    CHECK_FALSE(IsTorchOpTensorCoreEligible(op));
  }
  for (const char* op : {"aten::empty", "aten::view", "aten::t", "autograd::engine::evaluate_function: MmBackward0",
                         "MmBackward0", "MyFunctionBackward", "torch::autograd::AccumulateGrad",
                         "Optimizer.step#SGD.step", "TorchDynamo Cache Lookup", "_NoopSaveInputs", "detach"}) {
    INFO(op);
    CHECK(IsTorchBookkeepingOp(op));
  }
  for (const char* op : {"aten::add", "aten::mm", "aten::cudnn_convolution_backward", "c10d::allreduce_"}) {
    INFO(op);
    CHECK_FALSE(IsTorchBookkeepingOp(op));
  }
}
