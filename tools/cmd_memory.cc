// `tfprof-analyze memory PATH`: the memory profile (peak memory, when it
// happened, what held it), per allocator.
#include <algorithm>

#include "lib/summary/memory_events_to_profile.h"
#include "lib/analyze/memory_profile_report.h"
#include "lib/model/errors.h"
#include "tools/cli_common.h"
#include "tools/commands.h"

namespace tfprof::cli {
namespace {

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + (s.empty() ? std::string("''") : s);
  return out;
}

void Register(CLI::App& app, std::function<void()>& action) {
  static CommonOptions options;
  static MemoryReportOptions report_options;
  static std::string unit;
  CLI::App* cmd = app.add_subcommand(
      "memory", "Memory profile: peak memory per allocator, when it happened and which ops held it (TensorFlow BFC "
                "allocators from the .xplane.pb; PyTorch traces recorded with profile_memory=True)");
  AddCommonOptions(cmd, options);
  cmd->add_option("--memory-id", report_options.memory_id, "Only this allocator, e.g. GPU_0_bfc, or PyTorch device, e.g. cuda:0 (default: all)");
  cmd->add_flag("--timeline", report_options.timeline,
                "Add the memory timeline (table 'timeline'; the one CSV writes when it is the only one asked for)");
  cmd->add_flag("--all-points", report_options.all_points,
                "With --timeline: every allocator event instead of at most 1000 sampled points");
  cmd->add_flag("--breakdown", report_options.breakdown,
                "Add the allocations alive at the peak, one row per op (table 'breakdown')");
  cmd->add_option("--unit", unit, "Size unit: GiB, MiB or bytes (default MiB; GiB with --compat xprof, as its UI)")
      ->check(CLI::IsMember({"GiB", "MiB", "bytes"}));
  cmd->callback([&action] {
    action = [] {
      if (MaybeListRuns(options)) return;
      const AnalysisOptions analysis = AnalysisOptionsFrom(options);
      report_options.compat = analysis.compat;
      if (unit.empty()) unit = analysis.xprof() ? "GiB" : "MiB";
      report_options.unit = unit == "GiB" ? MemoryUnit::kGiB : unit == "MiB" ? MemoryUnit::kMiB : MemoryUnit::kBytes;
      const MemoryProfileOptions profile_options = MemoryProfileOptionsFor(analysis.compat);

      Diagnostics diagnostics;
      std::vector<HostMemoryProfile> profiles;
      LoadResult loaded = ForEachHost(options, [&](Host& host) {
        profiles.push_back(BuildMemoryProfile(host, profile_options, diagnostics));
      });
      const bool any = std::any_of(profiles.begin(), profiles.end(),
                                   [](const HostMemoryProfile& p) { return !p.allocators.empty(); });
      if (!any) {
        std::string why = profiles.empty() ? "no host was read" : profiles.front().no_profile_reason;
        throw InputError(options.path, "no memory profile: " + why, kExitUnavailable);
      }
      if (!report_options.memory_id.empty()) {
        std::vector<std::string> ids = MemoryIds(profiles);
        if (std::find(ids.begin(), ids.end(), report_options.memory_id) == ids.end())
          throw InputError(options.path, "no allocator '" + report_options.memory_id + "' (memory ids: " + Join(ids) + ")",
                           kExitUsage);
      }

      // CSV writes one table: the one asked for when it is a single one, so
      // `memory --timeline -f csv` gives the timeline to plot.
      if (options.table.empty() && report_options.timeline != report_options.breakdown)
        options.table = report_options.timeline ? "timeline" : "breakdown";
      Report report = BuildMemoryReport(profiles, report_options);
      report.lines.insert(report.lines.begin(), "run " + loaded.input.selected.name);
      for (const HostMemoryProfile& p : profiles)
        if (p.allocators.empty()) report.notes.push_back(p.host + ": no memory profile: " + p.no_profile_reason);
      report.diagnostics.Merge(loaded.diagnostics);
      report.diagnostics.Merge(diagnostics);
      Emit(report, options);
    };
  });
}

const CommandRegistration kMemory(60, Register);

}  // namespace
}  // namespace tfprof::cli
