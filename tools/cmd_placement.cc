// `tfprof-analyze placement PATH`: TF op placement, host vs device.
#include "lib/analyze/placement_report.h"
#include "lib/summary/run_summary_combine.h"
#include "tools/commands.h"

namespace tfprof::cli {
namespace {

// Placement shows no execution mode: no eager marks (they need the event
// forest, a third of op-stats' time on big captures).
class PlacementCmd final : public RunReportCommand {
 public:
  PlacementCmd()
      : RunReportCommand("placement", "TF op placement: host vs device, and host ops worth moving to the GPU",
                         SummaryPart::kOps, /*finds_steps=*/false) {}

 private:
  void AddCommandOptions(CLI::App* cmd) override {
    cmd->add_option("--top", top_, "Candidates to list (default 20; 0: all)")->transform(WholeNumber(0, SIZE_MAX));
  }
  Report BuildReport(RunSummary& run) override {
    std::vector<Placement> per_host;
    for (const HostPartials& h : run.hosts) per_host.push_back(ComputePlacement(h.ops, h.host));
    const HostSummary ops = CombineHostOps(run);
    Report report = BuildPlacementReport(per_host, ops, top_);
    report.lines.insert(report.lines.begin(), "run " + run.run + " · " + ops.env.device_type);
    return report;
  }

  size_t top_ = 20;
};

}  // namespace

std::unique_ptr<Command> PlacementCommand() { return std::make_unique<PlacementCmd>(); }

}  // namespace tfprof::cli
