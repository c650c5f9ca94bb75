// Each renderer on one small report built here, against output written out
// by hand from the format's rules (column widths, CSV quoting, JSON layout,
// DOT attributes, JUnit elements), not captured from the tool.
#include <catch2/catch.hpp>

#include <sstream>
#include <stdexcept>

#include "lib/render/render.h"

using namespace tfprof;

namespace {

// Two ops, one of them with a name CSV must quote and no self time; a
// percentage column; a bar for terminals only; a detail table; a note.
Report OpsReport() {
  Report r;
  r.command = "demo";
  r.lines.push_back("2 ops on 1 host");
  Table t{"ops", "Ops", {}, {}};
  t.Add({"op_name", "op"})
      .Add({"calls", "calls", ColumnType::kInt}, "count")
      .Add({"self_us", "self (us)", ColumnType::kDouble, 3}, "us")
      .Add({"share", "share", ColumnType::kDouble, 6, 0, "Share (%)", /*percent=*/true}, "fraction")
      .Add({"bar", "", ColumnType::kString, 0, 0, "", false, /*terminal_only=*/true});
  t.AddRow()
      .Set("op_name", std::string("MatMul"))
      .Set("calls", int64_t{3})
      .Set("self_us", 12.5)
      .Set("share", 0.75)
      .Set("bar", std::string("###"));
  t.AddRow()
      .Set("op_name", std::string("Add, \"x\""))
      .Set("calls", int64_t{1})
      .Set("share", 0.25)
      .Set("bar", std::string("#"));
  r.tables.push_back(std::move(t));
  Table d{"detail", "Detail", {}, {}};
  d.detail = true;
  d.Add({"name", "name"});
  d.AddRow().Set("name", std::string("x"));
  r.tables.push_back(std::move(d));
  r.notes.push_back("fractions are of the ops' own time");
  return r;
}

std::string Rendered(const Report& r, RenderOptions o) {
  std::ostringstream out;
  Render(r, o, out);
  return out.str();
}

}  // namespace

TEST_CASE("Text: headline, aligned columns, percent, hidden detail, notes", "[render]") {
  // Strings left, numbers right; two spaces between columns; a fraction
  // column as a percentage with one decimal; the bar only on a terminal.
  CHECK(Rendered(OpsReport(), {.format = OutputFormat::kTable}) ==
        "2 ops on 1 host\n"
        "\n"
        "Ops\n"
        "  op        calls  self (us)  share\n"
        "  MatMul        3     12.500  75.0%\n"
        "  Add, \"x\"      1             25.0%\n"
        "\n"
        "(1 detail table hidden; --verbose shows them)\n"
        "\n"
        "note: fractions are of the ops' own time\n");
  CHECK(Rendered(OpsReport(), {.format = OutputFormat::kTable, .verbose = true, .terminal = true}) ==
        "2 ops on 1 host\n"
        "\n"
        "Ops\n"
        "  op        calls  self (us)  share\n"
        "  MatMul        3     12.500  75.0%  ###\n"
        "  Add, \"x\"      1             25.0%  #\n"
        "\n"
        "Detail\n"
        "  name\n"
        "  x\n"
        "\n"
        "note: fractions are of the ops' own time\n");
}

TEST_CASE("Text on a narrow terminal: all-zero columns hidden, then bars drawn narrower", "[render]") {
  Report r;
  Table t{"steps", "T", {}, {}};
  t.Add({"step", "step"})
      .Add({"total", "total", ColumnType::kDouble, 1})
      .Add({"zeros", "zeros", ColumnType::kDouble, 1})
      .Add({"bar", "", ColumnType::kString, 0, 0, "", false, /*terminal_only=*/true});
  t.AddRow()
      .Set("step", std::string("a"))
      .Set("total", 10.0)
      .Set("zeros", 0.0)
      .Set("bar", std::string(10, 'I') + std::string(10, 'H'));
  t.AddRow()
      .Set("step", std::string("b"))
      .Set("total", 5.0)
      .Set("zeros", 0.0)
      .Set("bar", std::string(5, 'I') + std::string(5, 'H'));
  r.tables.push_back(std::move(t));
  // 43 columns wide; at 30 the zero column goes (36), then the bars shrink
  // from 20 to 14 characters, each to 14/20 of its length, the letters at
  // evenly spaced positions.
  CHECK(Rendered(r, {.format = OutputFormat::kTable, .terminal = true, .terminal_width = 30}) ==
        "T\n"
        "  step  total\n"
        "  a      10.0  IIIIIIIHHHHHHH\n"
        "  b       5.0  IIIIHHH\n"
        "  (all zero, hidden to fit the terminal: zeros)\n");
  // Wide enough: as it was.
  CHECK(Rendered(r, {.format = OutputFormat::kTable, .terminal = true, .terminal_width = 43}) ==
        "T\n"
        "  step  total  zeros\n"
        "  a      10.0    0.0  IIIIIIIIIIHHHHHHHHHH\n"
        "  b       5.0    0.0  IIIIIHHHHH\n");
  // Not a terminal: no fitting, no bars.
  CHECK(Rendered(r, {.format = OutputFormat::kTable, .terminal_width = 30}) ==
        "T\n"
        "  step  total  zeros\n"
        "  a      10.0    0.0\n"
        "  b       5.0    0.0\n");
}

