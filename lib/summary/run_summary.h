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
// Keeping each host's partial in one canonical order (HostKeyLess: the
// capture file's name, which is discovery order within a run) makes
// CombineRunSummaries associative and commutative while every analysis
// folds the hosts exactly as before (run_summary_combine.h: CombineHostOps,
// CombineHostSteps, CombineTfData). Because the key is the file's name, not
// its place in one process's list, hosts summarised apart (one `summarize`
// per host file, on as many machines) combine into the run that reading the
// folder gives.
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
// another version is refused rather than misread. 2: hosts ordered by their
// capture file's name (`source`), sources' content hashes, tool version.
// 3: PyTorch runtime facts (HostSummary::pytorch) for the advisor.
inline constexpr uint32_t kRunSummarySchemaVersion = 3;

// What a summary holds: each command computes only the parts it shows
// (op-stats builds no memory profile, memory groups no op metrics).
enum class SummaryPart : uint32_t {
  kOps = 1u << 0,         // HostSummary: op metrics (host, device), kernels, environment.
  kEagerMarks = 1u << 1,  // With kOps: which ops ran eagerly (needs the event forest).
  kSteps = 1u << 2,       // StepDb: the steps and their breakdown (groups events).
  kMemory = 1u << 3,      // HostMemoryProfile from allocator events.
  kTfData = 1u << 4,      // TfDataHost: the tf.data iterator analysis.
  // HostSummary's device side (kernels, device op metrics, environment,
  // device event count) without the host-thread op metrics (kernel-stats):
  // read alone, it needs no host-thread events. kOps includes it.
  kKernels = 1u << 5,
  // HostSummary's host side (host-thread op metrics, environment, device
  // event count) without the kernels and device op metrics, which
  // input-pipeline does not show: read alone, the devices' events are read
  // without the stats only those read (kernel details, launch parameters).
  // kOps includes it; with kKernels it is kOps.
  kHostOps = 1u << 6,
};

struct SummaryParts {
  uint32_t bits = 0;

  constexpr SummaryParts() = default;
  constexpr SummaryParts(SummaryPart p) : bits(static_cast<uint32_t>(p)) {}  // NOLINT: a part is a set of one.
  // kKernels and kHostOps are halves of kOps: a set holds each with kOps,
  // and kOps with both.
  constexpr bool Has(SummaryPart p) const {
    const uint32_t halves = static_cast<uint32_t>(SummaryPart::kKernels) | static_cast<uint32_t>(SummaryPart::kHostOps);
    if (p == SummaryPart::kOps) return (bits & static_cast<uint32_t>(p)) != 0 || (bits & halves) == halves;
    uint32_t want = static_cast<uint32_t>(p);
    if (p == SummaryPart::kKernels || p == SummaryPart::kHostOps) want |= static_cast<uint32_t>(SummaryPart::kOps);
    return (bits & want) != 0;
  }
  // Whether a summary of these parts holds every part of `need`.
  constexpr bool Covers(SummaryParts need) const {
    uint32_t n = need.bits;
    if (Has(SummaryPart::kOps))
      n &= ~(static_cast<uint32_t>(SummaryPart::kOps) | static_cast<uint32_t>(SummaryPart::kKernels) |
             static_cast<uint32_t>(SummaryPart::kHostOps));
    else if (need.Has(SummaryPart::kOps)) return false;
    return (bits & n) == n;
  }
  constexpr bool operator==(const SummaryParts&) const = default;
  // Everything: what `metrics`, `check` and `diff` read (kKernels and
  // kHostOps are in kOps).
  static constexpr SummaryParts All();
  // Every part this version knows: All(), kKernels and kHostOps.
  static constexpr SummaryParts Known();
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
constexpr SummaryParts SummaryParts::Known() { return All() | SummaryPart::kKernels | SummaryPart::kHostOps; }

struct SummaryOptions {
  AnalysisOptions analysis;  // --compat and the step options: the command's own.
  SummaryParts parts;
  uint32_t order = 0;  // The host's position in the run's discovery order (HostPartials::order).
  std::string source;  // HostPartials::source.
  // The memory profile's timelines: every allocator event (0), or only the
  // points a report samples them to (MemoryProfileOptions::timeline_points).
  size_t memory_timeline_points = 0;
};

// What summarising one host met, by the part that met it, so that a
// command reading a summary made with more parts than it shows reports
// exactly what making only its parts would have (ForParts).
struct PartDiagnostics {
  Diagnostics grouping;  // Grouping the events: made for kSteps, or for kMemory alone when memory_grouped.
  // The op metrics': all of them, in plane order (kOps), and the same by
  // side: the host threads' (kHostOps alone) and the devices' (kKernels
  // alone), where ops_by_side says so (HostToRunSummary sets it). Without
  // it (summaries from before the split) `ops` stands for either side.
  Diagnostics ops, ops_host, ops_device;
  bool ops_by_side = false;
  Diagnostics steps, memory, tf_data;
  // The memory profile needed the event groups (a host with allocator
  // events): a memory-only summary would have grouped, and met `grouping`.
  bool memory_grouped = false;

