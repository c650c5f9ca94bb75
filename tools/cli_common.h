// What every subcommand shares: the global options, loading the input one
// host at a time, and writing the report.
#pragma once

#include <functional>
#include <string>

#include "CLI/CLI.hpp"
#include "lib/analyze/analysis_options.h"
#include "lib/model/diagnostics.h"
#include "lib/model/model.h"
#include "lib/read/capture_discovery.h"
#include "lib/read/read_options.h"
#include "lib/render/render.h"

namespace tfprof::cli {

struct CommonOptions {
  std::string path;
  std::string format;  // table|csv|json; empty: table on a terminal, else table too.
  std::string output;
  std::string host;
  std::string run;
  std::string table;  // CSV: which table.
  bool list_runs = false;
  bool verbose = false;
  uint64_t max_events = 0;
  uint64_t max_inflated_mb = 64 << 10;  // --max-inflated-mb: gzip bomb guard.
  std::string compat;  // "" (TensorFlow Profiler as documented) or "xprof".
  std::string step_marker;  // --step-marker (commands with steps).
  std::string steps_between;  // --steps-between (commands with steps).
  bool whole_trace = false;
};

void AddCommonOptions(CLI::App* cmd, CommonOptions& options);

// --step-marker, --steps-between and --whole-trace, for the commands that
// find steps (one of the three at most).
void AddStepOptions(CLI::App* cmd, CommonOptions& options);

// --compat, --step-marker, --steps-between and --whole-trace as analysis
// options.
AnalysisOptions AnalysisOptionsFrom(const CommonOptions& options);

// Discovers the input and reads each selected host in turn, handing it to
// `visit` and dropping it before the next is read.
struct LoadResult {
  DiscoveredInput input;
  Diagnostics diagnostics;
  size_t hosts_read = 0;
};
LoadResult ForEachHost(const CommonOptions& options, const std::function<void(Host&)>& visit);

// Writes the report (to --output or stdout) in the chosen format.
void Emit(const Report& report, const CommonOptions& options);

// Prints the runs of a logdir (--list-runs); returns true if it did.
bool MaybeListRuns(const CommonOptions& options);

}  // namespace tfprof::cli
