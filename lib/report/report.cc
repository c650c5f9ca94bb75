#include "lib/report/report.h"

namespace tfprof {

int Table::ColumnIndex(const std::string& key) const {
  for (size_t i = 0; i < columns.size(); ++i)
    if (columns[i].key == key) return static_cast<int>(i);
  return -1;
}

const Table* Report::FindTable(const std::string& name) const {
  for (const Table& t : tables)
    if (t.name == name) return &t;
  return nullptr;
}

}  // namespace tfprof
