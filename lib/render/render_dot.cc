#include "lib/render/render_dot.h"

#include <stdexcept>

#include "lib/render/render.h"

namespace tfprof {
namespace {

int Require(const Table& t, const std::string& key) {
  int i = t.ColumnIndex(key);
  if (i < 0) throw std::invalid_argument("table '" + t.name + "' has no column '" + key + "' to draw");
  return i;
}

// -1 when the style leaves the column out.
int Optional(const Table& t, const std::string& key) { return key.empty() ? -1 : Require(t, key); }

bool IsTrue(const std::vector<Cell>& row, int column) {
  if (column < 0) return false;
  const bool* b = std::get_if<bool>(&row[column]);
  return b != nullptr && *b;
}

}  // namespace

std::string DotQuote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

void RenderDot(const Report& report, std::ostream& out) {
  if (report.graphs.empty()) throw std::invalid_argument("the " + report.command + " report has no graph to draw");
  const Graph& graph = report.graphs.front();
  const Table* nodes = report.FindTable(graph.node_table);
  const Table* edges = report.FindTable(graph.edge_table);
  if (!nodes || !edges)
    throw std::invalid_argument("graph '" + graph.name + "' names a table the report lacks ('" +
                                (nodes ? graph.edge_table : graph.node_table) + "')");
  RenderDot(graph, *nodes, *edges, out);
}

void RenderDot(const Graph& style, const Table& nodes, const Table& edges, std::ostream& out) {
  const int id = Require(nodes, style.node_id);
  std::vector<int> labels;
  for (const std::string& key : style.label_columns) labels.push_back(Require(nodes, key));
  const int bold = Optional(nodes, style.bold_column);
  const int highlight = Optional(nodes, style.highlight_column);
  const int from = Require(edges, style.edge_from), to = Require(edges, style.edge_to);
  const int edge_bold = Optional(edges, style.edge_bold_column);
  const int edge_dashed = Optional(edges, style.edge_dashed_column);
  const int edge_label = Optional(edges, style.edge_label_column);

  out << "digraph " << DotQuote(style.name) << " {\n";
  if (style.left_to_right) out << "  rankdir=LR;\n";
  out << "  node [shape=box, fontname=\"Helvetica\"];\n";
  for (const auto& row : nodes.rows) {
    std::string label;
    for (size_t i = 0; i < labels.size(); ++i) {
      const Column& c = nodes.columns[labels[i]];
      std::string value = FormatCell(row[labels[i]], c);
      label += i == 0 ? value : "\n" + c.label + ": " + value;
    }
    if (labels.empty()) label = FormatCell(row[id], nodes.columns[id]);
    out << "  " << DotQuote(FormatCell(row[id], nodes.columns[id])) << " [label=" << DotQuote(label);
    std::string styles;
    if (IsTrue(row, bold)) styles = "bold";
    if (IsTrue(row, highlight)) {
      styles += styles.empty() ? "filled" : ",filled";
      out << ", color=red, fillcolor=\"#ffdddd\"";
    }
    if (!styles.empty()) out << ", style=" << DotQuote(styles);
    if (IsTrue(row, bold)) out << ", penwidth=2";
    out << "];\n";
  }
  for (const auto& row : edges.rows) {
    out << "  " << DotQuote(FormatCell(row[from], edges.columns[from])) << " -> "
        << DotQuote(FormatCell(row[to], edges.columns[to]));
    std::vector<std::string> attrs;
    std::string styles;
    if (IsTrue(row, edge_bold)) styles = "bold";
    if (IsTrue(row, edge_dashed)) styles += styles.empty() ? "dashed" : ",dashed";
    if (!styles.empty()) attrs.push_back("style=" + DotQuote(styles));
    if (IsTrue(row, edge_bold)) attrs.push_back("penwidth=2");
    if (edge_label >= 0) {
      std::string text = FormatCell(row[edge_label], edges.columns[edge_label]);
      if (!text.empty()) attrs.push_back("label=" + DotQuote(text));
    }
    if (!attrs.empty()) {
      out << " [";
      for (size_t i = 0; i < attrs.size(); ++i) out << (i ? ", " : "") << attrs[i];
      out << "]";
    }
    out << ";\n";
  }
  out << "}\n";
}

}  // namespace tfprof
