// `advise`: the GPU performance guides' checklist (TensorFlow's, and its
// PyTorch counterparts) run on a run's summary. Each rule of the
// framework's set fires with evidence, passes with its measured value, or
// says why it cannot decide; findings come most costly first.
// docs/advise.md documents every rule, its inputs, threshold and source.
#pragma once

#include "lib/advise/finding.h"
#include "lib/analyze/run_summary_to_metrics.h"
#include "lib/report/report.h"
#include "lib/summary/run_summary.h"

namespace tfprof {

// Needs every summary part (SummaryParts::All()). `combined`: the run's
// RunSummaryToMetrics, when the caller made it (its ops and overview are
// then not combined again).
Advice RunSummaryToAdvice(const RunSummary& run, const AdviseOptions& options = {},
                          const RunAnalysis* combined = nullptr);

// The report `advise` prints: tables `findings`, `evidence`, `checks` and
// `thresholds` (the values in force).
Report BuildAdviceReport(const Advice& advice, const AdviseOptions& options);

}  // namespace tfprof
