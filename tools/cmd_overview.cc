// `tfprof-analyze overview PATH`: the Overview Page, verdict first; and
// `input-pipeline PATH`, the Input Pipeline Analyzer, from the same summary.
#include "lib/analyze/overview_analysis.h"
#include "lib/analyze/overview_report.h"
#include "tools/commands.h"

namespace tfprof::cli {
namespace {

using OverviewToReport = Report (*)(const Overview&, const std::string&);

class OverviewPage final : public RunReportCommand {
 public:
  OverviewPage(std::string name, std::string description, SummaryParts parts, OverviewToReport to_report)
      : RunReportCommand(std::move(name), std::move(description), parts, /*finds_steps=*/true), to_report_(to_report) {}

 private:
  Report BuildReport(RunSummary& run) override { return to_report_(RunSummaryToOverview(run), run.run); }

  OverviewToReport to_report_;
};

}  // namespace

std::unique_ptr<Command> OverviewCommand() {
  return std::make_unique<OverviewPage>(
      "overview", "Step-time breakdown, input-bound verdict, placement, top device ops",
      SummaryPart::kOps | SummaryPart::kEagerMarks | SummaryPart::kSteps, BuildOverviewReport);
}

std::unique_ptr<Command> InputPipelineCommand() {
  // The page shows the steps and the host's input ops, no device op or
  // kernel: the op metrics' host side alone (kHostOps), which keeps none of
  // the kernels' stats.
  return std::make_unique<OverviewPage>(
      "input-pipeline", "Input Pipeline Analyzer: wait for input per step, host input ops",
      SummaryPart::kHostOps | SummaryPart::kEagerMarks | SummaryPart::kSteps, BuildInputPipelineReport);
}

}  // namespace tfprof::cli
