// Renders a graph held in two report tables (one row per node, one row per
// edge) as Graphviz DOT. Generic: the caller says which columns identify
// nodes, make up their labels and choose their style.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "lib/report/report.h"

namespace tfprof {

struct DotStyle {
  std::string graph_name = "graph";
  std::string node_id = "id";              // Nodes: the column that identifies a node.
  std::vector<std::string> label_columns;  // Nodes: first is the title; the others show as "label: value".
  std::string bold_column;                 // Nodes: a bool column drawing the node bold.
  std::string highlight_column;            // Nodes: a bool column drawing the node red (and filled).
  std::string edge_from = "from";          // Edges: node ids.
  std::string edge_to = "to";
  std::string edge_bold_column;            // Edges: bool column drawing the edge bold.
  std::string edge_dashed_column;          // Edges: bool column drawing the edge dashed.
  std::string edge_label_column;           // Edges: optional label.
  bool left_to_right = false;              // rankdir=LR instead of top to bottom.
};

// Throws std::invalid_argument when a named column is missing.
void RenderDot(const Table& nodes, const Table& edges, const DotStyle& style, std::ostream& out);

// A DOT double-quoted string with quotes, backslashes and newlines escaped.
std::string DotQuote(const std::string& s);

}  // namespace tfprof
