#include "tools/cli_common.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <iostream>
#include <vector>

#include "lib/model/diagnostic_kinds.h"
#include "lib/model/errors.h"
#include "lib/read/capture_discovery.h"
#include "lib/summary/name_regex.h"
#include "tools/hints_to_text.h"
#include "tools/run_summary_loader.h"

namespace tfprof::cli {

OutputGuard& Guard() {
  static OutputGuard guard;
  return guard;
}

namespace {

struct OutputOption {
  CLI::App* cmd;
  std::string* path;
};
std::vector<OutputOption>& OutputOptions() {
  static std::vector<OutputOption> options;
  return options;
}

}  // namespace

CLI::Option* AddOutputOption(CLI::App* cmd, const std::string& name, std::string& path,
                             const std::string& description) {
  OutputOptions().push_back({cmd, &path});
  return cmd->add_option(name, path, description);
}

void DeclareOutputs() {
  for (const OutputOption& o : OutputOptions())
    if (o.cmd->parsed() && !o.path->empty()) Guard().AddOutput(*o.path);
}

CLI::Validator WholeNumber(uint64_t min, uint64_t max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        uint64_t value = 0;
        const char* end = text.data() + text.size();
        auto [stop, ec] = std::from_chars(text.data(), end, value);
        if (text.empty() || stop != end || ec == std::errc::invalid_argument)
          return "'" + text + "' is not a whole number (digits 0-9 only)";
        if (ec == std::errc::result_out_of_range || value < min || value > max)
          return "'" + text + "' is out of range (" + std::to_string(min) + " to " + std::to_string(max) + ")";
        text = std::to_string(value);  // What CLI11 converts: no leading zeros for it to read as octal.
        return "";
      },
      "", "whole number");
}

void WriteOutput(const std::string& path, const std::function<void(std::ostream&)>& write) {
  if (path.empty()) {
    write(std::cout);
    std::cout.flush();
    return;
  }
  OutputFile file(path, Guard());
  write(file.stream());
  file.Commit();
}

void AddCommonOptions(CLI::App* cmd, CommonOptions& o) {
  cmd->add_option("path", o.path, "Logdir, run folder (plugins/profile/<run>) or capture file")->required();
  cmd->add_option("--format,-f", o.format,
                  "Output format: table (default), csv, json, html (one self-contained page), or dot (commands that "
                  "draw a graph)")
      ->check(CLI::IsMember({"table", "csv", "json", "html", "dot"}));
  AddOutputOption(cmd, "--output,-o", o.output,
                  "Write the output to this file instead of stdout (replaced whole, never an input or inside an input "
                  "folder)");
  cmd->add_option("--host", o.host,
                  "Analyse only this host of a multi-host run: its name from the file, or rank<N> for a PyTorch rank");
  cmd->add_option("--run", o.run, "Which run of a logdir (default: the newest; see --list-runs)");
  cmd->add_flag("--list-runs", o.list_runs, "List the runs of a logdir and exit");
  cmd->add_option("--table", o.table, "With --format csv: which table to write (default: the main one)");
  cmd->add_flag("--csv-safe", o.csv_safe,
                "With --format csv: prefix text cells starting with = + - @ tab or CR with ' so spreadsheets do not "
                "run them as formulas");
  cmd->add_flag("--verbose,-v", o.verbose, "Show every diagnostic, including info-level ones");
  cmd->add_option("--compat", o.compat,
                  "Where references disagree: 'xprof' reproduces current xprof, 'tf-legacy' the files TensorFlow "
                  "2.x wrote beside its captures (default: neither; see docs/parity.md)")
      ->check(CLI::IsMember({"xprof", "tf-legacy"}));
  AddReadLimitOptions(cmd, o);
}

void AddReadLimitOptions(CLI::App* cmd, CommonOptions& o) {
  cmd->add_option("--max-events", o.max_events, "Read at most this many events per host (0: all); reported when hit")
      ->transform(WholeNumber(0, UINT64_MAX));
  cmd->add_option("--max-inflated-mb", o.max_inflated_mb,
                  "Refuse gzip captures that inflate beyond this many MiB (default 65536; lowered to what the "
                  "available memory allows)")
      ->transform(WholeNumber(1, uint64_t{1} << 24));
}