TEST_CASE("CSV: keys or CSV headers, RFC 4180 quoting, column precision", "[render]") {
  CHECK(Rendered(OpsReport(), {.format = OutputFormat::kCsv}) ==
        "op_name,calls,self_us,Share (%)\n"
        "MatMul,3,12.500,0.750000\n"
        "\"Add, \"\"x\"\"\",1,,0.250000\n");
  CHECK(Rendered(OpsReport(), {.format = OutputFormat::kCsv, .csv_table = "detail"}) == "name\nx\n");
  CHECK_THROWS_AS(Rendered(OpsReport(), {.format = OutputFormat::kCsv, .csv_table = "nope"}), std::invalid_argument);
}

TEST_CASE("JSON: every table by key, full precision, empty cells null", "[render]") {
  CHECK(Rendered(OpsReport(), {.format = OutputFormat::kJson}) == R"({
  "command": "demo",
  "schema_version": 1,
  "statements": [
    "2 ops on 1 host"
  ],
  "tables": {
    "ops": [
      {
        "op_name": "MatMul",
        "calls": 3,
        "self_us": 12.5,
        "share": 0.75
      },
      {
        "op_name": "Add, \"x\"",
        "calls": 1,
        "self_us": null,
        "share": 0.25
      }
    ],
    "detail": [
      {
        "name": "x"
      }
    ]
  },
  "notes": [
    "fractions are of the ops' own time"
  ],
  "diagnostics": []
}
)");
}

TEST_CASE("DOT: a report graph drawn from its node and edge tables", "[render][dot]") {
  Report r;
  r.command = "demo";
  Table nodes{"nodes", "Nodes", {}, {}};
  nodes.Add({"id", "id"})
      .Add({"name", "name"})
      .Add({"self_us", "self (us)", ColumnType::kDouble, 3}, "us")
      .Add({"hot", "hot", ColumnType::kBool})
      .Add({"slow", "slow", ColumnType::kBool});
  nodes.AddRow()
      .Set("id", std::string("a"))
      .Set("name", std::string("Read"))
      .Set("self_us", 1.5)
      .Set("hot", true)
      .Set("slow", false);
  nodes.AddRow()
      .Set("id", std::string("b"))
      .Set("name", std::string("Map \"x\""))
      .Set("self_us", 20.0)
      .Set("hot", true)
      .Set("slow", true);
  nodes.AddRow().Set("id", std::string("c")).Set("name", std::string("Batch")).Set("hot", false).Set("slow", false);
  Table edges{"edges", "Edges", {}, {}};
  edges.Add({"from", "from"}).Add({"to", "to"}).Add({"main", "main", ColumnType::kBool}).Add({"note", "note"});
  edges.AddRow().Set("from", std::string("a")).Set("to", std::string("b")).Set("main", true);
  edges.AddRow()
      .Set("from", std::string("b"))
      .Set("to", std::string("c"))
      .Set("main", false)
      .Set("note", std::string("async"));
  r.tables.push_back(std::move(nodes));
  r.tables.push_back(std::move(edges));

  // Without a graph there is nothing to draw.
  CHECK_THROWS_AS(Rendered(r, {.format = OutputFormat::kDot}), std::invalid_argument);

  Graph g;
  g.name = "demo graph";
  g.left_to_right = true;
  g.node_table = "nodes";
  g.label_columns = {"name", "self_us"};
  g.bold_column = "hot";
  g.highlight_column = "slow";
  g.edge_table = "edges";
  g.edge_bold_column = "main";
  g.edge_label_column = "note";
  r.graphs.push_back(g);
  CHECK(
      Rendered(r, {.format = OutputFormat::kDot}) ==
      "digraph \"demo graph\" {\n"
      "  rankdir=LR;\n"
      "  node [shape=box, fontname=\"Helvetica\"];\n"
      "  \"a\" [label=\"Read\\nself (us): 1.500\", style=\"bold\", penwidth=2];\n"
      "  \"b\" [label=\"Map \\\"x\\\"\\nself (us): 20.000\", color=red, fillcolor=\"#ffdddd\", style=\"bold,filled\", "
      "penwidth=2];\n"
      "  \"c\" [label=\"Batch\\nself (us): \"];\n"
      "  \"a\" -> \"b\" [style=\"bold\", penwidth=2];\n"
      "  \"b\" -> \"c\" [label=\"async\"];\n"
      "}\n");

  // A graph naming a column its table lacks is refused, not drawn half.
  r.graphs.front().bold_column = "missing";
  CHECK_THROWS_AS(Rendered(r, {.format = OutputFormat::kDot}), std::invalid_argument);
  r.graphs.front().bold_column = "hot";
  r.graphs.front().edge_table = "missing";
  CHECK_THROWS_AS(Rendered(r, {.format = OutputFormat::kDot}), std::invalid_argument);
}

