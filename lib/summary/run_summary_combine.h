// Combining run summaries, and folding a run's per-host partials into what
// the analyses read.
#pragma once

#include <string_view>
#include <vector>

#include "lib/model/diagnostics.h"
#include "lib/summary/host_summary.h"
#include "lib/summary/planes_to_step_db.h"
#include "lib/summary/run_summary.h"
#include "lib/summary/tf_data_events_to_pipelines.h"

namespace tfprof {

// Adds `other` (more hosts of the same run) into `into`. Associative and
// commutative: the hosts end up by HostKeyLess whatever order summaries are
// combined in; of hosts whose captures have one SHA-256 only the first by
// key stays (the others go to dropped_copies; not with --compat xprof,
// which reads copies too); the run and tool names are the smallest given.
// An empty `into` (no hosts, no parts) takes `other`'s parts, options and
// run name. Throws std::invalid_argument when the two disagree on the
// schema version, the parts or the options, or both hold a host of the
// same key. input_diagnostics add up (counts and severities; the message
// and example kept are the first summary's that has the kind: in a run
// read by one process only the first summary carries any).
void CombineRunSummaries(RunSummary& into, RunSummary other);

// Byte-identical captures summarised apart: of hosts (in canonical order)
// with one SHA-256, the first stays and the others go, as discovery drops
// copies within one folder (not with --compat xprof, which reads them all).
// Returns which hosts to keep; the others are added to run.dropped_copies,
// and every dropped copy there is pointed at the kept host of its content
// (the first by key whatever order summaries combine in). Shared by
// CombineRunSummaries and the streaming combine (run_summary_stream_combine.h).
struct HostIdentity {
  std::string_view source, host, sha256;
};
std::vector<bool> DropByteIdenticalCopies(const std::vector<HostIdentity>& hosts, RunSummary& run);

// The folds, each over the hosts in `order`, exactly as the reference
// combines hosts (run_summary.h says why they are not done in Combine).
// The op summary of every host (kOps): CombineHostSummaries one by one.
HostSummary CombineHostOps(const RunSummary& run);
// The steps of every host (kSteps), aligned by CombineHostSteps.
StepDb CombineRunSteps(const RunSummary& run);
// The tf.data hosts (kTfData), merged by CombineTfData and finalised.
TfDataAnalysis CombineRunTfData(const RunSummary& run);
// Everything reading and summarising met, in the order it was met: the
// input's, every host's reading, then every host's summarising.
// `parts`: those a command shows, when the summary was made with more
// (PartDiagnostics::ForParts); by default the summary's own.
Diagnostics RunDiagnostics(const RunSummary& run);
Diagnostics RunDiagnostics(const RunSummary& run, SummaryParts parts);

}  // namespace tfprof
