// `tfprof-analyze steps PATH`: one row per step, the data of the Step-time
// Graph.
#include "lib/summary/event_grouping.h"
#include "lib/summary/planes_to_step_db.h"
#include "lib/analyze/step_summary.h"
#include "lib/analyze/steps_report.h"
#include "lib/model/errors.h"
#include "tools/cli_common.h"
#include "tools/commands.h"

namespace tfprof::cli {
namespace {

void Register(CLI::App& app, std::function<void()>& action) {
  static CommonOptions options;
  CLI::App* cmd = app.add_subcommand("steps", "Step time and its breakdown, one row per step (the Step-time Graph)");
  AddCommonOptions(cmd, options);
  AddStepOptions(cmd, options);
  cmd->callback([&action] {
    action = [] {
      if (MaybeListRuns(options)) return;
      const AnalysisOptions analysis = AnalysisOptionsFrom(options);
      std::vector<StepDb> per_host;
      Diagnostics diag;
      LoadResult loaded = ForEachHost(options, [&](Host& host) {
        EventGroups groups = GroupEvents(host, diag, analysis);
        per_host.push_back(BuildStepDb(host, groups, analysis, diag));
      });
      StepSummary summary = SummarizeSteps(CombineHostSteps(std::move(per_host), analysis));
      if (summary.rows.empty())
        throw InputError(options.path,
                         "no steps: " + summary.no_steps_reason +
                             // Never suggest --whole-trace to a run that used it.
                             (options.whole_trace ? std::string()
                              : !options.steps_between.empty()
                                  ? std::string(" (try another --steps-between REGEX or --whole-trace)")
                              : options.step_marker.empty()
                                  ? std::string(" (try --step-marker REGEX or --whole-trace, or --steps-between REGEX)")
                                  : std::string(" (try another --step-marker REGEX or --whole-trace, or --steps-between REGEX)")),
                         kExitUnavailable);
      Report report = BuildStepsReport(summary);
      if (!summary.intersection_note.empty()) report.notes.push_back(summary.intersection_note);
      if (!summary.note.empty()) report.notes.push_back(summary.note);
      report.lines.insert(report.lines.begin(), "run " + loaded.input.selected.name);
      report.diagnostics.Merge(loaded.diagnostics);
      report.diagnostics.Merge(diag);
      Emit(report, options);
    };
  });
}

const CommandRegistration kSteps(45, Register);

}  // namespace
}  // namespace tfprof::cli
