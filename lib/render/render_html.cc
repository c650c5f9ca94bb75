#include "lib/render/render_html.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "fmt/format.h"
#include "lib/render/render.h"

namespace tfprof {
namespace {

// One colour per step-time category, in the steps table's column order.
struct Series {
  std::string key, label, colour;
};
const std::vector<Series>& CategorySeries() {
  static const std::vector<Series> kSeries = {
      {"device_compute_ms", "Device compute", "#1f77b4"},
      {"device_to_device_ms", "Device to device", "#17becf"},
      {"device_collectives_ms", "Device collectives", "#9467bd"},
      {"input_ms", "Input", "#d62728"},
      {"output_ms", "Output", "#ff7f0e"},
      {"kernel_launch_ms", "Kernel launch", "#bcbd22"},
      {"host_compute_ms", "Host compute", "#2ca02c"},
      {"compilation_ms", "Compilation", "#8c564b"},
      {"all_others_ms", "All others", "#9e9e9e"},
  };
  return kSeries;
}

constexpr const char* kStyle = R"(
body{font:14px/1.4 system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:0 16px 48px;color:#222}
h1{font-size:22px;margin:20px 0 4px}h2{font-size:18px;margin:32px 0 8px;border-bottom:1px solid #ddd}
nav a{margin-right:12px}p.line{margin:2px 0;white-space:pre-wrap}
table{border-collapse:collapse;margin:8px 0 4px;font-size:12px}caption{text-align:left;font-weight:600;padding:4px 0}
th,td{border:1px solid #ddd;padding:2px 6px;vertical-align:top}td{max-width:420px;overflow-wrap:anywhere}th{background:#f4f4f4;cursor:pointer;white-space:nowrap}
td.n{text-align:right;font-variant-numeric:tabular-nums}ul.notes{color:#555;font-size:12px}
.unavailable{color:#777;font-style:italic}td.up{background:#fdeee4}td.down{background:#e6f0fb}.sev-error{color:#b00}.sev-warning{color:#a60}
svg text{font:11px system-ui,sans-serif}details{margin:6px 0}div.scroll{overflow-x:auto;max-width:100%}
)";

// Sorting by a click on a column heading; the page reads the same without it.
constexpr const char* kScript = R"(
document.querySelectorAll('table.sortable th').forEach(function(th){th.addEventListener('click',function(){
var t=th.closest('table'),b=t.tBodies[0],i=Array.prototype.indexOf.call(th.parentNode.children,th),
d=th.dataset.dir==='a'?'d':'a';th.dataset.dir=d;var rows=Array.prototype.slice.call(b.rows);
rows.sort(function(x,y){var p=x.cells[i],q=y.cells[i],u=p.dataset.v,v=q.dataset.v,r;
if(u!==undefined&&v!==undefined){r=parseFloat(u)-parseFloat(v);}else{r=p.textContent.localeCompare(q.textContent);}
return d==='a'?r:-r;});rows.forEach(function(r){b.appendChild(r);});});});
)";

std::optional<double> Number(const Cell& cell) {
  if (const auto* d = std::get_if<double>(&cell)) return *d;
  if (const auto* i = std::get_if<int64_t>(&cell)) return static_cast<double>(*i);
  return std::nullopt;
}

std::string CellText(const Cell& cell, const Column& c) {
  if (c.percent && std::holds_alternative<double>(cell)) {
    Column shown = c;
    shown.precision = 1;
    return FormatCell(Cell(std::get<double>(cell) * 100.0), shown) + "%";
  }
  return FormatCell(cell, c);
}

void RenderTable(const Table& t, std::ostream& out) {
  if (t.detail) out << "<details><summary>" << HtmlEscape(t.title) << " (" << t.rows.size() << " rows)</summary>";
  out << "<div class=\"scroll\"><table class=\"sortable\" id=\"t-" << HtmlEscape(t.name) << "\"><caption>"
      << HtmlEscape(t.title) << "</caption><thead><tr>";
  std::vector<size_t> shown;
  for (size_t i = 0; i < t.columns.size(); ++i) {
    if (t.columns[i].terminal_only) continue;
    shown.push_back(i);
    out << "<th title=\"" << HtmlEscape(t.columns[i].key) << "\">" << HtmlEscape(t.columns[i].label) << "</th>";
  }
  out << "</tr></thead><tbody>";
  if (t.rows.empty()) out << "<tr><td colspan=\"" << shown.size() << "\" class=\"unavailable\">(none)</td></tr>";
  for (const auto& row : t.rows) {
    out << "<tr>";
    for (size_t i : shown) {
      const Column& c = t.columns[i];
      const Cell& cell = i < row.size() ? row[i] : Cell{};
      // Deltas (`delta*` columns, as `diff` writes them) are shaded by sign.
      const bool delta = c.key.rfind("delta", 0) == 0;
      if (std::optional<double> v = Number(cell))
        out << "<td class=\"n"
            << (delta && *v > 0   ? " up"
                : delta && *v < 0 ? " down"
                                  : "")
            << "\" data-v=\"" << fmt::format("{}", *v) << "\">" << HtmlEscape(CellText(cell, c)) << "</td>";
      else out << "<td>" << HtmlEscape(CellText(cell, c)) << "</td>";
    }
    out << "</tr>";
  }
  out << "</tbody></table></div>";
  if (t.detail) out << "</details>";
}

// --- Charts ---------------------------------------------------------------------------

double NiceMax(double v) {
  if (v <= 0) return 1;
  const double p = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * p >= v) return m * p;
  return 10 * p;
}

void Legend(const std::vector<Series>& series, double x, double y, std::ostream& out) {
  for (const Series& s : series) {
    out << fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"10\" height=\"10\" fill=\"{}\"/>", x, y, s.colour)
        << fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>", x + 14, y + 9, HtmlEscape(s.label));
    x += 22 + 7.0 * static_cast<double>(s.label.size());
  }
}

// Stacked bars of the step-time categories, one per row: the step-time
// graph (table `steps`: a bar per step, labelled by its number) and the
// hosts table (a bar per host's average step, labelled by the host: the
// straggler's bar is the one whose work is not grey).
void StepsChart(const Table& t, std::ostream& out) {
  const bool hosts = t.name == "hosts";
  const int step_col = t.ColumnIndex(hosts ? "host" : "step"),
            time_col = t.ColumnIndex(hosts ? "step_avg_ms" : "step_time_ms"),
            number_col = hosts ? -1 : t.ColumnIndex("step_number");
  if (time_col < 0 || t.rows.empty()) return;
  std::vector<std::pair<Series, int>> cols;
  for (const Series& s : CategorySeries())
    if (int c = t.ColumnIndex(s.key); c >= 0) cols.emplace_back(s, c);
  double top = 0;
  for (const auto& row : t.rows) top = std::max(top, Number(row[time_col]).value_or(0));
  top = NiceMax(top);
  const double width = 1000, height = 260, left = 50, bottom = 40, plot_h = height - bottom - 30;
  const double slot = (width - left - 10) / static_cast<double>(t.rows.size());
  const double bar_w = std::min(slot, 60.0);
  out << fmt::format(
      "<svg role=\"img\" width=\"100%\" "
      "viewBox=\"0 0 {0} {1}\"><title>Step time per step (ms)</title>",
      width, height);
  for (int k = 0; k <= 4; ++k) {
    const double v = top * k / 4, y = 30 + plot_h - plot_h * k / 4;
    out << fmt::format("<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>", left,
                       width - 10, y, y)
        << fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{:g}</text>", left - 4, y + 4, v);
  }
  for (size_t r = 0; r < t.rows.size(); ++r) {
    const auto& row = t.rows[r];
    const double x = left + slot * static_cast<double>(r) + (slot - bar_w) / 2 + bar_w * 0.1;
    double y = 30 + plot_h;
    const std::string step = step_col >= 0 ? FormatCell(row[step_col], t.columns[step_col]) : std::to_string(r);
    for (const auto& [s, c] : cols) {
      const double v = Number(row[c]).value_or(0);
      if (v <= 0) continue;
      const double h = plot_h * v / top;
      y -= h;
      out << fmt::format(
          "<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"{}\"><title>{}: {} "
          "{:.3f} ms</title></rect>",
          x, y, bar_w * 0.8, h, s.colour, HtmlEscape(step), HtmlEscape(s.label), v);
    }
    // Axis labels: the step number (the name is in each segment's tooltip).
    const std::string label = number_col >= 0 ? FormatCell(row[number_col], t.columns[number_col]) : step;
    if (slot >= 14)
      out << fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>", x + bar_w * 0.4,
                         30 + plot_h + 14, HtmlEscape(label));
  }
  std::vector<Series> legend;
  for (const auto& [s, c] : cols) legend.push_back(s);
  Legend(legend, left, height - 14, out);
  out << "</svg>";
}

// The breakdown as one bar of 100%.
void BreakdownChart(const Table& t, std::ostream& out) {
  const int cat = t.ColumnIndex("category"), pct = t.ColumnIndex("percent");
  if (cat < 0 || pct < 0) return;
  const double width = 1000, left = 10, w = width - 20;
  out << fmt::format(
      "<svg role=\"img\" width=\"100%\" "
      "viewBox=\"0 0 {0} 60\"><title>Step-time breakdown (% of step time)</title>",
      width);
  double x = left;
  std::vector<Series> legend;
  for (const auto& row : t.rows) {
    const std::string name = std::get_if<std::string>(&row[cat]) ? std::get<std::string>(row[cat]) : "";
    auto s = std::find_if(CategorySeries().begin(), CategorySeries().end(),
                          [&](const Series& x) { return x.label == name; });
    const double p = Number(row[pct]).value_or(0);
    if (s == CategorySeries().end() || p <= 0) continue;  // "Step time" itself, and empty categories.
    const double bw = w * p / 100.0;
    out << fmt::format(
        "<rect x=\"{:.2f}\" y=\"4\" width=\"{:.2f}\" height=\"24\" fill=\"{}\"><title>{}: "
        "{:.1f}%</title></rect>",
        x, bw, s->colour, HtmlEscape(name), p);
    x += bw;
    legend.push_back(*s);
  }
  Legend(legend, left, 42, out);
  out << "</svg>";
}

// The memory timeline: the first size column after the time, as a line.
void TimelineChart(const Table& t, std::ostream& out) {
  const int time = t.ColumnIndex("time_ms");
  if (time < 0 || t.rows.size() < 2) return;
  std::vector<int> sizes;
  for (const char* key : {"heap_mib", "heap_gib", "heap_bytes", "allocated_mib", "allocated_gib", "allocated_bytes",
                          "stack_mib", "stack_gib", "stack_bytes"})
    if (int c = t.ColumnIndex(key); c >= 0) sizes.push_back(c);
  if (sizes.empty()) return;
  const int host = t.ColumnIndex("memory_id");
  // One line per allocator.
  std::map<std::string, std::vector<std::pair<double, double>>> lines;
  double t0 = INFINITY, t1 = -INFINITY, top = 0;
  for (const auto& row : t.rows) {
    const double x = Number(row[time]).value_or(0);
    double y = 0;
    for (int c : sizes) y += Number(row[c]).value_or(0);
    const std::string id = host >= 0 && std::get_if<std::string>(&row[host]) ? std::get<std::string>(row[host]) : "";
    lines[id].emplace_back(x, y);
    t0 = std::min(t0, x), t1 = std::max(t1, x), top = std::max(top, y);
  }
  top = NiceMax(top);
  if (t1 <= t0) t1 = t0 + 1;
  const double width = 1000, height = 240, left = 60, plot_w = width - left - 10, plot_h = height - 60;
  out << fmt::format(
      "<svg role=\"img\" width=\"100%\" "
      "viewBox=\"0 0 {0} {1}\"><title>Memory in use over time ({2})</title>",
      width, height, HtmlEscape(t.columns[sizes.front()].unit));
  for (int k = 0; k <= 4; ++k) {
    const double y = 20 + plot_h - plot_h * k / 4;
    out << fmt::format("<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>", left,
                       width - 10, y, y)
        << fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{:g}</text>", left - 4, y + 4, top * k / 4);
  }
  static const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd"};
  size_t n = 0;
  std::vector<Series> legend;
  for (const auto& [id, points] : lines) {
    std::string path;
    for (const auto& [x, y] : points)
      path += fmt::format("{:.1f},{:.1f} ", left + plot_w * (x - t0) / (t1 - t0), 20 + plot_h - plot_h * y / top);
    const char* colour = kColours[n++ % std::size(kColours)];
    out << "<polyline fill=\"none\" stroke-width=\"1.5\" stroke=\"" << colour << "\" points=\"" << path << "\"><title>"
        << HtmlEscape(id) << "</title></polyline>";
    legend.push_back({"", id.empty() ? "memory" : id, colour});
  }
  out << fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{:.3f} ms</text>", left, height - 26, t0)
      << fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{:.3f} ms</text>", width - 10, height - 26,
                     t1);
  Legend(legend, left, height - 14, out);
  out << "</svg>";
}

// A report graph: nodes in layers by their depth from the roots.
void GraphChart(const Report& report, const Graph& g, std::ostream& out) {
  const Table* nodes = report.FindTable(g.node_table);
  const Table* edges = report.FindTable(g.edge_table);
  if (!nodes || !edges || nodes->rows.empty()) return;
  const int id_col = nodes->ColumnIndex(g.node_id);
  const int title_col = g.label_columns.empty() ? id_col : nodes->ColumnIndex(g.label_columns.front());
  const int hi_col = g.highlight_column.empty() ? -1 : nodes->ColumnIndex(g.highlight_column);
  const int from_col = edges->ColumnIndex(g.edge_from), to_col = edges->ColumnIndex(g.edge_to);
  if (id_col < 0 || from_col < 0 || to_col < 0) return;
  auto text = [](const Cell& c, const Column& col) { return FormatCell(c, col); };
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < nodes->rows.size(); ++i) index[text(nodes->rows[i][id_col], nodes->columns[id_col])] = i;
  std::vector<std::vector<size_t>> children(nodes->rows.size());
  std::vector<int> parents(nodes->rows.size(), 0);
  std::vector<std::pair<size_t, size_t>> links;
  for (const auto& row : edges->rows) {
    auto a = index.find(text(row[from_col], edges->columns[from_col]));
    auto b = index.find(text(row[to_col], edges->columns[to_col]));
    if (a == index.end() || b == index.end()) continue;
    children[a->second].push_back(b->second);
    ++parents[b->second];
    links.emplace_back(a->second, b->second);
  }
  std::vector<int> depth(nodes->rows.size(), -1);
  std::vector<size_t> queue;
  for (size_t i = 0; i < depth.size(); ++i)
    if (parents[i] == 0) depth[i] = 0, queue.push_back(i);
  for (size_t q = 0; q < queue.size(); ++q)
    for (size_t c : children[queue[q]])
      if (depth[c] < 0) depth[c] = depth[queue[q]] + 1, queue.push_back(c);
  for (int& d : depth) d = std::max(d, 0);  // Cycles: drawn at the top.
  std::map<int, std::vector<size_t>> layers;
  for (size_t i = 0; i < depth.size(); ++i) layers[depth[i]].push_back(i);
  size_t widest = 1;
  for (const auto& [d, l] : layers) widest = std::max(widest, l.size());
  const double box_w = 220, box_h = 34, gap_x = 20, gap_y = 40;
  const double width = std::max(400.0, static_cast<double>(widest) * (box_w + gap_x) + 20);
  const double height = static_cast<double>(layers.size()) * (box_h + gap_y) + 20;
  std::vector<std::pair<double, double>> at(nodes->rows.size());
  for (const auto& [d, l] : layers)
    for (size_t k = 0; k < l.size(); ++k)
      at[l[k]] = {10 + static_cast<double>(k) * (box_w + gap_x), 10 + d * (box_h + gap_y)};
  out << fmt::format(
      "<svg role=\"img\" width=\"{0:.0f}\" style=\"max-width:100%;height:auto\" "
      "viewBox=\"0 0 {0:.0f} {1:.0f}\"><title>{2}</title>",
      width, height, HtmlEscape(g.name));
  for (const auto& [a, b] : links)
    out << fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#888\"/>",
                       at[a].first + box_w / 2, at[a].second + box_h, at[b].first + box_w / 2, at[b].second);
  for (size_t i = 0; i < nodes->rows.size(); ++i) {
    const auto& row = nodes->rows[i];
    const bool hot = hi_col >= 0 && std::get_if<bool>(&row[hi_col]) && std::get<bool>(row[hi_col]);
    std::string label = title_col >= 0 ? text(row[title_col], nodes->columns[title_col]) : "";
    std::string tip;
    for (size_t c = 0; c < nodes->columns.size(); ++c)
      tip += nodes->columns[c].label + ": " + text(row[c], nodes->columns[c]) + "\n";
    out << fmt::format(
        "<g><title>{}</title><rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{}\" height=\"{}\" rx=\"4\" "
        "fill=\"{}\" stroke=\"{}\"/><text x=\"{:.1f}\" y=\"{:.1f}\">{}</text></g>",
        HtmlEscape(tip), at[i].first, at[i].second, box_w, box_h, hot ? "#fde0dc" : "#eef3fb",
        hot ? "#d62728" : "#7a9cc6", at[i].first + 6, at[i].second + 21,
        HtmlEscape(label.size() > 34 ? label.substr(0, 33) + "…" : label));
  }
  out << "</svg>";
}

