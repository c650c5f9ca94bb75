// `tfprof-analyze memory PATH`: the memory profile (peak memory, when it
// happened, what held it), per allocator.
#include <algorithm>

#include "lib/analyze/memory_profile_report.h"
#include "lib/model/errors.h"
#include "tools/commands.h"

namespace tfprof::cli {
namespace {

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + (s.empty() ? std::string("''") : s);
  return out;
}

class Memory final : public RunReportCommand {
 public:
  Memory()
      : RunReportCommand(
            "memory",
            "Memory profile: peak memory per allocator, when it happened and which ops held it (TensorFlow "
            "BFC allocators from the .xplane.pb; PyTorch traces recorded with profile_memory=True; TensorFlow 1 "
            "timelines written with show_memory=True)",
            SummaryPart::kMemory, /*finds_steps=*/false) {}

 private:
  void AddCommandOptions(CLI::App* cmd) override {
    cmd->add_option("--memory-id", report_options_.memory_id,
                    "Only this allocator, e.g. GPU_0_bfc, or PyTorch device, e.g. cuda:0 (default: all)");
    cmd->add_flag("--timeline", report_options_.timeline,
                  "Add the memory timeline (table 'timeline'; the one CSV writes when it is the only one asked for)");
    cmd->add_flag("--all-points", report_options_.all_points,
                  "With --timeline: every allocator event instead of at most 1000 sampled points");
    cmd->add_flag("--breakdown", report_options_.breakdown,
                  "Add the allocations alive at the peak, one row per op (table 'breakdown')");
    cmd->add_option("--unit", unit_, "Size unit: GiB, MiB or bytes (default MiB; GiB with --compat xprof, as its UI)")
        ->check(CLI::IsMember({"GiB", "MiB", "bytes"}));
  }
  void Prepare() override {
    const AnalysisOptions analysis = AnalysisOptionsFrom(options_);
    report_options_.compat = analysis.compat;
    if (unit_.empty()) unit_ = analysis.xprof() ? "GiB" : "MiB";
    report_options_.unit = unit_ == "GiB" ? MemoryUnit::kGiB : unit_ == "MiB" ? MemoryUnit::kMiB : MemoryUnit::kBytes;
  }
  Report BuildReport(RunSummary& run) override {
    std::vector<HostMemoryProfile> profiles;
    for (HostPartials& h : run.hosts) profiles.push_back(std::move(h.memory));
    const bool any =
        std::any_of(profiles.begin(), profiles.end(), [](const HostMemoryProfile& p) { return !p.allocators.empty(); });
    if (!any) {
      std::string why = profiles.empty() ? "no host was read" : profiles.front().no_profile_reason;
      throw InputError(options_.path, "no memory profile: " + why, kExitUnavailable);
    }
    if (!report_options_.memory_id.empty()) {
      std::vector<std::string> ids = MemoryIds(profiles);
      if (std::find(ids.begin(), ids.end(), report_options_.memory_id) == ids.end())
        throw InputError(options_.path,
                         "no allocator '" + report_options_.memory_id + "' (memory ids: " + Join(ids) + ")",
                         kExitUsage);
    }
    // CSV writes one table: the one asked for when it is a single one, so
    // `memory --timeline -f csv` gives the timeline to plot.
    if (options_.table.empty() && report_options_.timeline != report_options_.breakdown)
      options_.table = report_options_.timeline ? "timeline" : "breakdown";
    Report report;
    try {
      report = BuildMemoryReport(profiles, report_options_);
    } catch (const InputError& e) {
      // A sampled timeline of a stored summary: the summary is the file to name.
      if (!e.path().empty()) throw;
      throw InputError(options_.path, e.what(), e.code(), e.hint());
    }
    report.lines.insert(report.lines.begin(), "run " + run.run);
    for (const HostMemoryProfile& p : profiles)
      if (p.allocators.empty()) report.notes.push_back(p.host + ": no memory profile: " + p.no_profile_reason);
    return report;
  }

  size_t MemoryTimelinePoints() const override { return report_options_.all_points ? 0 : report_options_.max_points; }

  MemoryReportOptions report_options_;
  std::string unit_;
};

}  // namespace

std::unique_ptr<Command> MemoryCommand() { return std::make_unique<Memory>(); }

}  // namespace tfprof::cli
