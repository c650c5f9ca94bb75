// The report model's row writer: cells go in by column key, and a key or a
// cell type that does not match the table is refused loudly.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "lib/report/report.h"

using namespace tfprof;

namespace {

Table Ops() {
  Table t{"ops", "Ops", {}, {}};
  t.Add({"op_name", "op"})
      .Add({"calls", "calls", ColumnType::kInt}, "count")
      .Add({"self_us", "self (us)", ColumnType::kDouble, 3}, "us")
      .Add({"on_device", "device", ColumnType::kBool});
  return t;
}

}  // namespace

TEST_CASE("Rows are filled by column key, in any order", "[report]") {
  Table t = Ops();
  t.AddRow().Set("self_us", 2.5).Set("op_name", std::string("MatMul")).Set("on_device", true).Set("calls", int64_t{4});
  t.AddRow().Set("op_name", std::string("Add"));  // The rest stay empty.
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[0] == std::vector<Cell>{std::string("MatMul"), int64_t{4}, 2.5, true});
  CHECK(t.rows[1] == std::vector<Cell>{std::string("Add"), Cell(), Cell(), Cell()});
  CHECK(t.columns[1].unit == "count");
  CHECK(t.columns[2].unit == "us");
  CHECK(t.columns[0].unit.empty());
}

TEST_CASE("An unknown key or a cell of the wrong type is refused", "[report]") {
  Table t = Ops();
  auto row = t.AddRow();
  CHECK_THROWS_AS(row.Set("self_time_us", 1.0), std::logic_error);    // Typo in the key.
  CHECK_THROWS_AS(row.Set("calls", 1.5), std::logic_error);           // A double in an int column.
  CHECK_THROWS_AS(row.Set("op_name", int64_t{1}), std::logic_error);  // A number in a string column.
  CHECK_THROWS_AS(row.Set("on_device", std::string("yes")), std::logic_error);
  // An empty cell fits anywhere; a whole number fits a double column (a
  // byte count in a value column stays an integer).
  CHECK_NOTHROW(row.Set("calls", Cell()));
  CHECK_NOTHROW(row.Set("self_us", int64_t{7}));
  CHECK(t.rows[0][2] == Cell(int64_t{7}));
}
