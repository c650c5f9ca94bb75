#include <cmath>
#include <string_view>

#include "fmt/format.h"
#include "lib/render/chunked_output.h"
#include "lib/render/render.h"
#include "nlohmann/json.hpp"

namespace tfprof {
namespace {

// Writes the document as nlohmann's dump(2, ' ', false, replace) of the
// same values would, byte for byte, without building the values first: a
// 1 GB capture's `input-pipeline` has 20 k rows, and building them as
// ordered_json objects (each key found by a scan of the row's keys) and
// then dumping them took 43-63 ms, all of it after the analyses. The
// scalars go through nlohmann's own formatting: its shortest round-trip
// doubles (detail::to_chars, what its dump calls) and, for any string
// that needs escaping or may be invalid UTF-8, its dump of that string.
// streamed_renderers_test.cc checks the bytes against the dump of a
// built document.
class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out) : out_(out) {}

  void Raw(std::string_view s) {
    out_.text().append(s);
    out_.FlushIfFull();
  }
  void Indent(int level) { out_.text().append(static_cast<size_t>(level) * 2, ' '); }

  void String(std::string_view s) {
    if (Plain(s)) {
      out_.text().push_back('"');
      out_.text().append(s);
      out_.text().push_back('"');
    } else {
      out_.text().append(nlohmann::ordered_json(std::string(s))
                             .dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
    }
    out_.FlushIfFull();
  }
  void Int(int64_t v) { AppendDigits(fmt::format_int(v)); }
  void Uint(uint64_t v) { AppendDigits(fmt::format_int(v)); }
  void Double(double v) {
    if (!std::isfinite(v)) {
      out_.text().append("null");
      return;
    }
    char digits[64];
    const char* end = nlohmann::detail::to_chars(digits, digits + sizeof(digits), v);
    out_.text().append(digits, static_cast<size_t>(end - digits));
  }
  void Cell(const tfprof::Cell& cell) {
    struct Visitor {
      JsonWriter& w;
      void operator()(std::monostate) const { w.Raw("null"); }
      void operator()(const std::string& s) const { w.String(s); }
      void operator()(int64_t v) const { w.Int(v); }
      void operator()(bool v) const { w.Raw(v ? "true" : "false"); }
      void operator()(double v) const { w.Double(v); }
    };
    std::visit(Visitor{*this}, cell);
  }

  // Hands what is gathered to the stream (Raw and String do once a chunk
  // has gathered; the renderer once at the end).
  void Flush() { out_.Flush(); }

  // `key`'s member opening at `level`: its indent, the key and ": ".
  void Key(std::string_view key, int level) {
    Indent(level);
    String(key);
    out_.text().append(": ");
  }
  // A whole member: the key, the value `value()` writes, and the comma
  // that follows all but the `last` of an object.
  template <class Value>
  void Member(std::string_view key, int level, bool last, Value&& value) {
    Key(key, level);
    value();
    Raw(last ? "\n" : ",\n");
  }

  // The array `items` at `level` (its members one deeper), each written
  // by `item(element, member_level)`; "[]" when empty.
  template <class Items, class Item>
  void Array(const Items& items, int level, Item&& item) {
    if (items.empty()) {
      out_.text().append("[]");
      return;
    }
    out_.text().append("[\n");
    bool first = true;
    for (const auto& element : items) {
      if (!first) out_.text().append(",\n");
      first = false;
      Indent(level + 1);
      item(element, level + 1);
    }
    out_.text().push_back('\n');
    Indent(level);
    out_.text().push_back(']');
  }

 private:
  // The digits formatted in place, without a string of their own.
  void AppendDigits(const fmt::format_int& digits) { out_.text().append(digits.data(), digits.size()); }
  // Printable ASCII with neither quote nor backslash: written as it is.
  static bool Plain(std::string_view s) {
    for (const char c : s) {
      const auto u = static_cast<unsigned char>(c);
      if (u < 0x20 || u >= 0x7f || c == '"' || c == '\\') return false;
    }
    return true;
  }

  ChunkedOutput out_;
};

// A table's members as an ordered_json row would hold them: one per key
// (a key that comes again keeps its first place and takes the later
// column's value), columns shown only on a terminal left out.
std::vector<std::pair<std::string_view, size_t>> RowMembers(const Table& t) {
  std::vector<std::pair<std::string_view, size_t>> members;
  for (size_t i = 0; i < t.columns.size(); ++i) {
    if (t.columns[i].terminal_only) continue;
    bool again = false;
    for (auto& [key, column] : members)
      if (key == t.columns[i].key) {
        column = i;
        again = true;
        break;
      }
    if (!again) members.emplace_back(t.columns[i].key, i);
  }
  return members;
}

}  // namespace

// {"command", "schema_version", "statements", "tables": {name: [row objects]},
//  "notes", "diagnostics"}. Doubles are full precision (no rounding).
void RenderJson(const Report& report, std::ostream& out) {
  JsonWriter w(out);
  w.Raw("{\n");
  w.Member("command", 1, false, [&] { w.String(report.command); });
  w.Member("schema_version", 1, false, [&] { w.Raw("1"); });
  auto strings = [&w](const std::string& s, int) { w.String(s); };
  w.Member("statements", 1, false, [&] { w.Array(report.lines, 1, strings); });

  // Tables by name, in the order names first come; a name that comes
  // again takes the later table's rows (as assigning it in an object does).
  std::vector<const Table*> tables;
  for (const Table& t : report.tables) {
    bool again = false;
    for (const Table*& kept : tables)
      if (kept->name == t.name) {
        kept = &t;
        again = true;
        break;
      }
    if (!again) tables.push_back(&t);
  }
  w.Member("tables", 1, false, [&] {
    if (tables.empty()) {
      w.Raw("{}");
      return;
    }
    w.Raw("{\n");
    for (size_t k = 0; k < tables.size(); ++k) {
      const Table& t = *tables[k];
      const std::vector<std::pair<std::string_view, size_t>> members = RowMembers(t);
      w.Member(t.name, 2, k + 1 == tables.size(), [&] {
        w.Array(t.rows, 2, [&](const std::vector<tfprof::Cell>& row, int level) {
          if (members.empty()) {
            w.Raw("{}");
            return;
          }
          w.Raw("{\n");
          for (size_t m = 0; m < members.size(); ++m)
            w.Member(members[m].first, level + 1, m + 1 == members.size(), [&] { w.Cell(row[members[m].second]); });
          w.Indent(level);
          w.Raw("}");
        });
      });
    }
    w.Indent(1);
    w.Raw("}");
  });
  w.Member("notes", 1, false, [&] { w.Array(report.notes, 1, strings); });
  w.Member("diagnostics", 1, true, [&] {
    w.Array(report.diagnostics.Entries(), 1, [&w](const DiagnosticEntry& e, int level) {
      w.Raw("{\n");
      w.Member("severity", level + 1, false, [&] { w.String(SeverityName(e.severity)); });
      w.Member("kind", level + 1, false, [&] { w.String(e.kind); });
      w.Member("count", level + 1, false, [&] { w.Uint(e.count); });
      w.Member("message", level + 1, false, [&] { w.String(e.message); });
      w.Member("example", level + 1, true, [&] { w.String(e.example); });
      w.Indent(level);
      w.Raw("}");
    });
  });
  w.Raw("}\n");
  w.Flush();
}

}  // namespace tfprof