  // What summarising `parts` alone would have met, in the order one
  // thread would have met it: grouping, ops, steps, memory, tf.data.
  Diagnostics ForParts(SummaryParts parts) const;
};

// One host's partials. Only the parts named in RunSummary::parts are filled.
struct HostPartials {
  // The canonical position is (source, order): the capture file's name,
  // then its index in the reading process's discovery order (which only
  // tells apart hosts of one name, and orders hosts built without a file).
  std::string source;  // The capture file's name (no folder), as discovery lists it.
  uint32_t order = 0;
  // SHA-256 of the capture file's bytes as stored (all of a TF1 timeline
  // host's files, in order), lowercase hex; empty unless the summary was
  // made to be kept (`summarize`). Summaries made apart find byte-identical
  // host files by it, as discovery does for one folder.
  std::string source_sha256;
  std::string host;  // Host::name as read (a PyTorch rank's "rank1", else the file's host).
  CaptureFormat format = CaptureFormat::kXSpace;
  HostSummary ops;               // kOps (eager marks in it with kEagerMarks).
  StepDb steps;                  // kSteps; CombineHostSteps folds the hosts in the analysis.
  HostMemoryProfile memory;      // kMemory.
  TfDataHost tf_data;            // kTfData; CombineTfData + FinalizeTfData fold the hosts in the analysis.
  Diagnostics read_diagnostics;  // What reading this host's capture met.
  PartDiagnostics diagnostics;   // What summarising it met.
};

// The canonical order of hosts in a RunSummary.
inline bool HostKeyLess(const HostPartials& a, const HostPartials& b) {
  return a.source != b.source ? a.source < b.source : a.order < b.order;
}
inline bool SameHostKey(const HostPartials& a, const HostPartials& b) {
  return a.source == b.source && a.order == b.order;
}

struct RunSummary {
  uint32_t schema_version = kRunSummarySchemaVersion;
  // The tfprof-analyze that made it ("tfprof-analyze 0.1.0"): provenance,
  // shown by `info`; summaries of different builds of one schema combine.
  std::string tool;
  std::string run;  // The run's name (ProfileRun::name), for headings.
  // The name of the folder holding the run's capture files (a single
  // file's too). Host files of one folder summarised apart have their own
  // file names as `run`; combined, the run is named after this folder, as
  // reading the folder names it.
  std::string run_folder;
  SummaryParts parts;
  AnalysisOptions options;  // What the partials were built with; combined summaries agree on it.
  // What discovery met before any host was read (duplicate and skipped
  // files): reported first, as the run's own.
  Diagnostics input_diagnostics;
  std::vector<HostPartials> hosts;  // By HostKeyLess, each key once.
  // Hosts left out when summaries were combined because their capture was
  // a byte-identical copy of a kept host's (same source_sha256): the
  // copy's source and host, and the kept host. RunDiagnostics reports them
  // as discovery reports copies in one folder.
  struct DroppedCopy {
    std::string source, host, sha256, kept_host;
    bool operator==(const DroppedCopy&) const = default;
  };
  std::vector<DroppedCopy> dropped_copies;  // By source.
};

}  // namespace tfprof
