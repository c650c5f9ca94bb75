// `tfprof-analyze input-pipeline PATH`: the Input Pipeline Analyzer.
#include "lib/analyze/overview_report.h"
#include "tools/commands.h"
#include "tools/overview_loader.h"

namespace tfprof::cli {
namespace {

void Register(CLI::App& app, std::function<void()>& action) {
  static CommonOptions options;
  CLI::App* cmd = app.add_subcommand("input-pipeline", "Input Pipeline Analyzer: wait for input per step, host input ops");
  AddCommonOptions(cmd, options);
  AddStepOptions(cmd, options);
  cmd->callback([&action] {
    action = [] {
      if (MaybeListRuns(options)) return;
      LoadedOverview l = LoadOverview(options);
      Report report = BuildInputPipelineReport(l.overview, l.loaded.input.selected.name);
      report.diagnostics.Merge(l.loaded.diagnostics);
      report.diagnostics.Merge(l.diagnostics);
      Emit(report, options);
    };
  });
}

const CommandRegistration kInputPipeline(50, Register);

}  // namespace
}  // namespace tfprof::cli
