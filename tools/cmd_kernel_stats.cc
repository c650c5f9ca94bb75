// `tfprof-analyze kernel-stats PATH`: GPU kernel stats.
#include "lib/summary/host_summary.h"
#include "lib/analyze/kernel_stats_report.h"
#include "lib/summary/name_regex.h"
#include "lib/model/errors.h"
#include "tools/cli_common.h"
#include "tools/commands.h"

namespace tfprof::cli {
namespace {

void Register(CLI::App& app, std::function<void()>& action) {
  static CommonOptions options;
  static KernelStatsOptions ks;
  static std::string by;
  CLI::App* cmd = app.add_subcommand("kernel-stats", "GPU kernel stats: launch parameters, Tensor Core use, time per kernel and op");
  AddCommonOptions(cmd, options);
  cmd->add_option("--top", ks.top, "At most N rows")
      ->transform(WholeNumber(0, SIZE_MAX));
  cmd->add_option("--op", ks.op_regex, "Only kernels whose op name contains a match of this regular expression (RE2 syntax)");
  cmd->add_option("--kernel", ks.kernel_regex, "Only kernels whose name contains a match of this regular expression (RE2 syntax)");
  cmd->add_option("--by", by, "'op': one row per op (kernel count, total time, fraction on Tensor Cores)")
      ->check(CLI::IsMember({"kernel", "op"}));
  cmd->callback([&action] {
    action = [] {
      if (MaybeListRuns(options)) return;
      ks.by_op = by == "op";
      const AnalysisOptions analysis = AnalysisOptionsFrom(options);
      // Usage errors before the capture is read (and before "no kernels").
      if (!ks.op_regex.empty()) NameRegex(ks.op_regex, "--op");
      if (!ks.kernel_regex.empty()) NameRegex(ks.kernel_regex, "--kernel");
      HostSummary combined;
      bool first = true;
      Diagnostics diag;
      LoadResult loaded = ForEachHost(options, [&](Host& host) {
        // Kernel stats show no execution mode: skip the eager marks (they
        // need the event forest, a third of op-stats' time on big captures).
        static const EventBits kNoMarks;
        HostSummary s = SummarizeHostOps(host, diag, analysis, &kNoMarks);
        if (first) combined = std::move(s);
        else CombineHostSummaries(combined, s);
        first = false;
      });
      if (std::string why = NoKernelsReason(combined); !why.empty()) throw InputError(options.path, why, kExitUnavailable);
      Report report = BuildKernelStatsReport(combined, ks);
      report.lines.insert(report.lines.begin(), "run " + loaded.input.selected.name + " · " + combined.env.device_type +
                                                    " ×" + std::to_string(combined.env.device_core_count));
      report.diagnostics.Merge(loaded.diagnostics);
      report.diagnostics.Merge(diag);
      Emit(report, options);
    };
  });
}

const CommandRegistration kKernelStats(30, Register);

}  // namespace
}  // namespace tfprof::cli
