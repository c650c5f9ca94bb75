// `tfprof-analyze diff BASE NEW`: two runs side by side. BASE and NEW are
// anything the tool reads (file, run folder, logdir); each is loaded with
// the shared options (one host in memory at a time), then every metric,
// op-stats row and kernel-stats row is compared. `--fail-if` turns a
// regression into exit code 5 (docs/ci.md).
#include "lib/analyze/metrics_report.h"
#include "lib/analyze/run_diff.h"
#include "lib/model/errors.h"
#include "lib/render/render.h"
#include "tools/commands.h"
#include "tools/run_loader.h"

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

void Run(const CommonOptions& shared, const DiffOptions& d) {
  // Conditions first: a malformed one is a usage error before any reading.
  std::vector<DeltaCondition> conditions;
  for (const std::string& text : d.fail_if) conditions.push_back(ParseDeltaCondition(text));

  LoadedRun base = LoadRun(SideOptions(shared, d.base, d.base_run));
  LoadedRun next = LoadRun(SideOptions(shared, d.next, d.next_run));
  const AnalysisOptions analysis = AnalysisOptionsFrom(shared);

  DiffInputs in;
  in.base = &base.run;
  in.next = &next.run;
  in.metrics = DiffMetrics(base.run, next.run);
  in.ops = DiffOpRows(base.run.ops, next.run.ops, analysis);
  in.kernels = DiffKernelRows(base.run.ops, next.run.ops);
  in.fail_if = EvaluateDeltaConditions(conditions, in.metrics, base.run, next.run,
                                       d.missing == "skip" ? MissingPolicy::kSkip : MissingPolicy::kFail);
  DiffReportOptions report_options;
  report_options.base_label = d.base;
  report_options.next_label = d.next;
  report_options.top = d.top;
  Report report = BuildDiffReport(in, report_options);
  // Diagnostics of both sides; the same kind from both merges into one count.
  for (LoadedRun* side : {&base, &next}) {
    report.diagnostics.Merge(side->loaded.diagnostics);
    report.diagnostics.Merge(side->diagnostics);
  }
  // Both sides' inputs are in Guard(): neither is ever written to.
  Emit(report, shared);
  if (!d.junit.empty()) {
    const Report junit =
        BuildOutcomesReport("diff", in.fail_if,
                            {{"base", d.base}, {"new", d.next}, {"base_run", base.run.run}, {"new_run", next.run.run}});
    WriteOutput(d.junit, [&](std::ostream& out) { Render(junit, {.format = OutputFormat::kJUnit}, out); });
  }
  if (std::string failed = FailureSummary(in.fail_if, "--fail-if condition"); !failed.empty())
    throw InputError("", "diff: " + failed, kExitCheckFailed);
}

void Register(CLI::App& app, std::function<void()>& action) {
  static CommonOptions shared;
  static DiffOptions d;
  CLI::App* cmd = app.add_subcommand(
      "diff", "Compare two runs: overview side by side with deltas, op and kernel rows added/removed/grown/shrunk");
  cmd->add_option("base", d.base, "The run before: logdir, run folder or capture file")->required();
  cmd->add_option("new", d.next, "The run after: logdir, run folder or capture file")->required();
  cmd->add_option("--format,-f", shared.format, "Output format: table (default), csv or json")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  AddOutputOption(cmd, "--output,-o", shared.output,
                  "Write the output to this file instead of stdout (never an input or inside an input folder)");
  cmd->add_option("--table", shared.table,
                  "With --format csv: which table (overview (default), ops, kernels, fail_if, metrics)");
  cmd->add_flag("--csv-safe", shared.csv_safe, "With --format csv: prefix text cells starting with = + - @ tab or CR with '");
  cmd->add_option("--host", shared.host, "Compare only this host of each run");
  cmd->add_option("--run", shared.run, "Which run of a logdir, both sides (default: the newest)");
  cmd->add_option("--base-run", d.base_run, "Which run of BASE's logdir (e.g. `diff logs/ logs/ --base-run A --new-run B`)");
  cmd->add_option("--new-run", d.next_run, "Which run of NEW's logdir");
  cmd->add_flag("--verbose,-v", shared.verbose, "Also show every metric and info-level diagnostics");
  cmd->add_option("--compat", shared.compat, "As for the other commands (docs/parity.md)")
      ->check(CLI::IsMember({"xprof", "tf-legacy"}));
  AddReadLimitOptions(cmd, shared);
  AddStepOptions(cmd, shared);
  cmd->add_option("--top", d.top, "At most N changed rows in the ops and kernels tables (0: all; default 20)")
      ->transform(WholeNumber(0, SIZE_MAX));
  cmd->add_option("--fail-if", d.fail_if,
                  "Exit 5 when this change happens, e.g. 'overview.step_time_ms.avg>+5%' (relative) or "
                  "'overview.input_percent>+2' (absolute) (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--missing", d.missing, "A --fail-if metric missing from either run: 'fail' (default) or 'skip'")
      ->check(CLI::IsMember({"fail", "skip"}));
  AddOutputOption(cmd, "--junit", d.junit, "Write the --fail-if results as JUnit XML to this file");
  cmd->callback([&action] { action = [] { Run(shared, d); }; });
}

const CommandRegistration kDiff(90, Register);

}  // namespace
}  // namespace tfprof::cli
