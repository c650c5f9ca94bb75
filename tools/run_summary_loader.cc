#include "tools/run_summary_loader.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "lib/model/errors.h"
#include "lib/read/capture_discovery.h"
#include "lib/summary/captures_to_run_summary.h"
#include "lib/summary/run_summary_combine.h"
#include "lib/summary/run_summary_file.h"

namespace tfprof::cli {
namespace {

namespace fs = std::filesystem;

bool HasSummaryMagic(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head(kRunSummaryMagic.size(), '\0');
  return in.read(head.data(), static_cast<std::streamsize>(head.size())) && head == kRunSummaryMagic;
}

std::string OptionsText(const AnalysisOptions& a) {
  std::string out;
  auto add = [&out](const std::string& s) { out += (out.empty() ? "" : " ") + s; };
  if (a.compat == Compat::kXprof) add("--compat xprof");
  if (a.compat == Compat::kTfLegacy) add("--compat tf-legacy");
  if (!a.step_marker.empty()) add("--step-marker '" + a.step_marker + "'");
  if (!a.steps_between.empty()) add("--steps-between '" + a.steps_between + "'");
  if (a.whole_trace) add("--whole-trace");
  return out.empty() ? "no analysis options" : out;
}

}  // namespace

std::vector<std::string> SummaryFilesAt(const std::string& path) {
  std::error_code ec;
  if (fs::is_regular_file(path, ec))
    return HasSummaryMagic(path) ? std::vector<std::string>{path} : std::vector<std::string>{};
  if (!fs::is_directory(path, ec)) return {};
  std::vector<std::string> out;
  for (fs::directory_iterator it(path, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->path().extension() == kRunSummaryExtension && it->is_regular_file(ec)) out.push_back(it->path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

RunSummary CombineSummaryFiles(const std::vector<std::string>& files, const ReadOptions& read) {
  RunSummary run;
  for (const std::string& file : files) {
    Guard().AddInput(file);
    RunSummary one = ReadRunSummary(file, read);
    try {
      CombineRunSummaries(run, std::move(one));
    } catch (const std::invalid_argument& e) {
      throw InputError(file, std::string("does not combine with the summaries before it: ") + e.what());
    }
  }
  return run;
}

RunSummary LoadRunSummary(const CommonOptions& o, SummaryParts parts, const EventStatFilter& event_stats,
                          const std::function<void(const Host&)>& visit,
                          const std::function<void(const Host&, const RunSummary&, size_t run_hosts)>& summarized,
                          size_t memory_timeline_points) {
  SummaryOptions summary;
  summary.memory_timeline_points = memory_timeline_points;
  summary.analysis = AnalysisOptionsFrom(o);  // Before reading: a bad regular expression is a usage error first.
  summary.parts = parts;
  Guard().AddInput(o.path);  // Before discovery: a refused output fails before anything is read.
  if (std::vector<std::string> files = SummaryFilesAt(o.path); !files.empty())
    return LoadSummaryFiles(o, files, parts, summary.analysis, visit || summarized);
  // xprof reads byte-identical host files twice; so does --compat xprof.
  const DiscoveredInput input = DiscoverInput(o.path, o.run, /*keep_duplicates=*/o.compat == "xprof");
  Guard().AddInput(input.selected.path);
  for (const CaptureFile& file : input.selected.files) Guard().AddInput(file.path);
  RunReadOptions read;
  read.read.max_events = o.max_events;
  read.read.max_inflated_bytes = o.max_inflated_mb << 20;
  read.read.event_stats = event_stats;
  read.host = o.host;
  read.visit = visit;
  read.summarized = summarized;
  read.hash_sources = o.hash_sources;
  return CapturesToRunSummary(input, read, summary);
}

RunSummary LoadSummaryFiles(const CommonOptions& o, const std::vector<std::string>& files, SummaryParts parts,
                            const AnalysisOptions& analysis, bool wants_events) {
  if (wants_events)
    throw InputError(o.path,
                     "this is a run summary: it holds no events (give this command the captures themselves; "
                     "`hosts` lists the summary's hosts and their capture files)",
                     kExitUsage);
  if (!o.run.empty())
    throw InputError(o.path, "--run selects a run of a logdir; a run summary holds one run", kExitUsage);
  RunSummary run = CombineSummaryFiles(files, ReadOptions{});
  // How the report words its hints is the command line's, never stored.
  run.options.word_no_steps_hint = analysis.word_no_steps_hint;
  if (!run.parts.Covers(parts))
    throw InputError(o.path,
                     "this run summary lacks parts this command shows (it was made by an older or partial "
                     "summarize); summarize the captures again",
                     kExitUnavailable);
  if (!run.options.SameAs(analysis))
    throw InputError(o.path,
                     "this run summary was made with " + OptionsText(run.options) + ", the command asks for " +
                         OptionsText(analysis) +
                         "; give the summary's options or summarize the captures again with "
                         "these",
                     kExitUsage);
  if (!o.host.empty()) {
    auto named = [&](const HostPartials& h) { return h.host == o.host; };
    if (std::none_of(run.hosts.begin(), run.hosts.end(), named)) {
      std::string hosts;
      for (const HostPartials& h : run.hosts) hosts += (hosts.empty() ? "" : ", ") + h.host;
      throw InputError(o.path, "no host named '" + o.host + "' in the run summary (hosts: " + hosts + ")", kExitUsage);
    }
    std::erase_if(run.hosts, [&](const HostPartials& h) { return !named(h); });
  }
  return run;
}

}  // namespace tfprof::cli
