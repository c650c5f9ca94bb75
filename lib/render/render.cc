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
    case OutputFormat::kCsv: {
      if (report.tables.empty()) return;
      const Table* t = options.csv_table.empty() ? &report.tables.front() : report.FindTable(options.csv_table);
      if (!t) {
        std::string names;
        for (const Table& x : report.tables) names += (names.empty() ? "" : ", ") + x.name;
        throw std::invalid_argument("no table '" + options.csv_table + "' in this report (tables: " + names + ")");
      }
      RenderCsv(*t, out, options.csv_safe);
      return;
    }
  }
}

}  // namespace tfprof
