// What every subcommand shares: the global options and writing the report
// (loading a run: run_summary_loader.h).
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

#include "CLI/CLI.hpp"
#include "lib/model/diagnostics.h"
#include "lib/read/read_options.h"
#include "lib/render/output_file.h"
#include "lib/render/render.h"
#include "lib/summary/analysis_options.h"

namespace tfprof::cli {

struct CommonOptions {
  std::string path;
  std::string format;  // table|csv|json; empty: table on a terminal, else table too.
  std::string output;
  std::string host;
  std::string run;
  std::string table;      // CSV: which table.
  bool csv_safe = false;  // --csv-safe: defuse text cells a spreadsheet would run as formulas.
  bool list_runs = false;
  bool verbose = false;
  uint64_t max_events = 0;
  uint64_t max_inflated_mb = 64 << 10;  // --max-inflated-mb: gzip bomb guard.
  std::string compat;                   // "" (TensorFlow Profiler as documented) or "xprof".
  std::string step_marker;              // --step-marker (commands with steps).
  std::string steps_between;            // --steps-between (commands with steps).
  bool whole_trace = false;
  bool hash_sources = false;  // Record each capture's SHA-256 (summarize).
};

void AddCommonOptions(CLI::App* cmd, CommonOptions& options);

// The files this command reads and writes; one command runs per process.
OutputGuard& Guard();

// An option naming a file the command writes (--output, --junit, ...).
// Every such option is declared to Guard() by DeclareOutputs(), which main
// calls once the command line is parsed: an output that is an input is
// refused before anything is read, and again when it is opened.
CLI::Option* AddOutputOption(CLI::App* cmd, const std::string& name, std::string& path, const std::string& description);
void DeclareOutputs();

// Integer options: plain decimal digits within [min, max]. CLI11 alone
// takes "-5" as 2^64-5, wraps 2^64+1 and reads "010" as octal.
CLI::Validator WholeNumber(uint64_t min, uint64_t max);

// Runs `write` on stdout when `path` is empty, else on the file, written
// atomically (OutputFile). main checks stdout's state at exit.
void WriteOutput(const std::string& path, const std::function<void(std::ostream&)>& write);

// --max-events and --max-inflated-mb (part of AddCommonOptions).
void AddReadLimitOptions(CLI::App* cmd, CommonOptions& options);

// --step-marker, --steps-between and --whole-trace, for the commands that
// find steps (one of the three at most).
void AddStepOptions(CLI::App* cmd, CommonOptions& options);

// --compat, --step-marker, --steps-between and --whole-trace as analysis
// options.
AnalysisOptions AnalysisOptionsFrom(const CommonOptions& options);

// Writes the report (to --output or stdout) in the chosen format.
void Emit(const Report& report, const CommonOptions& options);

// Prints the runs of a logdir (--list-runs); returns true if it did.
bool MaybeListRuns(const CommonOptions& options);

}  // namespace tfprof::cli
