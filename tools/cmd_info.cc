// `tfprof-analyze info PATH`: what the capture holds.
#include <sstream>

#include "lib/analyze/capture_info.h"
#include "lib/analyze/host_to_text_dump.h"
#include "lib/model/errors.h"
#include "lib/summary/analysed_event_stats.h"
#include "lib/summary/run_summary_combine.h"
#include "tools/commands.h"
#include "tools/run_summary_loader.h"

namespace tfprof::cli {
namespace {

// The capture itself rather than a summary of it: each host is described
// as it is read (no summary part is computed). With --dump, the model each
// host's reader produced is written as text instead (reader tests); hosts
// are dropped one by one as they are read, so each is dumped at once.
class Info final : public RunReportCommand {
 public:
  Info()
      : RunReportCommand("info", "Hosts, planes, lines, events, time span and devices of a capture", SummaryParts(),
                         /*finds_steps=*/false) {}

 private:
  void AddCommandOptions(CLI::App* cmd) override {
    CLI::Option* dump_flag = cmd->add_flag("--dump", dump_,
                                           "Write the model the reader produced as text instead: hosts, planes, "
                                           "lines, events with their stats (for reader tests and bug reports)");
    cmd->add_option("--dump-events", limits_.events_per_line,
                    "With --dump: at most N events per line (default 20; 0: all)")
        ->transform(WholeNumber(0, UINT64_MAX))
        ->needs(dump_flag);
  }
  void Prepare() override {
    if (dump_ && !options_.format.empty() && options_.format != "table")
      throw InputError("", "--dump writes text only; leave out --format", kExitUsage);
  }
  RunSummary Load() override {
    // The dump shows every stat; the description none (it counts planes,
    // lines and events, and computes no summary part).
    // It counts every line's events, derived lines' too.
    EventStatFilter kept = dump_ ? EventStatFilter() : EventStatsFor(parts_, AnalysisOptionsFrom(options_));
    kept.KeepEveryEvent();
    return LoadRunSummary(options_, parts_, kept, [this](const Host& host) {
      if (dump_) HostToTextDump(host, limits_, dump_text_);
      else hosts_.push_back(SummarizeHost(host));
    });
  }
  Report BuildReport(RunSummary& run) override {
    if (dump_) {
      dump_text_ << "run " << QuoteForDump(run.run) << "\n";
      DiagnosticsToTextDump(RunDiagnostics(run), dump_text_);
      return {};
    }
    Report report = BuildInfoReport(hosts_);
    report.lines.insert(report.lines.begin(), "run " + run.run);
    return report;
  }
  void Write(const Report& report) override {
    if (!dump_) return RunReportCommand::Write(report);
    WriteOutput(options_.output, [&](std::ostream& out) { out << dump_text_.str(); });
  }

  bool dump_ = false;
  TextDumpLimits limits_;
  std::ostringstream dump_text_;
  std::vector<HostInfo> hosts_;
};

}  // namespace

std::unique_ptr<Command> InfoCommand() { return std::make_unique<Info>(); }

}  // namespace tfprof::cli
