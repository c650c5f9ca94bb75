// `tfprof-analyze steps PATH`: one row per step, the data of the Step-time
// Graph.
#include "lib/analyze/step_summary.h"
#include "lib/analyze/steps_report.h"
#include "lib/model/errors.h"
#include "lib/summary/run_summary_combine.h"
#include "tools/commands.h"

namespace tfprof::cli {
namespace {

class Steps final : public RunReportCommand {
 public:
  Steps()
      : RunReportCommand("steps", "Step time and its breakdown, one row per step (the Step-time Graph)",
                         SummaryPart::kSteps, /*finds_steps=*/true) {}

 private:
  // What to try when no step was found: never --whole-trace to a run that used it.
  std::string Hint() const {
    if (options_.whole_trace) return "";
    if (!options_.steps_between.empty()) return " (try another --steps-between REGEX or --whole-trace)";
    return options_.step_marker.empty()
               ? " (try --step-marker REGEX or --whole-trace, or --steps-between REGEX)"
               : " (try another --step-marker REGEX or --whole-trace, or --steps-between REGEX)";
  }
  Report BuildReport(RunSummary& run) override {
    const StepSummary summary = SummarizeSteps(CombineRunSteps(run));
    if (summary.rows.empty())
      throw InputError(options_.path, "no steps: " + summary.no_steps_reason + Hint(), kExitUnavailable);
    Report report = BuildStepsReport(summary);
    if (!summary.intersection_note.empty()) report.notes.push_back(summary.intersection_note);
    if (!summary.note.empty()) report.notes.push_back(summary.note);
    report.lines.insert(report.lines.begin(), "run " + run.run);
    return report;
  }
};

}  // namespace

std::unique_ptr<Command> StepsCommand() { return std::make_unique<Steps>(); }

}  // namespace tfprof::cli
