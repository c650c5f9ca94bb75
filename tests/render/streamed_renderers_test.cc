// RenderJson and RenderCsv write straight into a buffer; these tests hold
// them to the bytes of the way they worked before: the JSON to nlohmann's
// dump(2) of the same document built as values, on reports chosen for the
// corners of the format (escapes, invalid UTF-8, doubles' shortest forms,
// repeated names and keys, empty parts) and on random ones; the CSV to its
// cells formatted, made formula-safe and escaped one by one by the
// renderers' shared functions. Those functions and RenderCsv share their
// rules (render_csv.cc), which renderers_test.cc and terminal_text_test.cc
// check by hand; here what RenderCsv puts together: the header, the
// prefix inside the quotes, columns left out, a table past one chunk.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <sstream>

#include "lib/model/diagnostics.h"
#include "lib/render/render.h"
#include "nlohmann/json.hpp"

using namespace tfprof;

namespace {

// The document as values, dumped: the reference the writer must equal.
std::string DumpedAsValues(const Report& report) {
  auto cell = [](const Cell& c) -> nlohmann::ordered_json {
    if (std::holds_alternative<std::string>(c)) return std::get<std::string>(c);
    if (std::holds_alternative<int64_t>(c)) return std::get<int64_t>(c);
    if (std::holds_alternative<bool>(c)) return std::get<bool>(c);
    if (std::holds_alternative<double>(c)) {
      const double v = std::get<double>(c);
      if (!std::isfinite(v)) return nullptr;
      return v;
    }
    return nullptr;
  };
  nlohmann::ordered_json doc;
  doc["command"] = report.command;
  doc["schema_version"] = 1;
  doc["statements"] = report.lines;
  nlohmann::ordered_json tables = nlohmann::ordered_json::object();
  for (const Table& t : report.tables) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const auto& row : t.rows) {
      nlohmann::ordered_json r = nlohmann::ordered_json::object();
      for (size_t i = 0; i < t.columns.size(); ++i)
        if (!t.columns[i].terminal_only) r[t.columns[i].key] = cell(row[i]);
      rows.push_back(std::move(r));
    }
    tables[t.name] = std::move(rows);
  }
  doc["tables"] = std::move(tables);
  doc["notes"] = report.notes;
  nlohmann::ordered_json diags = nlohmann::ordered_json::array();
  for (const DiagnosticEntry& e : report.diagnostics.Entries())
    diags.push_back({{"severity", SeverityName(e.severity)},
                     {"kind", e.kind},
                     {"count", e.count},
                     {"message", e.message},
                     {"example", e.example}});
  doc["diagnostics"] = std::move(diags);
  return doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string Written(const Report& report) {
  std::ostringstream out;
  RenderJson(report, out);
  return out.str();
}

Column Col(std::string key, bool terminal_only = false) {
  Column c;
  c.key = std::move(key);
  c.label = c.key;
  c.terminal_only = terminal_only;
  return c;
}

// Strings a report can carry: plain, escaped, multi-byte, invalid UTF-8.
const std::vector<std::string>& OddStrings() {
  static const std::vector<std::string> kStrings = {
      "",
      "MatMul",
      "say \"hi\"",
      "back\\slash",
      "tab\there\nnew line\r\b\f",
      std::string("nul\0inside", 10),
      "\x01\x1f control",
      "del \x7f",
      "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",  // é € 😀
      "bad \xff byte",
      "cut \xe2\x82",       // a three-byte sequence cut short
      "\xc0\xaf overlong",  // an overlong '/'
      "\xed\xa0\x80 surrogate",
      "/slash/ and {braces} [brackets]: 50%",
  };
  return kStrings;
}

}  // namespace

