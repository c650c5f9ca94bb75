// `tfprof-analyze op-stats PATH`: the TensorFlow Stats table.
#include "lib/summary/host_summary.h"
#include "lib/analyze/tf_stats_report.h"
#include "tools/cli_common.h"
#include "tools/commands.h"

namespace tfprof::cli {
namespace {

void Register(CLI::App& app, std::function<void()>& action) {
  static CommonOptions options;
  static TfStatsOptions stats;
  static bool no_idle = false;
  static std::string by;
  CLI::App* cmd = app.add_subcommand("op-stats", "TensorFlow Stats: time per TF op on host and device");
  AddCommonOptions(cmd, options);
  cmd->add_flag("--no-idle", no_idle, "Leave out the IDLE rows (the TensorFlow Profiler's 'Include IDLE' off)");
  cmd->add_option("--side", stats.side, "Only host or device rows")->check(CLI::IsMember({"host", "device"}));
  cmd->add_option("--by", by, "Aggregate rows: 'type' gives one row per op type")->check(CLI::IsMember({"op", "type"}));
  cmd->add_option("--top", stats.top, "At most N rows per side (default: 500, as the TensorFlow Profiler)")
      ->transform(WholeNumber(0, SIZE_MAX));
  cmd->add_option("--sort", stats.sort,
                  "Sort each side by this column, descending: occurrences, total_time_us, avg_time_us, "
                  "total_self_time_us (default), avg_self_time_us; op_name and op_type sort ascending");
  cmd->callback([&action] {
    action = [] {
      if (MaybeListRuns(options)) return;
      stats.with_idle = !no_idle;
      stats.analysis = AnalysisOptionsFrom(options);
      stats.by_type = by == "type";
      HostSummary combined;
      bool first = true;
      Diagnostics analysis;
      LoadResult loaded = ForEachHost(options, [&](Host& host) {
        HostSummary s = SummarizeHostOps(host, analysis, stats.analysis);
        if (first) combined = std::move(s);
        else CombineHostSummaries(combined, s);
        first = false;
      });
      Report report = BuildTfStatsReport(combined, stats);
      report.lines.insert(report.lines.begin(), "run " + loaded.input.selected.name + " · " + combined.env.device_type +
                                                    (combined.env.has_device() ? " ×" + std::to_string(combined.env.device_core_count) : ""));
      report.diagnostics.Merge(loaded.diagnostics);
      report.diagnostics.Merge(analysis);
      Emit(report, options);
    };
  });
}

const CommandRegistration kOpStats(20, Register);

}  // namespace
}  // namespace tfprof::cli
