// `overview` and `input-pipeline`: the Overview Page and the Input Pipeline
// Analyzer as reports (verdict first, then the numbers).
#pragma once

#include "lib/analyze/overview_analysis.h"
#include "lib/report/report.h"

namespace tfprof {

Report BuildOverviewReport(const Overview& overview, const std::string& run_name);
Report BuildInputPipelineReport(const Overview& overview, const std::string& run_name);

// "██████▍" for `fraction` of `width` cells (eighths of a cell).
std::string Bar(double fraction, int width);

}  // namespace tfprof