TEST_CASE("JSON: a report of every kind of cell equals the dump of its values") {
  Report r;
  r.command = "demo \"cmd\"";
  r.lines = {"one line", "caf\xc3\xa9", "bad \xfe"};
  r.notes = {"a note\twith tab"};
  Table t{"cells", "Cells", {}, {}};
  t.columns = {Col("text"), Col("int"), Col("double"), Col("bool"), Col("none"), Col("bar", true)};
  const std::vector<double> doubles = {0.0,
                                       -0.0,
                                       0.1,
                                       1.0 / 3,
                                       4.213957041869508,
                                       1e-7,
                                       1e-5,
                                       123456789012345678.0,
                                       1e15,
                                       1e16,
                                       1e21,
                                       -2.5e-300,
                                       5e-324,
                                       std::numeric_limits<double>::max(),
                                       std::numeric_limits<double>::quiet_NaN(),
                                       std::numeric_limits<double>::infinity(),
                                       -std::numeric_limits<double>::infinity(),
                                       10.630863};
  const std::vector<int64_t> ints = {0, -1, 42, std::numeric_limits<int64_t>::min(),
                                     std::numeric_limits<int64_t>::max()};
  for (size_t i = 0; i < doubles.size(); ++i)
    t.rows.push_back({Cell{OddStrings()[i % OddStrings().size()]}, Cell{ints[i % ints.size()]}, Cell{doubles[i]},
                      Cell{i % 2 == 0}, Cell{}, Cell{std::string("####")}});
  r.tables.push_back(t);
  r.diagnostics.AddEntry({Severity::kWarning, "demo.kind", "what \"it\" means", 3, "example \xff"});
  r.diagnostics.AddEntry({Severity::kInfo, "demo.other", "", std::numeric_limits<uint64_t>::max(), ""});
  const std::string written = Written(r);
  CHECK(written == DumpedAsValues(r));
  // Spot checks of the bytes themselves, not only of the agreement.
  CHECK(written.find("\"double\": 4.213957041869508,") != std::string::npos);
  CHECK(written.find("\"double\": null,") != std::string::npos);
  CHECK(written.find("\"int\": -9223372036854775808,") != std::string::npos);
  CHECK(written.find("\"text\": \"bad \xef\xbf\xbd byte\",") != std::string::npos);  // U+FFFD
  CHECK(written.find("\"count\": 18446744073709551615,") != std::string::npos);
  CHECK(written.find("bar") == std::string::npos);
}

TEST_CASE("JSON: empty parts, repeated table names and repeated keys as an object holds them") {
  Report empty;
  empty.command = "none";
  CHECK(Written(empty) == DumpedAsValues(empty));
  CHECK(Written(empty) ==
        "{\n  \"command\": \"none\",\n  \"schema_version\": 1,\n  \"statements\": [],\n  \"tables\": {},\n"
        "  \"notes\": [],\n  \"diagnostics\": []\n}\n");

  Report r;
  r.command = "repeats";
  Table no_rows{"a", "A", {Col("x")}, {}};
  Table only_terminal{"b", "B", {Col("bar", true)}, {{Cell{std::string("##")}}, {Cell{std::string("#")}}}};
  Table first{"c", "C", {Col("x"), Col("y")}, {{Cell{int64_t{1}}, Cell{int64_t{2}}}}};
  // A key that comes again keeps its first place with the later value.
  Table keys{"d", "D", {Col("k"), Col("j"), Col("k")}, {{Cell{int64_t{1}}, Cell{int64_t{2}}, Cell{int64_t{3}}}}};
  // A name that comes again keeps its first place with the later rows.
  Table again{"c", "C again", {Col("z")}, {{Cell{2.5}}}};
  r.tables = {no_rows, only_terminal, first, keys, again};
  const std::string written = Written(r);
  CHECK(written == DumpedAsValues(r));
  CHECK(written.find("\"a\": [],") != std::string::npos);
  CHECK(written.find("\"b\": [\n      {},\n      {}\n    ],") != std::string::npos);
  CHECK(written.find("\"c\": [\n      {\n        \"z\": 2.5\n      }\n    ],") != std::string::npos);
  CHECK(written.find("\"k\": 3,\n        \"j\": 2\n") != std::string::npos);
}

