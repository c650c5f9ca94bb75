// `steps`: one row per step with its time and breakdown, and a compact
// stacked bar per step in the text view.
#pragma once

#include "lib/analyze/step_summary.h"
#include "lib/report/report.h"

namespace tfprof {

Report BuildStepsReport(const StepSummary& summary);

// A horizontal bar of `width` cells for each category's share, one letter
// per category (legend in the report's notes).
std::string StackedBar(const std::array<double, kCategories>& category_ms, double total_ms, double scale_ms, int width);

}  // namespace tfprof
