// The one intermediate every analysis reads: what a run's hosts' events
// summarise to. A host's events are read, turned into a RunSummary of one
// host (HostToRunSummary, host_to_run_summary.h) and dropped; summaries
// combine summary + summary (CombineRunSummaries), never raw events, so a
// many-host run needs memory for one host's events at a time, and summaries
// built apart (other processes, other machines: proto/run_summary.proto)
// combine into the same run.
//
// Why the partials stay per host rather than summed: every combination the
// reports make of them is order-sensitive (the reference aligns steps on a
// chief host, merges tf.data hosts by name, keeps the first op category,
// device and diagnostic example it sees, breaks ties by insertion order).
// Keeping each host's partial in one canonical order (`order`, the host's
// position in discovery order) makes CombineRunSummaries associative and
// commutative while every analysis folds the hosts exactly as before
// (run_summary_combine.h: CombineHostOps, CombineHostSteps, CombineTfData).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/model/diagnostics.h"
#include "lib/model/model.h"
#include "lib/summary/analysis_options.h"
#include "lib/summary/host_summary.h"
#include "lib/summary/memory_events_to_profile.h"
#include "lib/summary/planes_to_step_db.h"
#include "lib/summary/tf_data_events_to_pipelines.h"

namespace tfprof {

// Bumped whenever a field's meaning changes, so a stored summary from
// another version is refused rather than misread.
inline constexpr uint32_t kRunSummarySchemaVersion = 1;

// What a summary holds: each command computes only the parts it shows
// (op-stats builds no memory profile, memory groups no op metrics).
enum class SummaryPart : uint32_t {
  kOps = 1u << 0,         // HostSummary: op metrics (host, device), kernels, environment.
  kEagerMarks = 1u << 1,  // With kOps: which ops ran eagerly (needs the event forest).
  kSteps = 1u << 2,       // StepDb: the steps and their breakdown (groups events).
  kMemory = 1u << 3,      // HostMemoryProfile from allocator events.
  kTfData = 1u << 4,      // TfDataHost: the tf.data iterator analysis.
};

struct SummaryParts {
  uint32_t bits = 0;

  constexpr SummaryParts() = default;
  constexpr SummaryParts(SummaryPart p) : bits(static_cast<uint32_t>(p)) {}  // NOLINT: a part is a set of one.
  constexpr bool Has(SummaryPart p) const { return (bits & static_cast<uint32_t>(p)) != 0; }
  constexpr bool operator==(const SummaryParts&) const = default;
  // Everything: what `metrics`, `check` and `diff` read.
  static constexpr SummaryParts All();
};

constexpr SummaryParts operator|(SummaryParts a, SummaryParts b) {
  SummaryParts out;
  out.bits = a.bits | b.bits;
  return out;
}
constexpr SummaryParts operator|(SummaryPart a, SummaryPart b) { return SummaryParts(a) | SummaryParts(b); }

constexpr SummaryParts SummaryParts::All() {
  return SummaryPart::kOps | SummaryPart::kEagerMarks | SummaryPart::kSteps | SummaryPart::kMemory |
         SummaryPart::kTfData;
}

struct SummaryOptions {
  AnalysisOptions analysis;  // --compat and the step options: the command's own.
  SummaryParts parts;
  uint32_t order = 0;  // The host's position in the run's discovery order (HostPartials::order).
};

// One host's partials. Only the parts named in RunSummary::parts are filled.
struct HostPartials {
  uint32_t order = 0;  // Canonical position: the capture file's index in discovery order.
  std::string host;    // Host::name as read (a PyTorch rank's "rank1", else the file's host).
  CaptureFormat format = CaptureFormat::kXSpace;
  HostSummary ops;               // kOps (eager marks in it with kEagerMarks).
  StepDb steps;                  // kSteps; CombineHostSteps folds the hosts in the analysis.
  HostMemoryProfile memory;      // kMemory.
  TfDataHost tf_data;            // kTfData; CombineTfData + FinalizeTfData fold the hosts in the analysis.
  Diagnostics read_diagnostics;  // What reading this host's capture met.
  Diagnostics diagnostics;       // What summarising it met.
};

struct RunSummary {
  uint32_t schema_version = kRunSummarySchemaVersion;
  std::string run;  // The run's name (ProfileRun::name), for headings.
  SummaryParts parts;
  AnalysisOptions options;  // What the partials were built with; combined summaries agree on it.
  // What discovery met before any host was read (duplicate and skipped
  // files): reported first, as the run's own.
  Diagnostics input_diagnostics;
  std::vector<HostPartials> hosts;  // By `order`, ascending.
};

}  // namespace tfprof
