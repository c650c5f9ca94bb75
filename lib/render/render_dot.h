// Graphviz DOT for a report's graph (lib/report/graph.h): its node and edge
// tables drawn as a digraph. Generic: the Graph says which columns identify
// nodes, make up their labels and choose their style.
#pragma once

#include <ostream>
#include <string>

#include "lib/report/report.h"

namespace tfprof {

// Draws the report's first graph. Throws std::invalid_argument when the
// report has no graph, or the graph names a table or column the report
// lacks.
void RenderDot(const Report& report, std::ostream& out);

// Draws `graph` from its node and edge tables.
void RenderDot(const Graph& graph, const Table& nodes, const Table& edges, std::ostream& out);

// A DOT double-quoted string with quotes, backslashes and newlines escaped.
std::string DotQuote(const std::string& s);

}  // namespace tfprof
