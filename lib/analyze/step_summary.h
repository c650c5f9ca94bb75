// Per-step category times in milliseconds and their statistics over the
// steps: what the Step-time Graph plots and the overview summarises.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "lib/summary/event_span.h"
#include "lib/summary/planes_to_step_db.h"

namespace tfprof {

// Average, sample standard deviation, min and max, as the reference's
// Stat<double> computes them (deviation 0 when all values are equal).
struct Stats {
  double avg = 0, stddev = 0, min = 0, max = 0;
  size_t count = 0;
};
Stats Summarize(const std::vector<double>& values);

struct StepRow {
  std::string name;
  // The N of a "<name>#<N>" step marker (ProfilerStep#12: 12); otherwise
  // the step's index in the combined step list, as xprof numbers steps.
  int64_t number = 0;
  std::string host;
  double step_time_ms = 0;
  std::array<double, kCategories> category_ms{};
  double input_percent = 0;      // Input of the step time.
  double host_to_device_ms = 0;  // The part of input spent copying to the device.
};

struct StepSummary {
  std::vector<StepRow> rows;
  Stats step_time_ms;
  std::array<Stats, kCategories> category_ms;
  Stats input_percent;
  Stats host_to_device_ms;
  // Category totals over all steps as % of the total step time (what the
  // bottleneck statements quote).
  std::array<double, kCategories> category_percent{};
  bool has_device = false;
  uint64_t compute_16bit_ps = 0, compute_32bit_ps = 0;
  std::string no_steps_reason;
  std::string intersection_note;  // Multi-host runs.
  std::string note;               // How the steps were found (StepDb::note).
};

StepSummary SummarizeSteps(const StepDb& db);

}  // namespace tfprof
