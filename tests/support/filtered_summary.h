// Summaries read with an event-stat filter, for the tests that compare
// them with the whole model's (tests/summary/*filter_summary_test.cc).
#pragma once

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "lib/read/capture_discovery.h"
#include "lib/summary/captures_to_run_summary.h"
#include "lib/summary/run_summary_file.h"

namespace tfprof::testing {

struct FilteredSummary {
  std::string bytes;           // The run summary's serialized bytes, or the error.
  uint64_t stats_dropped = 0;  // Event stats the readers left out.
};

// `path` summarised for `parts` with `analysis`, its readers keeping `kept`.
inline FilteredSummary SummariseKeeping(const std::string& path, SummaryParts parts, const EventStatFilter& kept,
                                        const AnalysisOptions& analysis) {
  SummaryOptions options;
  options.parts = parts;
  options.analysis = analysis;
  RunReadOptions read;
  read.read.event_stats = kept;
  FilteredSummary out;
  read.visit = [&](const Host& host) { out.stats_dropped += host.event_stats_dropped; };
  try {
    out.bytes = RunSummaryToBytes(CapturesToRunSummary(DiscoverInput(path, "", analysis.xprof()), read, options));
  } catch (const std::exception& e) {
    out.bytes = std::string("error: ") + e.what();  // A corrupt file: the same error either way.
  }
  return out;
}

// The parts each command computes (tools/cmd_*.cc), and all of them
// (diff, check, metrics).
inline std::vector<SummaryParts> CommandParts() {
  return {SummaryPart::kOps,
          SummaryPart::kKernels,
          SummaryPart::kHostOps | SummaryPart::kEagerMarks | SummaryPart::kSteps,
          SummaryPart::kOps | SummaryPart::kEagerMarks,
          SummaryPart::kOps | SummaryPart::kEagerMarks | SummaryPart::kSteps,
          SummaryPart::kSteps,
          SummaryPart::kMemory,
          SummaryPart::kTfData,
          SummaryParts::All()};
}

}  // namespace tfprof::testing
