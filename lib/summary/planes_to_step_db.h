// Steps: each grouped step's time and what it was spent on, per host (the
// reference's step database), from the host's events and its event groups.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "lib/model/diagnostics.h"
#include "lib/model/model.h"
#include "lib/summary/analysis_options.h"
#include "lib/summary/event_grouping.h"
#include "lib/summary/event_span.h"

namespace tfprof {

struct StepRecord {
  int64_t group_id = 0;
  std::string name;  // The step's group name ("train 5").
  // N of a step marker named "<name>#<N>" (PyTorch's ProfilerStep#12: 12),
  // when the step was found from such a marker.
  std::optional<int64_t> marker_number;
  int64_t begin_ps = 0;                         // Relative to the host's time origin.
  uint64_t duration_ps = 0;                     // The step time.
  std::array<uint64_t, kEventTypes> type_ps{};  // Sums to duration_ps.
  std::string host;                             // The host it was measured on.
  uint64_t max_duration_ps = 0;                 // The longest step time over hosts (one host: duration_ps).
};

// The number the steps table shows for the step at `index` of its list:
// its marker's N (ProfilerStep#N), else its place in the list.
inline int64_t StepNumber(const StepRecord& step, size_t index) {
  return step.marker_number.value_or(static_cast<int64_t>(index));
}

struct StepDb {
  std::vector<StepRecord> steps;  // By group id.
  bool has_device = false;
  uint64_t compute_16bit_ps = 0, compute_32bit_ps = 0;  // Device compute by precision.
  uint64_t dropped_steps = 0;                           // Groups without a well-formed step.
  std::string no_steps_reason;                          // Why there are none, when there are none.
  int64_t origin_ns = 0;                                // The host's time origin (Host::time_origin_ns).
  std::vector<std::string> hosts;
  std::string intersection_note;  // Multi-host: how the steps were aligned.
  std::string note;               // How the steps were found, when not by the capture's markers (EventGroups::note).
  // The capture delimits each step whole (TF1 session.runs): no profile
  // window cut the first or the last, so none is dropped for it.
  bool whole_steps = false;
};

// Default: host events count with device events (kernel launch, host compute
// and input are real categories on GPU, as the TensorFlow Profiler guide and
// TensorFlow's own overview_page.pb have them). --compat xprof: with a GPU,
// steps are built from device events only, as current xprof does.
StepDb BuildStepDb(const Host& host, const EventGroups& groups, const AnalysisOptions& options,
                   Diagnostics& diagnostics);

}  // namespace tfprof

namespace tfprof {

// Combines the hosts' step databases, aligned as the reference aligns them:
// the host whose steps span the least time is the chief; every other host's
// steps are shifted by the index offset that overlaps them most with the
// chief's, and only the steps all hosts ran are kept. Hosts without a device
// in a run that has one (coordinators) are left out.
//
// Which host a combined step is (docs/overview.md, "Several hosts"):
//   * default: the host with the longest step time at that step (the first
//     such host on ties), its step time and its breakdown together, so the
//     headline step time and the category rows add up; `host` names it.
//     Steps keep the first host's names (hosts number their steps apart).
//   * --compat xprof / tf-legacy, as the TensorFlow Profiler combines them:
//     the first host's breakdown, with the longest host's step time in
//     `max_duration_ps` for the step-time statistics (they do not add up).
StepDb CombineHostSteps(std::vector<StepDb> hosts, const AnalysisOptions& options = {});

}  // namespace tfprof
