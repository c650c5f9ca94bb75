// The one output model every analysis fills: a report of named tables whose
// columns carry a stable key, a label, a unit and a type. Renderers (text
// table, CSV, JSON, ...) know nothing about the analyses; column keys and
// table names are a public interface documented in docs/.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "lib/model/diagnostics.h"
#include "lib/report/graph.h"

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
  // What a number counts: "us", "ms", "bytes", "%", "count", ... (empty: no
  // unit, or a string column). Model metadata for readers of the report;
  // no renderer prints it today (the labels already say it).
  std::string unit;
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
  // What a limit left out of the rows ("host side: 500 of 1040 ops shown"),
  // also among the report's notes: CSV, which holds the table alone, says
  // it on stderr.
  std::string rows_left_out;

  // `unit`, when given, is the column's unit (Column::unit).
  Table& Add(Column c, std::string unit = "") {
    if (!unit.empty()) c.unit = std::move(unit);
    columns.push_back(std::move(c));
    return *this;
  }

  // A new row, filled by column key: row.Set("self_us", 12.5). Cells left
  // unset stay empty.
  class RowWriter {
   public:
    RowWriter(Table& table, size_t row) : table_(&table), row_(row) {}
    // Throws std::logic_error when the table has no column `key`, or when
    // `value` does not fit the column's type: a typo in a key or a cell of
    // the wrong type is a bug that must not reach CSV or JSON quietly.
    // An empty cell fits every column; a kDouble column also takes an
    // int64_t (a whole number, e.g. a byte count, shown without decimals).
    RowWriter& Set(std::string_view key, Cell value);

   private:
    Table* table_;
    size_t row_;
    // Where the next key is looked for first: rows are mostly filled in
    // column order, so a key is found in one comparison.
    size_t next_column_ = 0;
  };
  RowWriter AddRow() {
    rows.emplace_back(columns.size());
    return RowWriter(*this, rows.size() - 1);
  }
  // A new row filled by position. Prefer AddRow(): a position silently
  // shifts when a column is added.
  std::vector<Cell>& NewRow() {
    rows.emplace_back(columns.size());
    return rows.back();
  }
  int ColumnIndex(std::string_view key) const;
};

struct Report {
  std::string command;             // e.g. "info".
  std::vector<std::string> lines;  // Headline statements, shown first.
  std::vector<Table> tables;       // The first is the one CSV shows by default.
  std::vector<std::string> notes;  // Caveats shown after the tables.
  Diagnostics diagnostics;
  // Graphs drawn from the tables (`--format dot` draws the first).
  std::vector<Graph> graphs;

  const Table* FindTable(const std::string& name) const;
};

}  // namespace tfprof
