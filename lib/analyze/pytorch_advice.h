// The overview's advice for a PyTorch (Kineto) capture, which records what
// TensorFlow's does differently and needs other remedies:
//   * precision: from the kernels (their names, their ops' input types):
//     8-, 16-, 32-bit and unknown, where TensorFlow's step events know only
//     16 and 32 (a BF16 or FP8 run is not "32-bit");
//   * Tensor Cores: kernel time of eligible ops (matmuls, convolutions,
//     attention) in kernels that do not use them, with TF32 / AMP advice;
//   * no eager execution statement (PyTorch has no tf.function);
//   * input advice in DataLoader terms, not tf.data.
// Rules and thresholds: docs/formats/pytorch-kineto.md.
#pragma once

#include <string>

#include "lib/analyze/overview_analysis.h"

namespace tfprof {

// Rewrites the framework-dependent parts of `o` (built from `ops`) for a
// PyTorch capture.
void AdviseForPyTorch(const HostSummary& ops, Overview& o);

// What to do about input time in a PyTorch training loop (the
// input-pipeline page's recommendations).
std::string PyTorchInputAdvice();

}  // namespace tfprof