void AddStepOptions(CLI::App* cmd, CommonOptions& o) {
  CLI::Option* marker =
      cmd->add_option("--step-marker", o.step_marker,
                      "When the capture has no step markers: the events whose name contains a match of this regular "
                      "expression (RE2 syntax) are the steps (e.g. 'ProfilerStep#\\d+', '^train$')");
  CLI::Option* between =
      cmd->add_option("--steps-between", o.steps_between,
                      "When the capture has no step markers: a step runs from the start of one host event whose name "
                      "contains a match of this regular expression (RE2 syntax) to the start of the next, the last to "
                      "the end of the trace; device work goes with its launch (e.g. 'enumerate\\(DataLoader\\)' "
                      "for a PyTorch loop without ProfilerStep#N)");
  CLI::Option* whole = cmd->add_flag("--whole-trace", o.whole_trace,
                                     "When the capture has no step markers: treat the whole capture as one step");
  // Each replaces the capture's steps in its own way: one at a time.
  marker->excludes(between)->excludes(whole);
  between->excludes(whole);
}

AnalysisOptions AnalysisOptionsFrom(const CommonOptions& o) {
  AnalysisOptions a;
  // Compiled here too, so a bad pattern is a usage error before any capture is read.
  if (!o.step_marker.empty()) NameRegex(o.step_marker, "--step-marker");
  a.step_marker = o.step_marker;
  a.steps_between = o.steps_between;
  a.whole_trace = o.whole_trace;
  a.word_no_steps_hint = WordNoStepsHint;
  if (o.compat == "xprof") a.compat = Compat::kXprof;
  else if (o.compat == "tf-legacy") a.compat = Compat::kTfLegacy;
  return a;
}

// The terminal's columns: the window's size, else $COLUMNS, else 80.
static int TerminalWidth() {
  struct winsize ws {};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  if (const char* env = std::getenv("COLUMNS")) {
    const int n = std::atoi(env);
    if (n > 0 && n < 10000) return n;
  }
  return 80;
}

void Emit(const Report& report, const CommonOptions& o) {
  if (o.format == "dot" && report.graphs.empty())
    throw InputError("", "--format dot is only available for commands that draw a graph (tf-data)", kExitUsage);
  RenderOptions r;
  r.format = o.format == "csv"    ? OutputFormat::kCsv
             : o.format == "json" ? OutputFormat::kJson
             : o.format == "dot"  ? OutputFormat::kDot
             : o.format == "html" ? OutputFormat::kHtml
                                  : OutputFormat::kTable;
  r.verbose = o.verbose;
  r.csv_table = o.table;
  r.csv_safe = o.csv_safe;
  r.terminal = o.output.empty() && ::isatty(STDOUT_FILENO);
  if (r.terminal) r.terminal_width = TerminalWidth();
  WriteOutput(o.output, [&](std::ostream& out) { Render(report, r, out); });
  // CSV holds one table and nothing else: rows a limit left out of it are
  // said on stderr, not lost (a 500-row cut diffed as the whole run).
  if (r.format == OutputFormat::kCsv)
    if (const Table* t = CsvTable(report, o.table); t && !t->rows_left_out.empty())
      std::cerr << "note: " << t->rows_left_out << "\n";
}

bool MaybeListRuns(const CommonOptions& o) {
  if (!o.list_runs) return false;
  Guard().AddInput(o.path);
  Report r;
  r.command = "list-runs";
  Table t{"runs", "Runs (newest last; the newest is analysed by default)", {}, {}};
  t.Add({"run", "run"}).Add({"hosts", "hosts", ColumnType::kInt}).Add({"path", "path"});
  if (std::vector<std::string> summaries = SummaryFilesAt(o.path); !summaries.empty()) {
    // Run summaries hold one run.
    const RunSummary run = CombineSummaryFiles(summaries, ReadOptions{});
    t.AddRow().Set("run", run.run).Set("hosts", static_cast<int64_t>(run.hosts.size())).Set("path", o.path);
  } else {
    DiscoveredInput d = DiscoverInput(o.path, "");
    for (const ProfileRun& run : d.runs)
      t.AddRow().Set("run", run.name).Set("hosts", static_cast<int64_t>(run.files.size())).Set("path", run.path);
  }
  r.tables.push_back(std::move(t));
  Emit(r, o);
  return true;
}

}  // namespace tfprof::cli
