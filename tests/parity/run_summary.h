// Loads a run folder (or file) exactly as the commands do: the library's
// one loader (CapturesToRunSummary), with the parts and the analysis
// options of the command whose output is compared.
#pragma once

#include <string>

#include "lib/summary/host_summary.h"
#include "lib/summary/run_summary.h"

namespace tfprof::parity {

// Byte-identical host files are read twice under --compat xprof, as the
// tool (and xprof) reads them.
RunSummary LoadRun(const std::string& path, SummaryParts parts, const AnalysisOptions& options = {});

// The run's op summary (op-stats: ops with eager marks; kernel-stats: ops).
HostSummary SummarizeRun(const std::string& path, SummaryParts parts, const AnalysisOptions& options = {});

}  // namespace tfprof::parity
