#include "tools/hints_to_text.h"

namespace tfprof {

std::string InputHintText(InputHint hint) {
  switch (hint) {
    case InputHint::kNone: return "";
    case InputHint::kReadPartOfTheEvents: return " with --max-events N";
    case InputHint::kListRuns: return " (see --list-runs)";
    case InputHint::kRunNamesListed: return " from --list-runs";
  }
  return "";
}

std::string WordNoStepsHint(const NoStepsHint& hint) {
  switch (hint.kind) {
    case NoStepsHint::kNone: return "";
    case NoStepsHint::kAnotherStepsBetween:
      return "another --steps-between REGEX, or --whole-trace (the capture as one step)";
    case NoStepsHint::kAnotherMarker:
      return "another --step-marker REGEX, --steps-between REGEX, or --whole-trace (the capture as one step)";
    case NoStepsHint::kAnyFallback: break;
  }
  // Examples a user of the capture's framework recognises: PyTorch's step
  // annotations and DataLoader loop; TensorFlow's Trace name (the TF guide's
  // tf.profiler.experimental.Trace('train', step_num=...)) and the op tf.data
  // runs once per step.
  if (hint.pytorch)
    return "--step-marker REGEX (events that mark steps, e.g. 'ProfilerStep#\\d+'), --steps-between REGEX (steps from "
           "one event to the next, e.g. 'enumerate\\(DataLoader\\)') or --whole-trace (the capture as one step)";
  return "--step-marker REGEX (events that mark steps, e.g. '^train$' for tf.profiler.experimental.Trace('train')), "
         "--steps-between REGEX (steps from one event to the next, e.g. 'IteratorGetNext', which a tf.data loop runs "
         "once per step) or --whole-trace (the capture as one step)";
}

}  // namespace tfprof
