// `tfprof-analyze hosts PATH`: one row per host with its step times and how
// it compares with the median host; flags stragglers.
#include "lib/analyze/hosts_analysis.h"
#include "lib/analyze/hosts_report.h"
#include "lib/model/errors.h"
#include "tools/commands.h"

namespace tfprof::cli {
namespace {

class Hosts final : public RunReportCommand {
 public:
  Hosts()
      : RunReportCommand("hosts",
                         "One row per host (rank): step time avg/p50/p90/max, breakdown, idle, collectives, and "
                         "how slow or late it is against the median host; flags stragglers",
                         SummaryPart::kSteps, /*finds_steps=*/true) {}

 private:
  void AddCommandOptions(CLI::App* cmd) override {
    cmd->add_flag("--per-step", per_step_, "Also the table of every host's steps (host_steps)");
  }
  Report BuildReport(RunSummary& run) override {
    const HostsAnalysis hosts = AnalyzeHosts(run);
    return BuildHostsReport(hosts, run, per_step_);
  }

  bool per_step_ = false;
};

}  // namespace

std::unique_ptr<Command> HostsCommand() { return std::make_unique<Hosts>(); }

}  // namespace tfprof::cli
