// `tfprof-analyze op-stats PATH`: the TensorFlow Stats table.
#include "lib/analyze/tf_stats_report.h"
#include "lib/summary/run_summary_combine.h"
#include "tools/commands.h"

namespace tfprof::cli {
namespace {

class OpStats final : public RunReportCommand {
 public:
  OpStats()
      : RunReportCommand("op-stats", "TensorFlow Stats: time per TF op on host and device",
                         SummaryPart::kOps | SummaryPart::kEagerMarks, /*finds_steps=*/false) {}

 private:
  void AddCommandOptions(CLI::App* cmd) override {
    cmd->add_flag("--no-idle", no_idle_, "Leave out the IDLE rows (the TensorFlow Profiler's 'Include IDLE' off)");
    cmd->add_option("--side", stats_.side, "Only host or device rows")->check(CLI::IsMember({"host", "device"}));
    cmd->add_option("--by", by_, "Aggregate rows: 'type' gives one row per op type")
        ->check(CLI::IsMember({"op", "type"}));
    cmd->add_option("--top", stats_.top, "At most N rows per side (default: 500, as the TensorFlow Profiler)")
        ->transform(WholeNumber(0, SIZE_MAX));
    cmd->add_option("--sort", stats_.sort,
                    "Sort each side by this column, descending: occurrences, total_time_us, avg_time_us, "
                    "total_self_time_us (default), avg_self_time_us; op_name and op_type sort ascending");
  }
  void Prepare() override {
    stats_.with_idle = !no_idle_;
    stats_.analysis = AnalysisOptionsFrom(options_);
    stats_.by_type = by_ == "type";
  }
  Report BuildReport(RunSummary& run) override {
    const HostSummary ops = CombineHostOps(run);
    Report report = BuildTfStatsReport(ops, stats_);
    report.lines.insert(report.lines.begin(),
                        "run " + run.run + " · " + ops.env.device_type +
                            (ops.env.has_device() ? " ×" + std::to_string(ops.env.device_core_count) : ""));
    return report;
  }

  TfStatsOptions stats_;
  bool no_idle_ = false;
  std::string by_;
};

}  // namespace

std::unique_ptr<Command> OpStatsCommand() { return std::make_unique<OpStats>(); }

}  // namespace tfprof::cli
