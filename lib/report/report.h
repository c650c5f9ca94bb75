// The one output model every analysis fills: a report of named tables whose
// columns carry a stable key, a label, a unit and a type. Renderers (text
// table, CSV, JSON, ...) know nothing about the analyses; column keys and
// table names are a public interface documented in docs/.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "lib/model/diagnostics.h"

namespace tfprof {

enum class ColumnType { kString, kInt, kDouble, kBool };

struct Column {
  std::string key;    // snake_case; the CSV header and JSON key.
  std::string label;  // Shown in the text table.
  ColumnType type = ColumnType::kString;
  int precision = 2;  // Digits after the point for doubles in text and CSV.
  int max_width = 0;  // Text view truncates longer strings (0: never).
  // CSV header when it differs from `key`: tables users know from the
  // TensorFlow Profiler keep its column labels in CSV.
  std::string csv_header;
  // A fraction (0..1) the text view shows as a percentage; CSV and JSON keep
  // the fraction, as the TensorFlow Profiler's exports do.
  bool percent = false;
  // Bars and other decoration: shown in the text view on a terminal only,
  // never in CSV or JSON.
  bool terminal_only = false;
};

using Cell = std::variant<std::monostate, std::string, int64_t, double, bool>;

struct Table {
  std::string name;   // Stable id, e.g. "planes".
  std::string title;  // Heading in the text view.
  std::vector<Column> columns;
  std::vector<std::vector<Cell>> rows;
  // Detail tables (e.g. one row per thread) appear in the text view only
  // with --verbose; CSV (--table) and JSON always have them.
  bool detail = false;

  Table& Add(Column c) {
    columns.push_back(std::move(c));
    return *this;
  }
  std::vector<Cell>& NewRow() {
    rows.emplace_back(columns.size());
    return rows.back();
  }
  int ColumnIndex(const std::string& key) const;
};

struct Report {
  std::string command;            // e.g. "info".
  std::vector<std::string> lines;  // Headline statements, shown first.
  std::vector<Table> tables;       // The first is the one CSV shows by default.
  std::vector<std::string> notes;  // Caveats shown after the tables.
  Diagnostics diagnostics;

  const Table* FindTable(const std::string& name) const;
};

}  // namespace tfprof
