// `tfprof-analyze trace PATH -o trace.json.gz`: the capture as Chrome /
// Perfetto trace JSON (lib/export/host_to_chrome_trace.h, docs/trace.md),
// streamed host by host.
#include <algorithm>
#include <charconv>
#include <iostream>
#include <map>
#include <optional>
#include <set>

#include "fmt/format.h"
#include "lib/export/gzip_ostream.h"
#include "lib/export/host_to_chrome_trace.h"
#include "lib/model/errors.h"
#include "lib/read/byte_source.h"
#include "lib/read/capture_discovery.h"
#include "lib/read/xplane_reader.h"
#include "lib/summary/analysed_event_stats.h"
#include "lib/summary/captures_to_run_summary.h"
#include "lib/summary/planes_to_step_db.h"
#include "lib/util/split.h"
#include "tools/commands.h"
#include "tools/run_summary_loader.h"

namespace tfprof::cli {
namespace {

// "A-B" or "A": step numbers as the steps table numbers them.
std::pair<int64_t, int64_t> ParseStepRange(const std::string& text) {
  const size_t dash = text.find('-', 1);
  auto number = [&](std::string_view s) {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size())
      throw InputError("", "--steps: '" + text + "' is not a step number or a range A-B of them", kExitUsage);
    return v;
  };
  const int64_t a = number(std::string_view(text).substr(0, dash));
  const int64_t b = dash == std::string::npos ? a : number(std::string_view(text).substr(dash + 1));
  if (b < a) throw InputError("", "--steps: '" + text + "' ends before it starts", kExitUsage);
  return {a, b};
}

class Trace final : public Command {
 public:
  Trace()
      : Command("trace",
                "Write the capture as Chrome/Perfetto trace JSON (every event, stats as args, launch->kernel flows, "
                "a Steps track) for ui.perfetto.dev or chrome://tracing; streamed host by host") {}

  void AddOptions(CLI::App* cmd) override {
    cmd->add_option("path", o_.path, "Logdir, run folder (plugins/profile/<run>) or capture file")->required();
    AddOutputOption(cmd, "--output,-o", o_.output,
                    "The trace to write: *.gz is gzipped; '-' is standard output (never into an input)")
        ->required();
    cmd->add_option("--run", o_.run, "Which run of a logdir (default: the newest)");
    cmd->add_option("--hosts", hosts_, "Only these hosts (comma-separated names, or rank<N>)");
    cmd->add_option("--steps", steps_,
                    "Only the events overlapping steps A to B of each host (numbers as `hosts --per-step` and, for "
                    "one host, `steps` show them), e.g. 3-5 or 4");
    cmd->add_flag("--no-steps", no_steps_, "Leave out the Steps track (and the step finding it needs: faster)");
    cmd->add_option("--compat", o_.compat, "As for the analysis commands (which steps are found)")
        ->check(CLI::IsMember({"xprof", "tf-legacy"}));
    AddReadLimitOptions(cmd, o_);
    AddStepOptions(cmd, o_);
  }

  void Run() override {
    if (!steps_.empty()) range_ = ParseStepRange(steps_);
    if (range_ && no_steps_) throw InputError("", "--steps needs the steps: leave out --no-steps", kExitUsage);
    for (std::string_view h : SplitAny(hosts_, ","))
      if (!h.empty()) wanted_.emplace(h);
    if (wanted_.size() == 1) o_.host = *wanted_.begin();  // Read only that host.
    const bool gzip = o_.output.ends_with(".gz");
    ChromeTraceCounts counts;
    WriteOutput(o_.output == "-" ? "" : o_.output, [&](std::ostream& raw) {
      std::optional<GzipOstream> gz;
      std::ostream& out = gzip ? gz.emplace(raw) : raw;
      ChromeTraceWriter writer(out);
      if (const std::optional<DiscoveredInput> input = StreamableInput()) WriteStreamed(*input, writer);
      else WriteFromModels(writer);
      for (const std::string& h : wanted_)
        if (!seen_.count(h)) throw InputError(o_.path, "no host named '" + h + "' in the run", kExitUsage);
      if (range_ && in_range_ == 0)
        throw InputError(o_.path, "no host has steps " + steps_ + " (the steps command lists them)", kExitUnavailable);
      writer.Finish();
      if (gz && !gz->Finish()) throw InputError(o_.output, "cannot write the gzipped trace", kExitOutputFailed);
      counts = writer.counts();
    });
    std::cerr << fmt::format("trace: {} host{}, {} processes, {} threads, {} events, {} flows, {} steps -> {}\n",
                             counts.hosts, counts.hosts == 1 ? "" : "s", counts.processes, counts.threads,
                             counts.events, counts.flows, counts.steps,
                             o_.output == "-" ? "standard output" : o_.output);
  }

