// Which reference an analysis reproduces where references disagree.
#pragma once

#include <string>

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
  // Fallbacks when a capture has no step markers: events whose name matches
  // this regular expression (e.g. "ProfilerStep#\\d+", "^train$") are the
  // steps; or the whole capture is one step.
  std::string step_marker;
  bool whole_trace = false;
  bool xprof() const { return compat == Compat::kXprof; }
  bool tf_legacy() const { return compat == Compat::kTfLegacy; }
};

}  // namespace tfprof
