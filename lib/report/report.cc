#include "lib/report/report.h"

#include <stdexcept>

namespace tfprof {
namespace {

bool Fits(const Cell& value, ColumnType type) {
  if (std::holds_alternative<std::monostate>(value)) return true;
  switch (type) {
    case ColumnType::kString: return std::holds_alternative<std::string>(value);
    case ColumnType::kInt: return std::holds_alternative<int64_t>(value);
    case ColumnType::kDouble: return std::holds_alternative<double>(value) || std::holds_alternative<int64_t>(value);
    case ColumnType::kBool: return std::holds_alternative<bool>(value);
  }
  return false;
}

const char* CellTypeName(const Cell& value) {
  switch (value.index()) {
    case 1: return "string";
    case 2: return "int";
    case 3: return "double";
    case 4: return "bool";
  }
  return "empty";
}

}  // namespace

int Table::ColumnIndex(std::string_view key) const {
  for (size_t i = 0; i < columns.size(); ++i)
    if (columns[i].key == key) return static_cast<int>(i);
  return -1;
}

Table::RowWriter& Table::RowWriter::Set(std::string_view key, Cell value) {
  const std::vector<Column>& columns = table_->columns;
  const int i = next_column_ < columns.size() && columns[next_column_].key == key ? static_cast<int>(next_column_)
                                                                                  : table_->ColumnIndex(key);
  if (i < 0) throw std::logic_error("table '" + table_->name + "' has no column '" + std::string(key) + "'");
  if (!Fits(value, table_->columns[i].type))
    throw std::logic_error("table '" + table_->name + "', column '" + std::string(key) + "': a " + CellTypeName(value) +
                           " cell in a column of another type");
  table_->rows[row_][i] = std::move(value);
  next_column_ = static_cast<size_t>(i) + 1;
  return *this;
}

const Table* Report::FindTable(const std::string& name) const {
  for (const Table& t : tables)
    if (t.name == name) return &t;
  return nullptr;
}

}  // namespace tfprof
