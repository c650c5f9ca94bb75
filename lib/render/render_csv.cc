#include <cmath>
#include <string_view>

#include "fmt/format.h"
#include "lib/render/render.h"

namespace tfprof {

std::string FormatCell(const Cell& cell, const Column& column) {
  struct Visitor {
    const Column& c;
    std::string operator()(std::monostate) const { return ""; }
    std::string operator()(const std::string& s) const { return s; }
    std::string operator()(int64_t v) const { return std::to_string(v); }
    std::string operator()(bool v) const { return v ? "true" : "false"; }
    std::string operator()(double v) const {
      if (std::isnan(v)) return "nan";
      return fmt::format("{:.{}f}", v, c.precision);
    }
  };
  return std::visit(Visitor{column}, cell);
}

std::string CsvEscape(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

std::string CsvFormulaSafe(const std::string& text) {
  if (text.empty() || std::string_view("=+-@\t\r").find(text.front()) == std::string_view::npos) return text;
  return "'" + text;
}

// RFC 4180: a header of column keys (or csv_header), then one line per row. Doubles keep the
// column's precision so CSV and table agree digit for digit.
void RenderCsv(const Table& table, std::ostream& out, bool formula_safe) {
  bool first = true;
  for (const Column& c : table.columns) {
    if (c.terminal_only) continue;
    out << (first ? "" : ",") << CsvEscape(c.csv_header.empty() ? c.key : c.csv_header);
    first = false;
  }
  out << "\n";
  for (const auto& row : table.rows) {
    first = true;
    for (size_t i = 0; i < table.columns.size(); ++i) {
      if (table.columns[i].terminal_only) continue;
      std::string text = FormatCell(row[i], table.columns[i]);
      if (formula_safe && std::holds_alternative<std::string>(row[i])) text = CsvFormulaSafe(text);
      out << (first ? "" : ",") << CsvEscape(text);
      first = false;
    }
    out << "\n";
  }
}

}  // namespace tfprof
