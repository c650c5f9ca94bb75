#include "lib/render/render.h"

#include <stdexcept>

#include "lib/render/junit.h"
#include "lib/render/render_dot.h"
#include "lib/render/render_html.h"

namespace tfprof {

void Render(const Report& report, const RenderOptions& options, std::ostream& out) {
  switch (options.format) {
    case OutputFormat::kTable: RenderText(report, options, out); return;
    case OutputFormat::kJson: RenderJson(report, out); return;
    case OutputFormat::kDot: RenderDot(report, out); return;
    case OutputFormat::kJUnit: RenderJUnit(report, out); return;
    case OutputFormat::kHtml: RenderHtml(report, out); return;
    case OutputFormat::kCsv:
      if (const Table* t = CsvTable(report, options.csv_table)) RenderCsv(*t, out, options.csv_safe);
      return;
  }
}

const Table* CsvTable(const Report& report, const std::string& csv_table) {
  if (report.tables.empty()) return nullptr;
  if (csv_table.empty()) return &report.tables.front();
  if (const Table* t = report.FindTable(csv_table)) return t;
  std::string names;
  for (const Table& x : report.tables) names += (names.empty() ? "" : ", ") + x.name;
  throw std::invalid_argument("no table '" + csv_table + "' in this report (tables: " + names + ")");
}

}  // namespace tfprof
