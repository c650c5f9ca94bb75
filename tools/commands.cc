#include "tools/commands.h"

#include "lib/summary/analysed_event_stats.h"
#include "lib/summary/run_summary_combine.h"
#include "lib/util/phase_times.h"
#include "tools/run_summary_loader.h"

namespace tfprof::cli {

// Each defined in its tools/cmd_<name>.cc.
std::unique_ptr<Command> InfoCommand(), OverviewCommand(), OpStatsCommand(), PlacementCommand(), KernelStatsCommand(),
    StepsCommand(), InputPipelineCommand(), MemoryCommand(), TfDataCommand(), HostsCommand(), MetricsCommand(),
    CheckCommand(), DiffCommand(), SummarizeCommand(), CombineCommand(), TraceCommand(), ReportCommand(),
    AdviseCommand();

std::vector<std::unique_ptr<Command>> AllCommands() {
  using MakeCommand = std::unique_ptr<Command> (*)();
  // The order `--help` lists them in.
  constexpr MakeCommand kCommands[] = {
      InfoCommand,          OverviewCommand, OpStatsCommand,   PlacementCommand, KernelStatsCommand, StepsCommand,
      InputPipelineCommand, MemoryCommand,   TfDataCommand,    HostsCommand,     AdviseCommand,      MetricsCommand,
      CheckCommand,         DiffCommand,     SummarizeCommand, CombineCommand,   TraceCommand,       ReportCommand,
  };
  std::vector<std::unique_ptr<Command>> commands;
  for (MakeCommand make : kCommands) commands.push_back(make());
  return commands;
}

void RunReportCommand::AddOptions(CLI::App* cmd) {
  AddCommonOptions(cmd, options_);
  if (finds_steps_) AddStepOptions(cmd, options_);
  AddCommandOptions(cmd);
}

// Report commands show summaries only: their readers keep just the event
// stats the analyses of their parts read, and memory timelines only as
// sampled as they show them.
RunSummary RunReportCommand::Load() {
  return LoadRunSummary(options_, parts_, EventStatsFor(parts_, AnalysisOptionsFrom(options_)), {}, {},
                        MemoryTimelinePoints());
}

void RunReportCommand::Write(const Report& report) { Emit(report, options_); }

Report RunReportCommand::ReportOf(RunSummary& run) {
  Prepare();
  return BuildReport(run);
}

void RunReportCommand::Run() {
  if (MaybeListRuns(options_)) return;
  Prepare();
  RunSummary run = Load();
  const Diagnostics diagnostics = RunDiagnostics(run, parts_);  // Before BuildReport may take parts of `run`.
  PhaseTimer report_phase("build report");
  Report report = BuildReport(run);
  report.diagnostics.Merge(diagnostics);
  report_phase.Stop();
  PhaseTimer write_phase("render and write");
  Write(report);
}

}  // namespace tfprof::cli
