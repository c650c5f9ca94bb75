// `tfprof-analyze diff BASE NEW`: two runs side by side. BASE and NEW are
// anything the tool reads (file, run folder, logdir); each is loaded with
// the shared options (one host in memory at a time), then every metric,
// op-stats row and kernel-stats row is compared. `--fail-if` turns a
// regression into exit code 5 (docs/ci.md).
#include "lib/advise/advice_diff.h"
#include "lib/analyze/metrics_report.h"
#include "lib/analyze/run_diff.h"
#include "lib/analyze/run_summary_to_metrics.h"
#include "lib/model/errors.h"
#include "lib/render/render.h"
#include "lib/summary/analysed_event_stats.h"
#include "lib/summary/run_summary_combine.h"
#include "tools/commands.h"
#include "tools/run_summary_loader.h"

namespace tfprof::cli {
namespace {

struct DiffOptions {
  std::string base, next;
  std::string base_run, next_run;
  std::vector<std::string> fail_if;
  std::string missing = "fail";
  std::string junit;
  size_t top = 20;
};

// The options of one side: the shared ones, its path and its run.
CommonOptions SideOptions(const CommonOptions& shared, const std::string& path, const std::string& run) {
  CommonOptions o = shared;
  o.path = path;
  if (!run.empty()) o.run = run;
  return o;
}

// Two runs, so not a RunReportCommand: each side is loaded with the shared
// options, its own path and its own run.
class Diff final : public Command {
 public:
  Diff()
      : Command("diff",
                "Compare two runs: overview side by side with deltas, op and kernel rows added/removed/grown/shrunk") {}

  void AddOptions(CLI::App* cmd) override {
    cmd->add_option("base", d_.base, "The run before: logdir, run folder or capture file")->required();
    cmd->add_option("new", d_.next, "The run after: logdir, run folder or capture file")->required();
    cmd->add_option("--format,-f", shared_.format, "Output format: table (default), csv or json")
        ->check(CLI::IsMember({"table", "csv", "json"}));
    AddOutputOption(cmd, "--output,-o", shared_.output,
                    "Write the output to this file instead of stdout (never an input or inside an input folder)");
    cmd->add_option("--table", shared_.table,
                    "With --format csv: which table (overview (default), ops, kernels, fail_if, metrics, findings)");
    cmd->add_flag("--csv-safe", shared_.csv_safe,
                  "With --format csv: prefix text cells starting with = + - @ tab or CR with '");
    cmd->add_option("--host", shared_.host, "Compare only this host of each run");
    cmd->add_option("--run", shared_.run, "Which run of a logdir, both sides (default: the newest)");
    cmd->add_option("--base-run", d_.base_run,
                    "Which run of BASE's logdir (e.g. `diff logs/ logs/ --base-run A --new-run B`)");
    cmd->add_option("--new-run", d_.next_run, "Which run of NEW's logdir");
    cmd->add_flag("--verbose,-v", shared_.verbose, "Also show every metric and info-level diagnostics");
    cmd->add_option("--compat", shared_.compat, "As for the other commands (docs/parity.md)")
        ->check(CLI::IsMember({"xprof", "tf-legacy"}));
    AddReadLimitOptions(cmd, shared_);
    AddStepOptions(cmd, shared_);
    cmd->add_option("--top", d_.top, "At most N changed rows in the ops and kernels tables (0: all; default 20)")
        ->transform(WholeNumber(0, SIZE_MAX));
    cmd->add_option("--fail-if", d_.fail_if,
                    "Exit 5 when this change happens, e.g. 'overview.step_time_ms.avg>+5%' (relative) or "
                    "'overview.input_percent>+2' (absolute) (repeatable)")
        ->allow_extra_args(false);
    cmd->add_option("--missing", d_.missing, "A --fail-if metric missing from either run: 'fail' (default) or 'skip'")
        ->check(CLI::IsMember({"fail", "skip"}));
    AddOutputOption(cmd, "--junit", d_.junit, "Write the --fail-if results as JUnit XML to this file");
  }

  void Run() override {
    // Conditions first: a malformed one is a usage error before any reading.
    std::vector<DeltaCondition> conditions;
    for (const std::string& text : d_.fail_if) conditions.push_back(ParseDeltaCondition(text));

    const EventStatFilter kAllParts = EventStatsFor(SummaryParts::All(), AnalysisOptionsFrom(shared_));
    const RunSummary base_summary =
        LoadRunSummary(SideOptions(shared_, d_.base, d_.base_run), SummaryParts::All(), kAllParts);
    const RunSummary next_summary =
        LoadRunSummary(SideOptions(shared_, d_.next, d_.next_run), SummaryParts::All(), kAllParts);
    const RunAnalysis base = RunSummaryToMetrics(base_summary), next = RunSummaryToMetrics(next_summary);
    DiffInputs in = DiffRuns(base, next, base_summary.options);
    in.fail_if = EvaluateDeltaConditions(conditions, in.metrics, base, next,
                                         d_.missing == "skip" ? MissingPolicy::kSkip : MissingPolicy::kFail);
    Report report = BuildDiffReport(in, {d_.base, d_.next, d_.top});
    // What the advisor finds in each run, and what changed.
    AddFindingsDiff(base_summary, next_summary, report, &base, &next);
    // Diagnostics of both sides; the same kind from both merges into one count.
    report.diagnostics.Merge(RunDiagnostics(base_summary));
    report.diagnostics.Merge(RunDiagnostics(next_summary));
    // Both sides' inputs are in Guard(): neither is ever written to.
    Emit(report, shared_);
    if (!d_.junit.empty()) {
      const Report junit = BuildOutcomesReport(
          "diff", in.fail_if, {{"base", d_.base}, {"new", d_.next}, {"base_run", base.run}, {"new_run", next.run}});
      WriteOutput(d_.junit, [&](std::ostream& out) { Render(junit, {.format = OutputFormat::kJUnit}, out); });
    }
    if (std::string failed = FailureSummary(in.fail_if, "--fail-if condition"); !failed.empty())
      throw InputError("", "diff: " + failed, kExitCheckFailed);
  }

 private:
  CommonOptions shared_;
  DiffOptions d_;
};

}  // namespace

std::unique_ptr<Command> DiffCommand() { return std::make_unique<Diff>(); }

}  // namespace tfprof::cli
