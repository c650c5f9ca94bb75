// `tfprof-analyze overview PATH`: the Overview Page, verdict first.
#include "lib/analyze/overview_report.h"
#include "tools/commands.h"
#include "tools/overview_loader.h"

namespace tfprof::cli {
namespace {

void Register(CLI::App& app, std::function<void()>& action) {
  static CommonOptions options;
  CLI::App* cmd = app.add_subcommand("overview", "Step-time breakdown, input-bound verdict, placement, top device ops");
  AddCommonOptions(cmd, options);
  AddStepOptions(cmd, options);
  cmd->callback([&action] {
    action = [] {
      if (MaybeListRuns(options)) return;
      LoadedOverview l = LoadOverview(options);
      Report report = BuildOverviewReport(l.overview, l.loaded.input.selected.name);
      report.diagnostics.Merge(l.loaded.diagnostics);
      report.diagnostics.Merge(l.diagnostics);
      Emit(report, options);
    };
  });
}

const CommandRegistration kOverview(15, Register);

}  // namespace
}  // namespace tfprof::cli
