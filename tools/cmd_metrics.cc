// `tfprof-analyze metrics PATH`: every number a CI check may gate on, by its
// stable dotted name (docs/metrics.md).
#include "lib/analyze/metrics_report.h"
#include "lib/analyze/run_summary_to_metrics.h"
#include "tools/commands.h"

namespace tfprof::cli {
namespace {

class Metrics final : public RunReportCommand {
 public:
  Metrics()
      : RunReportCommand("metrics",
                         "Every metric a check can gate on (overview, placement, op-stats, kernels, memory, tf.data), "
                         "by name",
                         SummaryParts::All(), /*finds_steps=*/true) {}

 private:
  Report BuildReport(RunSummary& run) override { return BuildMetricsReport(RunSummaryToMetrics(run)); }
};

}  // namespace

std::unique_ptr<Command> MetricsCommand() { return std::make_unique<Metrics>(); }

}  // namespace tfprof::cli
