#include <algorithm>

#include "lib/render/render.h"
#include "lib/render/terminal_text.h"

namespace tfprof {
namespace {

// Display width of UTF-8 text (counts code points; good enough for names).
size_t DisplayWidth(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

std::string Truncate(const std::string& s, int max_width) {
  if (max_width <= 0 || DisplayWidth(s) <= static_cast<size_t>(max_width)) return s;
  // Cut on a code point boundary and mark the cut.
  size_t keep = 0, width = 0;
  while (keep < s.size() && width + 1 < static_cast<size_t>(max_width)) {
    ++keep;
    while (keep < s.size() && (static_cast<unsigned char>(s[keep]) & 0xC0) == 0x80) ++keep;
    ++width;
  }
  return s.substr(0, keep) + "…";
}

// Every string of the text view goes through EscapeForTerminal: names from
// a capture must not drive the terminal or break a row in two.
std::string TextCell(const Cell& cell, const Column& c) {
  if (c.percent && std::holds_alternative<double>(cell)) {
    Column shown = c;
    shown.precision = 1;
    return FormatCell(Cell(std::get<double>(cell) * 100.0), shown) + "%";
  }
  return EscapeForTerminal(FormatCell(cell, c));
}

bool RightAligned(const Column& c) { return c.type == ColumnType::kInt || c.type == ColumnType::kDouble; }

bool IsZeroOrEmpty(const Cell& cell) {
  if (std::holds_alternative<std::monostate>(cell)) return true;
  if (const auto* i = std::get_if<int64_t>(&cell)) return *i == 0;
  if (const auto* d = std::get_if<double>(&cell)) return *d == 0;
  return false;
}

// A bar drawn `to` characters wide instead of `from`, keeping its share
// of each letter (the letters at evenly spaced positions).
std::string ShrinkBar(const std::string& bar, size_t from, size_t to) {
  if (from == 0) return bar;
  const size_t n = (bar.size() * to + from / 2) / from;  // Rounded, so bars keep their lengths' ratios.
  if (n >= bar.size()) return bar;
  std::string out;
  for (size_t j = 0; j < n; ++j) out += bar[j * bar.size() / n];
  return out;
}

// What fits a `limit`-column terminal: number columns that are zero in every
// row say nothing there, so they go first (their names are listed under the
// table); then the bars (decoration) shrink, down to 10 characters.
// Returns the names of the hidden columns.
std::vector<std::string> FitToTerminal(Table& t, size_t limit) {
  // Each column's width, as RenderTable will lay it out: every cell is
  // formatted once here, and again only for a column whose bars shrink.
  auto column_width = [&t](size_t i) {
    size_t c = DisplayWidth(t.columns[i].label);
    for (const auto& row : t.rows)
      c = std::max(c, DisplayWidth(Truncate(TextCell(row[i], t.columns[i]), t.columns[i].max_width)));
    return c;
  };
  std::vector<size_t> widths;
  for (size_t i = 0; i < t.columns.size(); ++i) widths.push_back(column_width(i));
  auto line_width = [&widths]() {
    size_t w = 1;
    for (size_t c : widths) w += c + 2;
    return w;
  };
  std::vector<std::string> hidden;
  if (line_width() <= limit) return hidden;
  for (size_t i = t.columns.size(); i-- > 0;) {
    if (!RightAligned(t.columns[i])) continue;
    bool zero = true;
    for (const auto& row : t.rows) zero = zero && IsZeroOrEmpty(row[i]);
    if (!zero) continue;
    hidden.insert(hidden.begin(), t.columns[i].label);
    t.columns.erase(t.columns.begin() + static_cast<ptrdiff_t>(i));
    widths.erase(widths.begin() + static_cast<ptrdiff_t>(i));
    for (auto& row : t.rows) row.erase(row.begin() + static_cast<ptrdiff_t>(i));
  }
  for (size_t i = 0; i < t.columns.size() && line_width() > limit; ++i) {
    if (!t.columns[i].terminal_only) continue;
    size_t longest = 0;
    for (const auto& row : t.rows)
      if (const auto* s = std::get_if<std::string>(&row[i])) longest = std::max(longest, s->size());
    const size_t over = line_width() - limit, floor = std::max<size_t>(10, DisplayWidth(t.columns[i].label));
    if (longest <= floor) continue;
    const size_t target = longest > over + floor ? longest - over : floor;
    for (auto& row : t.rows)
      if (auto* s = std::get_if<std::string>(&row[i])) *s = ShrinkBar(*s, longest, target);
    widths[i] = column_width(i);
  }
  return hidden;
}

void RenderTable(const Table& full, bool terminal, int terminal_width, std::ostream& out) {
  out << EscapeForTerminal(full.title) << "\n";
  if (full.rows.empty()) {
    out << "  (none)\n";
    return;
  }
  // Leave decoration columns out when the text isn't for a terminal.
  Table t{full.name, full.title, {}, {}};
  std::vector<size_t> keep;
  for (size_t i = 0; i < full.columns.size(); ++i)
    if (terminal || !full.columns[i].terminal_only) {
      keep.push_back(i);
      t.columns.push_back(full.columns[i]);
    }
  for (const auto& row : full.rows) {
    auto& r = t.rows.emplace_back();
    for (size_t i : keep) r.push_back(row[i]);
  }
  const std::vector<std::string> hidden = terminal && terminal_width > 0
                                              ? FitToTerminal(t, static_cast<size_t>(terminal_width))
                                              : std::vector<std::string>{};
  std::vector<std::vector<std::string>> cells;
  std::vector<size_t> width(t.columns.size());
  std::vector<std::string> header;
  for (const Column& c : t.columns) header.push_back(EscapeForTerminal(c.label));
  for (size_t i = 0; i < t.columns.size(); ++i) width[i] = DisplayWidth(header[i]);
  for (const auto& row : t.rows) {
    auto& r = cells.emplace_back();
    for (size_t i = 0; i < t.columns.size(); ++i) {
      r.push_back(Truncate(TextCell(row[i], t.columns[i]), t.columns[i].max_width));
      width[i] = std::max(width[i], DisplayWidth(r.back()));
    }
  }
  auto emit = [&](const std::vector<std::string>& r, bool header) {
    std::string line = " ";
    for (size_t i = 0; i < r.size(); ++i) {
      size_t pad = width[i] - DisplayWidth(r[i]);
      line += " ";
      if (RightAligned(t.columns[i]) && !header) line += std::string(pad, ' ') + r[i];
      else if (RightAligned(t.columns[i])) line += std::string(pad, ' ') + r[i];
      else line += r[i] + (i + 1 < r.size() ? std::string(pad, ' ') : "");
      line += " ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  };
  emit(header, true);
  for (const auto& r : cells) emit(r, false);
  if (!hidden.empty()) {
    std::string names;
    for (const std::string& h : hidden) names += (names.empty() ? "" : ", ") + h;
    out << "  (all zero, hidden to fit the terminal: " << EscapeForTerminal(names) << ")\n";
  }
}

}  // namespace

void RenderText(const Report& report, const RenderOptions& options, std::ostream& out) {
  for (const std::string& l : report.lines) out << EscapeForTerminal(l) << "\n";
  if (!report.lines.empty()) out << "\n";
  bool first = true;
  size_t hidden_tables = 0;
  for (const Table& t : report.tables) {
    if (t.detail && !options.verbose) {
      ++hidden_tables;
      continue;
    }
    if (!first) out << "\n";
    first = false;
    RenderTable(t, options.terminal, options.terminal_width, out);
  }
  if (hidden_tables)
    out << "\n(" << hidden_tables << " detail table" << (hidden_tables > 1 ? "s" : "")
        << " hidden; --verbose shows them)\n";
  if (!report.notes.empty()) out << "\n";
  for (const std::string& n : report.notes) out << "note: " << EscapeForTerminal(n) << "\n";
  bool any = false;
  for (const DiagnosticEntry& e : report.diagnostics.Entries()) {
    if (e.severity == Severity::kInfo && !options.verbose) continue;
    if (!any) out << "\ndiagnostics:\n";
    any = true;
    out << "  " << SeverityName(e.severity) << "  " << EscapeForTerminal(e.kind) << " ×" << e.count << ": "
        << EscapeForTerminal(e.message);
    if (!e.example.empty()) out << " (e.g. " << EscapeForTerminal(e.example) << ")";
    out << "\n";
  }
  if (!options.verbose) {
    uint64_t hidden = 0;
    for (const DiagnosticEntry& e : report.diagnostics.Entries())
      if (e.severity == Severity::kInfo) hidden += e.count;
    if (hidden) out << (any ? "" : "\n") << "(" << hidden << " info-level diagnostics; --verbose shows them)\n";
  }
}

}  // namespace tfprof
