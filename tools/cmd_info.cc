// `tfprof-analyze info PATH`: what the capture holds.
#include "lib/analyze/capture_info.h"
#include "tools/commands.h"
#include "tools/run_summary_loader.h"

namespace tfprof::cli {
namespace {

// The capture itself rather than a summary of it: each host is described
// as it is read (no summary part is computed).
class Info final : public RunReportCommand {
 public:
  Info()
      : RunReportCommand("info", "Hosts, planes, lines, events, time span and devices of a capture", SummaryParts(),
                         /*finds_steps=*/false) {}

 private:
  RunSummary Load() override {
    return LoadRunSummary(options_, parts_, [this](const Host& host) { hosts_.push_back(SummarizeHost(host)); });
  }
  Report BuildReport(RunSummary& run) override {
    Report report = BuildInfoReport(hosts_);
    report.lines.insert(report.lines.begin(), "run " + run.run);
    return report;
  }

  std::vector<HostInfo> hosts_;
};

}  // namespace

std::unique_ptr<Command> InfoCommand() { return std::make_unique<Info>(); }

}  // namespace tfprof::cli