TEST_CASE("JSON: random reports equal the dump of their values") {
  std::mt19937_64 rng(20261130);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  auto random_string = [&] {
    if (pick(3) == 0) return OddStrings()[pick(OddStrings().size())];
    std::string s;
    for (size_t i = pick(12); i > 0; --i) s.push_back(static_cast<char>(pick(3) == 0 ? rng() : 0x20 + pick(0x5f)));
    return s;
  };
  auto random_double = [&] {
    switch (pick(4)) {
      case 0: return std::bit_cast<double>(rng());  // Any bits: NaNs, infinities, denormals.
      case 1: return static_cast<double>(static_cast<int64_t>(rng() >> pick(64)));
      case 2: return std::ldexp(static_cast<double>(rng() % 1000000), static_cast<int>(pick(80)) - 60);
      default: return static_cast<double>(pick(100000)) / 1000.0;
    }
  };
  for (int round = 0; round < 200; ++round) {
    Report r;
    r.command = random_string();
    for (size_t i = pick(3); i > 0; --i) r.lines.push_back(random_string());
    for (size_t i = pick(3); i > 0; --i) r.notes.push_back(random_string());
    for (size_t i = pick(4); i > 0; --i) {
      Table t{pick(4) == 0 ? "dup" : random_string(), "title", {}, {}};
      const size_t columns = pick(6);
      for (size_t c = 0; c < columns; ++c) {
        // One draw after the other: the order of a call's arguments is the
        // compiler's to choose.
        std::string key = pick(5) == 0 ? "k" : random_string();
        const bool terminal_only = pick(6) == 0;
        t.columns.push_back(Col(std::move(key), terminal_only));
      }
      for (size_t row = pick(5); row > 0; --row) {
        std::vector<Cell> cells;
        for (size_t c = 0; c < columns; ++c) {
          switch (pick(5)) {
            case 0: cells.emplace_back(random_string()); break;
            case 1: cells.emplace_back(static_cast<int64_t>(rng())); break;
            case 2: cells.emplace_back(random_double()); break;
            case 3: cells.emplace_back(pick(2) == 0); break;
            default: cells.emplace_back(); break;
          }
        }
        t.rows.push_back(std::move(cells));
      }
      r.tables.push_back(std::move(t));
    }
    for (size_t i = pick(3); i > 0; --i)
      r.diagnostics.AddEntry(
          {static_cast<Severity>(pick(3)), random_string(), random_string(), rng(), random_string()});
    const std::string written = Written(r);
    const std::string expected = DumpedAsValues(r);
    INFO("round " << round);
    REQUIRE(written == expected);
  }
}

// The CSV as FormatCell, CsvFormulaSafe and CsvEscape make it cell by cell.
std::string CsvCellByCell(const Table& table, bool formula_safe) {
  std::string out;
  bool first = true;
  for (const Column& c : table.columns) {
    if (c.terminal_only) continue;
    out += (first ? "" : ",") + CsvEscape(c.csv_header.empty() ? c.key : c.csv_header);
    first = false;
  }
  out += "\n";
  for (const auto& row : table.rows) {
    first = true;
    for (size_t i = 0; i < table.columns.size(); ++i) {
      if (table.columns[i].terminal_only) continue;
      std::string text = FormatCell(row[i], table.columns[i]);
      if (formula_safe && std::holds_alternative<std::string>(row[i])) text = CsvFormulaSafe(text);
      out += (first ? "" : ",") + CsvEscape(text);
      first = false;
    }
    out += "\n";
  }
  return out;
}

