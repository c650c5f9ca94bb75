// Which reference an analysis reproduces where references disagree.
#pragma once

namespace tfprof {

enum class Compat {
  // The TensorFlow Profiler as its guide describes it, reading old and new
  // captures alike (docs/parity.md lists where this differs from either).
  kDefault,
  // Current xprof exactly: e.g. device ops only from `tf_op` stats, `shm:`
  // ignored in kernel details.
  kXprof,
  // The per-tool files TensorFlow 2.x wrote beside its captures: op names
  // without '-' or '>', no host ops from `tf_op` stats.
  kTfLegacy,
};

struct AnalysisOptions {
  Compat compat = Compat::kDefault;
  bool xprof() const { return compat == Compat::kXprof; }
  bool tf_legacy() const { return compat == Compat::kTfLegacy; }
};

}  // namespace tfprof
