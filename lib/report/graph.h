// A graph of a report, drawn from two of its tables: one row per node, one
// row per edge. The graph names the tables and says which columns play
// which part (id, label lines, emphasis); the cells stay in the tables, so
// the DOT view and the CSV/JSON views of a graph cannot disagree.
// Renderers draw any Graph; they know nothing about what its nodes are.
#pragma once

#include <string>
#include <vector>

namespace tfprof {

struct Graph {
  std::string name;            // The graph's title (DOT: digraph "name").
  bool left_to_right = false;  // Laid out left to right instead of top to bottom.

  std::string node_table;                  // Table of the report with one row per node.
  std::string node_id = "id";              // Column identifying a node (edges refer to it).
  std::vector<std::string> label_columns;  // First: the node's title; the others show as "label: value".
  std::string bold_column;                 // Optional bool column: the node is emphasised.
  std::string highlight_column;            // Optional bool column: the node is singled out (drawn red).

  std::string edge_table;          // Table of the report with one row per edge.
  std::string edge_from = "from";  // Node ids.
  std::string edge_to = "to";
  std::string edge_bold_column;    // Optional bool column: the edge is emphasised.
  std::string edge_dashed_column;  // Optional bool column: the edge is drawn dashed.
  std::string edge_label_column;   // Optional: a label on the edge.
};

}  // namespace tfprof