TEST_CASE("CSV: random tables equal their cells formatted and escaped one by one") {
  std::mt19937_64 rng(30112026);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  // Texts for every path: plain, quoted, formula-like, and both at once.
  const std::vector<std::string> texts = {"",         "plain", "a,b",    "say \"hi\"", "two\nlines", "cr\r",
                                          "=SUM(A1)", "+1",    "-x",     "@me",        "\tlead",     "caf\xc3\xa9",
                                          "'quoted",  "=a,b",  "\rlead", "-\"q\"",     "@x\ny"};
  const std::vector<double> doubles = {0.0, -0.0, 0.125, -1.5, 1e300, 1e-300, std::numeric_limits<double>::quiet_NaN(),
                                       // A NaN with its sign bit set: "nan" all the same.
                                       -std::numeric_limits<double>::quiet_NaN(),
                                       std::numeric_limits<double>::infinity(),
                                       -std::numeric_limits<double>::infinity(), 2.0 / 3};
  for (int round = 0; round < 200; ++round) {
    Table t{"t", "T", {}, {}};
    const size_t columns = 1 + pick(6);
    for (size_t c = 0; c < columns; ++c) {
      const std::string& key = texts[pick(texts.size())];
      Column col = Col(key, pick(6) == 0);
      col.precision = static_cast<int>(pick(8));
      if (pick(4) == 0) col.csv_header = texts[pick(texts.size())];
      t.columns.push_back(col);
    }
    for (size_t row = pick(40); row > 0; --row) {
      std::vector<Cell> cells;
      for (size_t c = 0; c < columns; ++c) {
        switch (pick(5)) {
          case 0: cells.emplace_back(texts[pick(texts.size())]); break;
          case 1: cells.emplace_back(static_cast<int64_t>(rng())); break;
          case 2: cells.emplace_back(doubles[pick(doubles.size())] * static_cast<double>(pick(1000))); break;
          case 3: cells.emplace_back(pick(2) == 0); break;
          default: cells.emplace_back(); break;
        }
      }
      t.rows.push_back(std::move(cells));
    }
    for (const bool safe : {false, true}) {
      std::ostringstream out;
      RenderCsv(t, out, safe);
      INFO("round " << round << (safe ? ", formula-safe" : ""));
      REQUIRE(out.str() == CsvCellByCell(t, safe));
    }
  }
}

TEST_CASE("CSV: numbers as FormatCell writes them, checked by hand") {
  // A NaN reads "nan" whatever its sign bit (fmt alone would write
  // "-nan"); infinities as fmt writes them; doubles at the column's
  // precision; integers whole; a formula-like text with a comma gets its
  // ' inside the quotes.
  Table t{"n", "N", {Col("nan"), Col("neg_nan"), Col("inf"), Col("x"), Col("i"), Col("text")}, {}};
  t.columns[3].precision = 3;
  t.rows.push_back({Cell{std::numeric_limits<double>::quiet_NaN()}, Cell{-std::numeric_limits<double>::quiet_NaN()},
                    Cell{-std::numeric_limits<double>::infinity()}, Cell{-2.0 / 3}, Cell{int64_t{-42}},
                    Cell{std::string("=a,b")}});
  std::ostringstream out;
  RenderCsv(t, out, /*formula_safe=*/true);
  CHECK(out.str() == "nan,neg_nan,inf,x,i,text\nnan,nan,-inf,-0.667,-42,\"'=a,b\"\n");
  CHECK(FormatCell(Cell{-std::numeric_limits<double>::quiet_NaN()}, t.columns[0]) == "nan");
}

TEST_CASE("CSV: a table longer than the writer's buffer is written whole") {
  Table t{"rows", "Rows", {Col("step"), Col("ms")}, {}};
  t.columns[1].precision = 3;
  for (int i = 0; i < 20000; ++i) t.rows.push_back({Cell{std::string("Step, ") + std::to_string(i)}, Cell{i * 0.001}});
  std::ostringstream out;
  RenderCsv(t, out);
  CHECK(out.str().size() > (size_t{1} << 18));
  CHECK(out.str() == CsvCellByCell(t, false));
  CHECK(out.str().find("\"Step, 19999\",19.999\n") != std::string::npos);
}

TEST_CASE("JSON: a document longer than the writer's buffer is written whole") {
  Report r;
  r.command = "long";
  Table t{"rows", "Rows", {Col("step"), Col("ms")}, {}};
  for (int i = 0; i < 20000; ++i)
    t.rows.push_back({Cell{std::string("EagerKernelExecute ") + std::to_string(i)}, Cell{i * 0.001}});
  r.tables.push_back(t);
  const std::string written = Written(r);
  CHECK(written.size() > (size_t{1} << 20));
  CHECK(written == DumpedAsValues(r));
}
