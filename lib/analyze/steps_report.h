// `steps`: one row per step with its time and breakdown, and a compact
// stacked bar per step in the text view.
#pragma once

#include "lib/analyze/step_summary.h"
#include "lib/report/report.h"

namespace tfprof {

Report BuildStepsReport(const StepSummary& summary);

// The step-time categories as columns `<category>_ms` (ms, 3 decimals), in
// the order the steps table shows them (what a step spends most on first),
// and their cells: shared by every table of per-step or per-host times.
void AddCategoryColumns(Table& table);
void SetCategoryCells(Table::RowWriter& row, const std::array<double, kCategories>& category_ms);

// A horizontal bar of `width` cells for each category's share, one letter
// per category (legend in the report's notes).
std::string StackedBar(const std::array<double, kCategories>& category_ms, double total_ms, double scale_ms, int width);

}  // namespace tfprof
