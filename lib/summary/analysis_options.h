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
  // Or the windows between events whose name matches this regular
  // expression (e.g. "enumerate\\(DataLoader\\)"): steps_between.h.
  std::string steps_between;
  bool whole_trace = false;
  bool xprof() const { return compat == Compat::kXprof; }
  // What to try when no step was found: the fallbacks not already in use
  // (never --whole-trace to a run that used it). Empty when none is left.
  std::string StepFallbackHint() const {
    if (whole_trace) return "";
    if (!steps_between.empty())
      return "another --steps-between REGEX, or --whole-trace (the capture as one step)";
    return step_marker.empty() ? "--step-marker REGEX (events that mark steps, e.g. 'ProfilerStep#\\d+'), "
                                 "--steps-between REGEX (steps from one event to the next, e.g. "
                                 "'enumerate\\(DataLoader\\)') or --whole-trace (the capture as one step)"
                               : "another --step-marker REGEX, --steps-between REGEX, or --whole-trace (the capture "
                                 "as one step)";
  }
  bool tf_legacy() const { return compat == Compat::kTfLegacy; }
};

}  // namespace tfprof
