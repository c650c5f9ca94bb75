// Checks a step summary's rows against expected numbers (each worked out by
// a reference script or by hand): what the step tests share.
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "lib/analyze/step_summary.h"

namespace tfprof::testing {

struct ExpectedStep {
  std::string name;
  double step_ms, device_compute_ms;
};

// A row's time in category `c`, in ms.
inline double CategoryMs(const StepRow& row, Category c) { return row.category_ms[static_cast<size_t>(c)]; }

// Row for row: name, step time and device compute time (1 ns margin); and the
// average step time.
inline void CheckStepRows(const StepSummary& s, const std::vector<ExpectedStep>& want) {
  REQUIRE(s.rows.size() == want.size());
  double sum = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("row " << i);
    CHECK(s.rows[i].name == want[i].name);
    CHECK(s.rows[i].step_time_ms == Approx(want[i].step_ms).margin(1e-6));
    CHECK(CategoryMs(s.rows[i], Category::kDeviceCompute) == Approx(want[i].device_compute_ms).margin(1e-6));
    sum += want[i].step_ms;
  }
  CHECK(s.step_time_ms.avg == Approx(sum / static_cast<double>(want.size())).margin(1e-6));
}

}  // namespace tfprof::testing
