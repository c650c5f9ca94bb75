// `tfprof-analyze kernel-stats PATH`: GPU kernel stats.
#include "lib/analyze/kernel_stats_report.h"
#include "lib/model/errors.h"
#include "lib/summary/name_regex.h"
#include "lib/summary/run_summary_combine.h"
#include "tools/commands.h"

namespace tfprof::cli {
namespace {

// Kernel stats are the devices' alone: no op metrics, so an XSpace
// capture's host-thread events are not decoded (most of a TensorFlow
// capture), and no execution mode (eager marks need the event forest).
class KernelStats final : public RunReportCommand {
 public:
  KernelStats()
      : RunReportCommand("kernel-stats", "GPU kernel stats: launch parameters, Tensor Core use, time per kernel and op",
                         SummaryPart::kKernels, /*finds_steps=*/false) {}

 private:
  void AddCommandOptions(CLI::App* cmd) override {
    cmd->add_option("--top", ks_.top, "At most N rows")->transform(WholeNumber(0, SIZE_MAX));
    cmd->add_option("--op", ks_.op_regex,
                    "Only kernels whose op name contains a match of this regular expression (RE2 syntax)");
    cmd->add_option("--kernel", ks_.kernel_regex,
                    "Only kernels whose name contains a match of this regular expression (RE2 syntax)");
    cmd->add_option("--by", by_, "'op': one row per op (kernel count, total time, fraction on Tensor Cores)")
        ->check(CLI::IsMember({"kernel", "op"}));
  }
  void Prepare() override {
    ks_.by_op = by_ == "op";
    // Usage errors before the capture is read (and before "no kernels").
    if (!ks_.op_regex.empty()) NameRegex(ks_.op_regex, "--op");
    if (!ks_.kernel_regex.empty()) NameRegex(ks_.kernel_regex, "--kernel");
  }
  Report BuildReport(RunSummary& run) override {
    const HostSummary ops = CombineHostOps(run);
    if (std::string why = NoKernelsReason(ops); !why.empty()) throw InputError(options_.path, why, kExitUnavailable);
    Report report = BuildKernelStatsReport(ops, ks_);
    report.lines.insert(report.lines.begin(), "run " + run.run + " · " + ops.env.device_type + " ×" +
                                                  std::to_string(ops.env.device_core_count));
    return report;
  }

  KernelStatsOptions ks_;
  std::string by_;
};

}  // namespace

std::unique_ptr<Command> KernelStatsCommand() { return std::make_unique<KernelStats>(); }

}  // namespace tfprof::cli
