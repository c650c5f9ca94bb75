#include <cmath>

#include "lib/render/render.h"
#include "nlohmann/json.hpp"

namespace tfprof {
namespace {

nlohmann::ordered_json CellJson(const Cell& cell) {
  struct Visitor {
    nlohmann::ordered_json operator()(std::monostate) const { return nullptr; }
    nlohmann::ordered_json operator()(const std::string& s) const { return s; }
    nlohmann::ordered_json operator()(int64_t v) const { return v; }
    nlohmann::ordered_json operator()(bool v) const { return v; }
    nlohmann::ordered_json operator()(double v) const {
      if (!std::isfinite(v)) return nullptr;
      return v;
    }
  };
  return std::visit(Visitor{}, cell);
}

}  // namespace

// {"command", "schema_version", "statements", "tables": {name: [row objects]},
//  "notes", "diagnostics"}. Doubles are full precision (no rounding).
void RenderJson(const Report& report, std::ostream& out) {
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
        if (!t.columns[i].terminal_only) r[t.columns[i].key] = CellJson(row[i]);
      rows.push_back(std::move(r));
    }
    tables[t.name] = std::move(rows);
  }
  doc["tables"] = std::move(tables);
  doc["notes"] = report.notes;
  nlohmann::ordered_json diags = nlohmann::ordered_json::array();
  for (const DiagnosticEntry& e : report.diagnostics.Entries()) {
    diags.push_back({{"severity", SeverityName(e.severity)},
                     {"kind", e.kind},
                     {"count", e.count},
                     {"message", e.message},
                     {"example", e.example}});
  }
  doc["diagnostics"] = std::move(diags);
  out << doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
}

}  // namespace tfprof
