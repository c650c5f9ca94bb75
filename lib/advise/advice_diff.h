// `diff BASE NEW` and `report BASE NEW`: which advisor findings appeared,
// went away or changed severity between two runs, so a change that fixes
// (or causes) an input-bound step or a straggler says so by name.
#pragma once

#include "lib/advise/finding.h"
#include "lib/analyze/run_summary_to_metrics.h"
#include "lib/report/report.h"
#include "lib/summary/run_summary.h"

namespace tfprof {

// Advises both runs (default thresholds) and adds the head line and the
// `findings` table to `diff`'s report (`diff` and `report BASE NEW`).
// `base_analysis`/`next_analysis`: the runs' RunSummaryToMetrics, which the
// advisor reuses.
void AddFindingsDiff(const RunSummary& base, const RunSummary& next, Report& diff,
                     const RunAnalysis* base_analysis = nullptr, const RunAnalysis* next_analysis = nullptr);

}  // namespace tfprof
