// Loads every host of a run folder (or file) and combines their summaries,
// as the commands do.
#pragma once

#include <string>

#include "lib/summary/host_summary.h"

namespace tfprof::parity {

HostSummary SummarizeRun(const std::string& path, const AnalysisOptions& options = {});

}  // namespace tfprof::parity
