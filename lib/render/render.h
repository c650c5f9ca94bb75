// Renders a Report as a text table, CSV, JSON, Graphviz DOT (its graph),
// JUnit XML (a report of check outcomes, lib/render/junit.h) or a
// self-contained HTML page (lib/render/render_html.h).
#pragma once

#include <ostream>
#include <string>

#include "lib/report/report.h"

namespace tfprof {

enum class OutputFormat { kTable, kCsv, kJson, kDot, kJUnit, kHtml };

struct RenderOptions {
  OutputFormat format = OutputFormat::kTable;
  bool verbose = false;   // Text: also show info-level diagnostics.
  std::string csv_table;  // CSV: which table (default: the report's first).
  bool terminal = false;  // Text goes to a terminal: show bars.
  // The terminal's width in columns (0: unknown). A table wider than it
  // hides its all-zero number columns, then draws its bars narrower.
  int terminal_width = 0;
  bool csv_safe = false;  // CSV: text cells a spreadsheet would take for a formula get a leading '.
};

// Throws std::invalid_argument when csv_table names no table, or a DOT
// report has no graph.
void Render(const Report& report, const RenderOptions& options, std::ostream& out);

// The table CSV renders: `csv_table`, or the report's first; null when the
// report has none. Throws std::invalid_argument when `csv_table` names no
// table.
const Table* CsvTable(const Report& report, const std::string& csv_table);

void RenderText(const Report& report, const RenderOptions& options, std::ostream& out);
// `formula_safe` (--csv-safe): a text cell starting with = + - @ tab or CR,
// which a spreadsheet may run as a formula (OWASP "CSV injection"), gets a
// leading '. Only text cells: numbers come from the tool, so -5 stays a
// number.
void RenderCsv(const Table& table, std::ostream& out, bool formula_safe = false);
void RenderJson(const Report& report, std::ostream& out);

// Formatting shared by the renderers.
std::string FormatCell(const Cell& cell, const Column& column);
std::string CsvEscape(const std::string& s);
// `text` with a leading ' when it starts like a spreadsheet formula.
std::string CsvFormulaSafe(const std::string& text);

}  // namespace tfprof