void RenderDiagnostics(const Diagnostics& d, std::ostream& out) {
  const std::vector<DiagnosticEntry> entries = d.Entries();
  if (entries.empty()) return;
  out << "<details><summary>Diagnostics (" << entries.size()
      << " kinds)</summary><table class=\"sortable\"><thead><tr><th>severity</th><th>kind</th><th>count</th>"
         "<th>meaning</th><th>example</th></tr></thead><tbody>";
  for (const DiagnosticEntry& e : entries) {
    const char* sev = e.severity == Severity::kError ? "error" : e.severity == Severity::kWarning ? "warning" : "info";
    out << "<tr class=\"sev-" << sev << "\"><td>" << sev << "</td><td>" << HtmlEscape(e.kind) << "</td><td class=\"n\" "
        << "data-v=\"" << e.count << "\">" << e.count << "</td><td>" << HtmlEscape(e.message) << "</td><td>"
        << HtmlEscape(e.example) << "</td></tr>";
  }
  out << "</tbody></table></details>";
}

void RenderReportBody(const Report& r, std::ostream& out) {
  for (const std::string& line : r.lines) out << "<p class=\"line\">" << HtmlEscape(line) << "</p>";
  for (const Table& t : r.tables) {
    if (t.name == "steps" || t.name == "hosts") StepsChart(t, out);
    if (t.name == "step_time_breakdown") BreakdownChart(t, out);
    if (t.name == "timeline") TimelineChart(t, out);
  }
  for (const Graph& g : r.graphs) GraphChart(r, g, out);
  for (const Table& t : r.tables) RenderTable(t, out);
  if (!r.notes.empty()) {
    out << "<ul class=\"notes\">";
    for (const std::string& n : r.notes) out << "<li>" << HtmlEscape(n) << "</li>";
    out << "</ul>";
  }
  RenderDiagnostics(r.diagnostics, out);
}

}  // namespace

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        // Control characters other than tab and newline have no place in HTML text.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') out += "\xef\xbf\xbd";
        else out += c;
    }
  }
  return out;
}

void RenderHtmlPage(const std::string& title, const std::vector<HtmlSection>& sections, std::ostream& out) {
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
         "content=\"width=device-width\"><title>"
      << HtmlEscape(title) << "</title><style>" << kStyle << "</style></head><body><h1>" << HtmlEscape(title)
      << "</h1>";
  if (sections.size() > 1) {
    out << "<nav>";
    for (const HtmlSection& s : sections)
      out << "<a href=\"#" << HtmlEscape(s.id) << "\">" << HtmlEscape(s.title) << "</a>";
    out << "</nav>";
  }
  for (const HtmlSection& s : sections) {
    out << "<section id=\"" << HtmlEscape(s.id) << "\"><h2>" << HtmlEscape(s.title) << "</h2>";
    if (s.report) RenderReportBody(*s.report, out);
    else out << "<p class=\"unavailable\">" << HtmlEscape(s.unavailable) << "</p>";
    out << "</section>\n";
  }
  out << "<script>" << kScript << "</script></body></html>\n";
}

void RenderHtml(const Report& report, std::ostream& out) {
  RenderHtmlPage("tfprof-analyze " + report.command, {{report.command, report.command, &report, ""}}, out);
}

}  // namespace tfprof
