#include "lib/summary/captures_to_run_summary.h"

#include <filesystem>
#include <set>

#include "lib/model/diagnostic_kinds.h"
#include "lib/model/errors.h"
#include "lib/read/capture_loader.h"
#include "lib/read/file_sha256.h"
#include "lib/read/kineto_rank.h"
#include "lib/summary/host_to_run_summary.h"
#include "lib/summary/run_summary_combine.h"
#include "lib/util/phase_times.h"
#include "lib/util/version.h"

namespace tfprof {
namespace {

// Whether `file` may hold host `wanted` (a PyTorch rank): only a trace can,
// and one whose head names another rank (or says it has none) cannot.
bool MayHoldRank(const CaptureFile& file, const std::string& wanted) {
  if (!IsRankHostName(wanted) || file.format != CaptureFormat::kChromeTrace) return false;
  const PeekedRank peeked = PeekRank(file.path);
  return !(peeked.state == PeekedRank::kNone ||
           (peeked.state == PeekedRank::kRank && RankHostName(peeked.rank) != wanted));
}

}  // namespace

RunSummary CapturesToRunSummary(const DiscoveredInput& input, const RunReadOptions& r, const SummaryOptions& options) {
  RunSummary run;
  run.run = input.selected.name;
  run.run_folder =
      input.kind == InputKind::kFile
          ? std::filesystem::absolute(input.selected.path).lexically_normal().parent_path().filename().string()
          : std::filesystem::absolute(input.selected.path).lexically_normal().filename().string();
  run.parts = options.parts;
  run.options = options.analysis;
  run.tool = std::string(kToolVersion);
  for (const std::string& dup : input.selected.duplicates)
    run.input_diagnostics.Add(diag_kind::kInputDuplicateHostFile, dup);
  for (const std::string& skipped : input.selected.skipped)
    run.input_diagnostics.Add(diag_kind::kInputSkippedFile, skipped);
  bool matched = r.host.empty();
  std::set<std::string> names;
  std::map<std::string, std::string> read_names;  // Files read for a rank and not it: their host names.
  const std::vector<CaptureFile>& files = input.selected.files;
  for (const CaptureFile& file : files) {
    // --host names a file's host, or a PyTorch rank ("rank1"), which only
    // the trace says: its head when Kineto wrote it first, else the trace.
    const bool by_file = r.host.empty() || file.host == r.host;
    if (!by_file && !MayHoldRank(file, r.host)) continue;
    Diagnostics read_diagnostics;
    PhaseTimer read_phase("read capture");
    Host host = LoadCapture(file, read_diagnostics, r.read);
    read_phase.Stop();
    if (!by_file && host.name != r.host) {
      read_names[file.path] = host.name;
      continue;
    }
    // Two traces of one rank in a run (copies, or two jobs' files mixed):
    // the later keeps its file's name, so hosts stay apart.
    if (!names.insert(host.name).second) {
      read_diagnostics.Add(diag_kind::kInputDuplicateRank, host.name + " (" + file.path + ")");
      host.name = file.host;
      names.insert(host.name);
    }
    matched = true;
    if (r.visit) r.visit(host);
    // The file's name orders the hosts (CaptureSourceName: names in one
    // folder differ, and a rank folder's name goes with its files); `order`
    // stays 0, as in a summary of this file alone, so that hosts summarised
    // apart combine into these bytes.
    SummaryOptions one = options;
    one.order = 0;
    one.source = CaptureSourceName(file.path);
    PhaseTimer summary_phase("summarize host");
    RunSummary summary = HostToRunSummary(host, one);
    summary_phase.Stop();
    summary.hosts.front().read_diagnostics = std::move(read_diagnostics);
    if (r.summarized) r.summarized(host, summary, files.size());
    if (r.hash_sources) {
      std::vector<std::string> paths{file.path};
      paths.insert(paths.end(), file.more_steps.begin(), file.more_steps.end());
      summary.hosts.front().source_sha256 = FilesSha256Hex(paths);
    }
    CombineRunSummaries(run, std::move(summary));
    // Freed here, before the next host is read (timed: a 1 GB capture's
    // model takes 20-45 ms to give back; freeing it on a thread beside the
    // report slowed the report as much, its page faults waiting on the
    // unmapping).
    PhaseTimer release_phase("release host");
    const Host released = std::move(host);
  }
  if (!matched) throw NoHostNamed(input, r.host, &read_names);
  return run;
}

InputError NoHostNamed(const DiscoveredInput& input, const std::string& host,
                       const std::map<std::string, std::string>* read) {
  // Each file's host name as the reports give it: a PyTorch trace's rank
  // (its file's name answers --host too), from the trace when it was read,
  // else from its head; a rank met a second time keeps the file's name, as
  // when the run is read.
  std::string hosts;
  std::set<std::string> used;
  for (const CaptureFile& f : input.selected.files) {
    std::string name = f.host;
    const auto known = read ? read->find(f.path) : std::map<std::string, std::string>::const_iterator();
    if (read && known != read->end()) {
      name = known->second;
    } else if (f.format == CaptureFormat::kChromeTrace) {
      if (const PeekedRank peeked = PeekRank(f.path); peeked.state == PeekedRank::kRank)
        name = RankHostName(peeked.rank);
    }
    if (!used.insert(name).second) name = f.host;
    hosts += (hosts.empty() ? "" : ", ") + (name == f.host ? name : name + " (" + f.host + ")");
  }
  return InputError(input.input_path,
                    "no host named '" + host + "' in run " + input.selected.name + " (hosts: " + hosts +
                        (IsRankHostName(host) ? "; no trace of that PyTorch rank either" : "") + ")",
                    kExitUsage);
}

}  // namespace tfprof
