// `tfprof-analyze placement PATH`: TF op placement, host vs device.
#include "lib/summary/host_summary.h"
#include "lib/analyze/placement_report.h"
#include "tools/cli_common.h"
#include "tools/commands.h"

namespace tfprof::cli {
namespace {

void Register(CLI::App& app, std::function<void()>& action) {
  static CommonOptions options;
  static size_t top = 20;
  CLI::App* cmd = app.add_subcommand("placement", "TF op placement: host vs device, and host ops worth moving to the GPU");
  AddCommonOptions(cmd, options);
  cmd->add_option("--top", top, "Candidates to list (default 20; 0: all)")
      ->transform(WholeNumber(0, SIZE_MAX));
  cmd->callback([&action] {
    action = [] {
      if (MaybeListRuns(options)) return;
      const AnalysisOptions analysis = AnalysisOptionsFrom(options);
      HostSummary combined;
      std::vector<Placement> per_host;
      bool first = true;
      Diagnostics diag;
      LoadResult loaded = ForEachHost(options, [&](Host& host) {
        // Placement shows no execution mode: skip the eager marks (they
        // need the event forest, a third of op-stats' time on big captures).
        static const EventBits kNoMarks;
        HostSummary s = SummarizeHostOps(host, diag, analysis, &kNoMarks);
        per_host.push_back(ComputePlacement(s, host.name));
        if (first) combined = std::move(s);
        else CombineHostSummaries(combined, s);
        first = false;
      });
      Report report = BuildPlacementReport(per_host, combined, top);
      report.lines.insert(report.lines.begin(), "run " + loaded.input.selected.name + " · " + combined.env.device_type);
      report.diagnostics.Merge(loaded.diagnostics);
      report.diagnostics.Merge(diag);
      Emit(report, options);
    };
  });
}

const CommandRegistration kPlacement(25, Register);

}  // namespace
}  // namespace tfprof::cli