 private:
  // The window of a host's events to write: all of them, or those of the
  // steps --steps names; none when it has none of those steps (the host is
  // then left out).
  std::optional<TraceWindow> WindowOf(const std::optional<StepDb>& steps) {
    TraceWindow window;
    if (!range_) return window;
    bool any = false;
    for (size_t i = 0; i < steps->steps.size(); ++i) {
      const StepRecord& s = steps->steps[i];
      const int64_t number = StepNumber(s, i);
      if (number < range_->first || number > range_->second) continue;
      window.begin_ps = any ? std::min(window.begin_ps, s.begin_ps) : s.begin_ps;
      window.end_ps = std::max(any ? window.end_ps : s.begin_ps, s.begin_ps + static_cast<int64_t>(s.duration_ps));
      any = true;
    }
    if (!any) return std::nullopt;
    ++in_range_;
    return window;
  }

  // A run whose every host is one uncompressed XSpace file is streamed
  // (StreamXSpaceFile): its events are written as they are decoded, never
  // held, so the trace takes constant memory whatever the capture's size.
  // Anything else (Chrome trace JSON, gzipped or TF1 series files, run
  // summaries) is written from each host's model.
  std::optional<DiscoveredInput> StreamableInput() {
    AnalysisOptionsFrom(o_);  // A bad step option is a usage error first, as on the other path.
    Guard().AddInput(o_.path);
    if (!SummaryFilesAt(o_.path).empty()) return std::nullopt;
    DiscoveredInput input = DiscoverInput(o_.path, o_.run, /*keep_duplicates=*/o_.compat == "xprof");
    for (const CaptureFile& file : input.selected.files) {
      if (file.format != CaptureFormat::kXSpace || !file.more_steps.empty() || file.host.empty()) return std::nullopt;
      if (ChunkReader::Open(file.path)->gzipped()) return std::nullopt;
    }
    Guard().AddInput(input.selected.path);
    for (const CaptureFile& file : input.selected.files) Guard().AddInput(file.path);
    return input;
  }

  // The streamed path: the steps first, from a read of each host that
  // keeps only what steps need (the model is dropped before its events are
  // streamed), then each host's file streamed.
  void WriteStreamed(const DiscoveredInput& input, ChromeTraceWriter& writer) {
    // One host asked for, absent: said as the other commands say it.
    auto named = [&](const CaptureFile& f) { return f.host == o_.host; };
    if (!o_.host.empty() && std::none_of(input.selected.files.begin(), input.selected.files.end(), named))
      throw NoHostNamed(input, o_.host);
    std::map<std::string, StepDb> steps_of;  // By capture path.
    if (!no_steps_) {
      LoadRunSummary(o_, SummaryPart::kSteps, EventStatsFor(SummaryPart::kSteps, AnalysisOptionsFrom(o_)), {},
                     [&](const Host& host, const RunSummary& summary, size_t) {
                       steps_of[host.source_path] = CombineHostSteps({summary.hosts.front().steps}, summary.options);
                     });
    }
    ReadOptions read;
    read.max_events = o_.max_events;
    const size_t run_hosts = input.selected.files.size();
    for (const CaptureFile& file : input.selected.files) {
      if (!wanted_.empty() && !wanted_.count(file.host)) continue;
      seen_.insert(file.host);
      std::optional<StepDb> steps;
      if (!no_steps_) steps = std::move(steps_of.at(file.path));
      const std::optional<TraceWindow> window = WindowOf(steps);
      if (!window) continue;
      writer.BeginHost(Several(run_hosts) ? file.host : "");
      ChromeTraceStreamSink sink(writer, *window);
      Diagnostics diagnostics;
      StreamXSpaceFile(file.path, sink, diagnostics, read);
      writer.EndHost(steps ? &*steps : nullptr, *window);
    }
  }

  // Each host's model, read whole with every stat, then written.
  void WriteFromModels(ChromeTraceWriter& writer) {
    auto add = [&](const Host& host, const RunSummary& summary, size_t run_hosts) {
      if (!wanted_.empty() && !wanted_.count(host.name)) return;
      seen_.insert(host.name);
      // The host's steps as `steps` and `hosts --per-step` number them (a
      // first and last step the profile window cut are left out, as there).
      std::optional<StepDb> steps;
      if (!no_steps_) steps = CombineHostSteps({summary.hosts.front().steps}, summary.options);
      const std::optional<TraceWindow> window = WindowOf(steps);
      if (!window) return;  // None of its steps in range: nothing of this host.
      writer.AddHost(host, Several(run_hosts) ? host.name : "", steps ? &*steps : nullptr, *window);
    };
    const SummaryParts parts = no_steps_ ? SummaryParts() : SummaryParts(SummaryPart::kSteps);
    LoadRunSummary(o_, parts, EventStatFilter(), {}, add);
  }

  // Processes are named after the planes alone when the trace holds one host.
  bool Several(size_t run_hosts) const { return wanted_.size() > 1 || (wanted_.empty() && run_hosts > 1); }

  CommonOptions o_;
  std::string hosts_, steps_;
  bool no_steps_ = false;
  std::optional<std::pair<int64_t, int64_t>> range_;
  std::set<std::string> wanted_, seen_;
  size_t in_range_ = 0;
};

}  // namespace

std::unique_ptr<Command> TraceCommand() { return std::make_unique<Trace>(); }

}  // namespace tfprof::cli
