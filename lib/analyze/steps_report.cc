#include "lib/analyze/steps_report.h"

#include <cmath>

#include "fmt/format.h"

namespace tfprof {
namespace {

// Display order: what a step spends most on first; one letter each.
constexpr Category kOrder[] = {Category::kDeviceCompute, Category::kDeviceToDevice, Category::kDeviceCollectives,
                               Category::kInput,         Category::kOutput,         Category::kKernelLaunch,
                               Category::kHostCompute,   Category::kCompilation,    Category::kAllOthers};
constexpr char kLetters[] = "DdCIOKHPA";

}  // namespace

std::string StackedBar(const std::array<double, kCategories>& ms, double total_ms, double scale_ms, int width) {
  if (scale_ms <= 0 || total_ms <= 0) return "";
  const double cells = width * total_ms / scale_ms;
  std::string bar;
  double used = 0, drawn = 0;
  for (size_t i = 0; i < std::size(kOrder); ++i) {
    used += ms[static_cast<size_t>(kOrder[i])] / total_ms * cells;
    const double target = std::round(used);
    for (; drawn < target; ++drawn) bar += kLetters[i];
  }
  return bar;
}

void AddCategoryColumns(Table& table) {
  for (Category c : kOrder)
    table.Add({std::string(CategoryKey(c)) + "_ms", std::string(CategoryName(c)), ColumnType::kDouble, 3}, "ms");
}

void SetCategoryCells(Table::RowWriter& row, const std::array<double, kCategories>& category_ms) {
  for (Category c : kOrder) row.Set(std::string(CategoryKey(c)) + "_ms", category_ms[static_cast<size_t>(c)]);
}

Report BuildStepsReport(const StepSummary& s) {
  Report r;
  r.command = "steps";
  r.lines.push_back(fmt::format("{} steps · step time {:.2f} ms average (σ {:.2f}, min {:.2f}, max {:.2f})",
                                s.rows.size(), s.step_time_ms.avg, s.step_time_ms.stddev, s.step_time_ms.min,
                                s.step_time_ms.max));
  Table t{"steps", "Steps (times in ms)", {}, {}};
  t.Add({"step", "step", ColumnType::kString, 0, 24})
      .Add({"step_number", "#", ColumnType::kInt})
      .Add({"host", "host", ColumnType::kString, 0, 24})
      .Add({"step_time_ms", "step", ColumnType::kDouble, 3}, "ms");
  AddCategoryColumns(t);
  t.Add({"input_percent", "input %", ColumnType::kDouble, 1}, "%");
  t.Add({"bar", "breakdown", ColumnType::kString, 0, 0, "", false, /*terminal_only=*/true});
  double longest = 0;
  for (const StepRow& row : s.rows) longest = std::max(longest, row.step_time_ms);
  for (const StepRow& row : s.rows) {
    Table::RowWriter cells = t.AddRow();
    cells.Set("step", row.name)
        .Set("step_number", row.number)
        .Set("host", row.host)
        .Set("step_time_ms", row.step_time_ms);
    SetCategoryCells(cells, row.category_ms);
    cells.Set("input_percent", row.input_percent)
        .Set("bar", StackedBar(row.category_ms, row.step_time_ms, longest, 40));
  }
  r.tables.push_back(std::move(t));
  std::string legend = "breakdown letters: ";
  for (size_t i = 0; i < std::size(kOrder); ++i)
    legend += fmt::format("{}{}={}", i ? ", " : "", kLetters[i], CategoryName(kOrder[i]));
  r.notes.push_back(legend + " (bars are to scale with the longest step)");
  return r;
}

}  // namespace tfprof