TEST_CASE("JUnit: a report of outcomes as one suite with properties", "[render][check]") {
  Report r;
  r.command = "check";
  Table t{"outcomes", "Outcomes", {}, {}};
  t.Add({"name", "rule"}).Add({"status", "status"}).Add({"message", "message"}).Add({"origin", "from"});
  t.AddRow()
      .Set("name", std::string("a <= 1"))
      .Set("status", std::string("pass"))
      .Set("message", std::string("a = 0.5"))
      .Set("origin", std::string("--max"));
  t.AddRow()
      .Set("name", std::string("b >= 2"))
      .Set("status", std::string("FAIL"))
      .Set("message", std::string("b = 1, not >= 2"))
      .Set("origin", std::string());
  t.AddRow()
      .Set("name", std::string("c & d"))
      .Set("status", std::string("skip"))
      .Set("message", std::string("c is not in this capture"))
      .Set("origin", std::string("rules.txt"));
  r.tables.push_back(std::move(t));
  Table p{"properties", "Properties", {}, {}};
  p.Add({"name", "name"}).Add({"value", "value"});
  p.AddRow().Set("name", std::string("input")).Set("value", std::string("run<1>"));
  r.tables.push_back(std::move(p));

  CHECK(Rendered(r, {.format = OutputFormat::kJUnit}) ==
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<testsuites name=\"tfprof-analyze check\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\">\n"
        "  <testsuite name=\"tfprof-analyze check\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\" time=\"0\">\n"
        "    <properties>\n"
        "      <property name=\"input\" value=\"run&lt;1&gt;\"/>\n"
        "    </properties>\n"
        "    <testcase classname=\"tfprof.check\" name=\"a &lt;= 1\" time=\"0\">\n"
        "      <system-out>a = 0.5\n(rule from --max)</system-out>\n"
        "    </testcase>\n"
        "    <testcase classname=\"tfprof.check\" name=\"b &gt;= 2\" time=\"0\">\n"
        "      <failure message=\"b = 1, not &gt;= 2\" type=\"threshold\">b = 1, not &gt;= 2</failure>\n"
        "    </testcase>\n"
        "    <testcase classname=\"tfprof.check\" name=\"c &amp; d\" time=\"0\">\n"
        "      <skipped message=\"c is not in this capture\"/>\n"
        "    </testcase>\n"
        "  </testsuite>\n"
        "</testsuites>\n");

  // An unknown status is a bug in the report, not a passing case.
  r.tables.front().rows.front()[1] = std::string("maybe");
  CHECK_THROWS_AS(Rendered(r, {.format = OutputFormat::kJUnit}), std::invalid_argument);
  // A report that is no outcome report.
  CHECK_THROWS_AS(Rendered(Report{}, {.format = OutputFormat::kJUnit}), std::invalid_argument);
}
