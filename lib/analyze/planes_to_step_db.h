// Steps: each grouped step's time and what it was spent on, per host (the
// reference's step database), from the host's events and its event groups.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "lib/analyze/analysis_options.h"
#include "lib/analyze/event_grouping.h"
#include "lib/analyze/event_span.h"
#include "lib/model/diagnostics.h"
#include "lib/model/model.h"

namespace tfprof {

struct StepRecord {
  int64_t group_id = 0;
  std::string name;          // The step's group name ("train 5").
  int64_t begin_ps = 0;      // Relative to the host's time origin.
  uint64_t duration_ps = 0;  // The step time.
  std::array<uint64_t, kEventTypes> type_ps{};  // Sums to duration_ps.
  std::string host;          // The host it was measured on.
};

struct StepDb {
  std::vector<StepRecord> steps;  // By group id.
  bool has_device = false;
  uint64_t compute_16bit_ps = 0, compute_32bit_ps = 0;  // Device compute by precision.
  uint64_t dropped_steps = 0;     // Groups without a well-formed step.
  std::string no_steps_reason;    // Why there are none, when there are none.
};

// Default: host events count with device events (kernel launch, host compute
// and input are real categories on GPU, as the TensorFlow Profiler guide and
// TensorFlow's own overview_page.pb have them). --compat xprof: with a GPU,
// steps are built from device events only, as current xprof does.
StepDb BuildStepDb(const Host& host, const EventGroups& groups, const AnalysisOptions& options, Diagnostics& diagnostics);

}  // namespace tfprof

namespace tfprof {

// Adds another host's steps. Steps of several hosts are listed side by side
// (each row names its host); the reference's alignment of steps across hosts
// is not done yet.
void MergeStepDbs(StepDb& into, StepDb&& other);

}  // namespace tfprof
