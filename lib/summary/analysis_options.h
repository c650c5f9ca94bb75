// Which reference an analysis reproduces where references disagree.
#pragma once

#include <functional>
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

// What a run that found no step can try instead. The library names no
// flag: the command line words the hint (tools/hints_to_text.cc).
struct NoStepsHint {
  enum Kind {
    kNone,                 // --whole-trace was used: nothing is left to try.
    kAnyFallback,          // Nothing was given: a step marker, steps between events, or the whole capture.
    kAnotherMarker,        // A step marker matched nothing: another one, steps between events, or the whole capture.
    kAnotherStepsBetween,  // A steps-between pattern matched nothing: another one, or the whole capture.
  };
  Kind kind = kNone;
  bool pytorch = false;  // Examples in PyTorch's terms (ProfilerStep#N, the DataLoader), else TensorFlow's.
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
  // (never the whole capture to a run that asked for it).
  NoStepsHint StepFallbacks(bool pytorch) const {
    if (whole_trace) return {NoStepsHint::kNone, pytorch};
    if (!steps_between.empty()) return {NoStepsHint::kAnotherStepsBetween, pytorch};
    return {step_marker.empty() ? NoStepsHint::kAnyFallback : NoStepsHint::kAnotherMarker, pytorch};
  }
  // Words a NoStepsHint for people ("" when there is nothing to try); the
  // command line sets it, naming its flags. Unset: analyses give no hint.
  std::function<std::string(const NoStepsHint&)> word_no_steps_hint;
  bool tf_legacy() const { return compat == Compat::kTfLegacy; }
  // The same analysis: every option but how hints are worded.
  bool SameAs(const AnalysisOptions& o) const {
    return compat == o.compat && step_marker == o.step_marker && steps_between == o.steps_between &&
           whole_trace == o.whole_trace;
  }
};

}  // namespace tfprof
