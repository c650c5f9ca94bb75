// `tfprof-analyze metrics PATH`: every number a CI check may gate on, by its
// stable dotted name (docs/metrics.md).
#include "lib/analyze/metrics_report.h"
#include "tools/commands.h"
#include "tools/run_loader.h"

namespace tfprof::cli {
namespace {

void Register(CLI::App& app, std::function<void()>& action) {
  static CommonOptions options;
  CLI::App* cmd = app.add_subcommand(
      "metrics", "Every metric a check can gate on (overview, placement, op-stats, kernels, memory, tf.data), by name");
  AddCommonOptions(cmd, options);
  AddStepOptions(cmd, options);
  cmd->callback([&action] {
    action = [] {
      if (MaybeListRuns(options)) return;
      LoadedRun l = LoadRun(options);
      Report report = BuildMetricsReport(l.run);
      report.diagnostics.Merge(l.loaded.diagnostics);
      report.diagnostics.Merge(l.diagnostics);
      Emit(report, options);
    };
  });
}

const CommandRegistration kMetrics(80, Register);

}  // namespace
}  // namespace tfprof::cli
