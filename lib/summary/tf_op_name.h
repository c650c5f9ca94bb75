// Splitting a TensorFlow / JAX op's full name ("dense/MatMul:MatMul") into
// name and type the way the TensorFlow Profiler does.
#pragma once

#include <string_view>

namespace tfprof {

// kFramework: an op the capture names and types explicitly (OpFromStats).
enum class OpCategory {
  kUnknown,
  kTensorFlow,
  kJax,
  kTfData,
  kMemcpyHToD,
  kMemcpyDToH,
  kMemcpyDToD,
  kMemcpyHToH,
  kFramework
};

struct TfOp {
  OpCategory category = OpCategory::kUnknown;
  std::string_view name;  // Views into the parsed string.
  std::string_view type;  // Empty when unknown.
};

// Splits at the first ':'. "Iterator::..." is a tf.data op (type "Dataset");
// "name:Type" with a TF-looking name and capitalised type is a TensorFlow op;
// a lower-case type ("jit_fn/dot_general:dot_general[...]") is a JAX op; a
// name without ':' is unknown, except the MEMCPYHToD... prefixes.
// `legacy_names`: op names as TensorFlow 2.x before about 2.14 accepted them
// ([A-Za-z0-9.][A-Za-z0-9_./]*), so "a-b:Transpose" was an unknown op.
TfOp ParseTfOpFullname(std::string_view full_name, bool legacy_names = false);

// The op an event's `tf_op` stat names. With a `tf_op_type` stat (`type`
// non-empty: ops typed by the Chrome trace conventions, PyTorch's
// `aten::addmm`, whose names have colons a TF full name cannot) the stat is
// the op name as is; without, a TF full name to parse.
inline TfOp OpFromStats(std::string_view tf_op, std::string_view type, bool legacy_names = false) {
  if (!type.empty()) return {OpCategory::kFramework, tf_op, type};
  return ParseTfOpFullname(tf_op, legacy_names);
}

}  // namespace tfprof
