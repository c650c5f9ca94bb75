#include <cmath>
#include <iterator>
#include <string_view>

#include "fmt/format.h"
#include "lib/render/chunked_output.h"
#include "lib/render/render.h"

namespace tfprof {

namespace {

// FormatCell's text, appended to `out`. Inline: RenderCsv calls it for
// every number of a table (a timeline with every point: millions).
inline __attribute__((always_inline)) void AppendCellText(const Cell& cell, const Column& column, std::string& out) {
  if (const auto* s = std::get_if<std::string>(&cell)) {
    out.append(*s);
  } else if (const auto* i = std::get_if<int64_t>(&cell)) {
    const fmt::format_int digits(*i);  // No string of its own.
    out.append(digits.data(), digits.size());
  } else if (const auto* d = std::get_if<double>(&cell)) {
    if (std::isnan(*d)) out.append("nan");
    else fmt::format_to(std::back_inserter(out), "{:.{}f}", *d, column.precision);
  } else if (const auto* b = std::get_if<bool>(&cell)) {
    out.append(*b ? "true" : "false");
  }
}

// CsvEscape's field, appended to `out`.
void AppendCsvField(std::string_view s, std::string& out) {
  if (s.find_first_of(",\"\n\r") == std::string_view::npos) {
    out.append(s);
    return;
  }
  out.push_back('"');
  for (char ch : s) {
    if (ch == '"') out.push_back('"');
    out.push_back(ch);
  }
  out.push_back('"');
}

// Text a spreadsheet may run as a formula (CsvFormulaSafe).
bool LooksLikeFormula(std::string_view text) {
  return !text.empty() && std::string_view("=+-@\t\r").find(text.front()) != std::string_view::npos;
}

}  // namespace

std::string FormatCell(const Cell& cell, const Column& column) {
  std::string out;
  AppendCellText(cell, column, out);
  return out;
}

std::string CsvEscape(const std::string& s) {
  std::string out;
  AppendCsvField(s, out);
  return out;
}

std::string CsvFormulaSafe(const std::string& text) { return LooksLikeFormula(text) ? "'" + text : text; }

// RFC 4180: a header of column keys (or csv_header), then one line per row. Doubles keep the
// column's precision so CSV and table agree digit for digit. Each cell is
// formatted and escaped in place (ChunkedOutput).
void RenderCsv(const Table& table, std::ostream& out, bool formula_safe) {
  ChunkedOutput chunks(out);
  std::string& text = chunks.text();
  bool first = true;
  for (const Column& c : table.columns) {
    if (c.terminal_only) continue;
    if (!first) text.push_back(',');
    AppendCsvField(c.csv_header.empty() ? c.key : c.csv_header, text);
    first = false;
  }
  text.push_back('\n');
  for (const auto& row : table.rows) {
    first = true;
    for (size_t i = 0; i < table.columns.size(); ++i) {
      if (table.columns[i].terminal_only) continue;
      if (!first) text.push_back(',');
      first = false;
      const Cell& cell = row[i];
      if (const auto* s = std::get_if<std::string>(&cell)) {
        if (formula_safe && LooksLikeFormula(*s)) AppendCsvField("'" + *s, text);
        else AppendCsvField(*s, text);
      } else {
        // Numbers and booleans: digits, a sign, a point, "nan" or "inf",
        // which need no quotes.
        AppendCellText(cell, table.columns[i], text);
      }
    }
    text.push_back('\n');
    chunks.FlushIfFull();
  }
  chunks.Flush();
}

}  // namespace tfprof
