#include "lib/summary/run_summary_combine.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "lib/model/diagnostic_kinds.h"

namespace tfprof {
namespace {

bool IsEmpty(const RunSummary& s) { return s.hosts.empty() && s.parts.bits == 0; }

}  // namespace

void CombineRunSummaries(RunSummary& into, RunSummary other) {
  if (IsEmpty(into)) {
    Diagnostics input = std::move(into.input_diagnostics);
    std::string run = std::move(into.run);
    into = std::move(other);
    input.Merge(into.input_diagnostics);
    into.input_diagnostics = std::move(input);
    if (into.run.empty()) into.run = std::move(run);
    return;
  }
  if (IsEmpty(other)) {
    into.input_diagnostics.Merge(other.input_diagnostics);
    return;
  }
  if (other.schema_version != into.schema_version)
    throw std::invalid_argument("run summaries of schema versions " + std::to_string(into.schema_version) + " and " +
                                std::to_string(other.schema_version) + " do not combine");
  if (!(other.parts == into.parts) || !other.options.SameAs(into.options))
    throw std::invalid_argument("run summaries built with different parts or options do not combine");
  // Checked before anything moves, so a refused combination leaves `into` whole.
  for (size_t i = 0, j = 0; i < into.hosts.size() && j < other.hosts.size();) {
    const HostPartials &a = into.hosts[i], &b = other.hosts[j];
    if (SameHostKey(a, b))
      throw std::invalid_argument("two run summaries hold host " + a.host + " of capture file '" + a.source +
                                  "' (order " + std::to_string(a.order) + ")");
    (HostKeyLess(a, b) ? i : j) += 1;
  }
  into.input_diagnostics.Merge(other.input_diagnostics);
  // The smallest name: any order of combining keeps the same one.
  if (into.tool.empty() || (!other.tool.empty() && other.tool < into.tool)) into.tool = std::move(other.tool);
  // Runs of different names (host files summarised one by one) are named
  // after their folder, the smallest folder name if they differ.
  if (into.run_folder.empty() || (!other.run_folder.empty() && other.run_folder < into.run_folder))
    into.run_folder = other.run_folder;
  if (into.run.empty()) into.run = std::move(other.run);
  else if (!other.run.empty() && other.run != into.run)
    into.run = into.run_folder.empty() ? std::min(into.run, other.run) : into.run_folder;

  std::vector<HostPartials> hosts;
  if (into.hosts.empty() || other.hosts.empty() || HostKeyLess(into.hosts.back(), other.hosts.front())) {
    // Hosts read in order (the loader's case): appended.
    hosts = std::move(into.hosts);
    hosts.insert(hosts.end(), std::make_move_iterator(other.hosts.begin()), std::make_move_iterator(other.hosts.end()));
  } else {
    hosts.reserve(into.hosts.size() + other.hosts.size());
    std::merge(std::make_move_iterator(into.hosts.begin()), std::make_move_iterator(into.hosts.end()),
               std::make_move_iterator(other.hosts.begin()), std::make_move_iterator(other.hosts.end()),
               std::back_inserter(hosts), HostKeyLess);
  }
  std::vector<RunSummary::DroppedCopy> dropped;
  dropped.reserve(into.dropped_copies.size() + other.dropped_copies.size());
  std::merge(std::make_move_iterator(into.dropped_copies.begin()), std::make_move_iterator(into.dropped_copies.end()),
             std::make_move_iterator(other.dropped_copies.begin()), std::make_move_iterator(other.dropped_copies.end()),
             std::back_inserter(dropped),
             [](const RunSummary::DroppedCopy& a, const RunSummary::DroppedCopy& b) { return a.source < b.source; });
  into.dropped_copies = std::move(dropped);
  std::vector<HostIdentity> ids;
  ids.reserve(hosts.size());
  for (const HostPartials& h : hosts) ids.push_back({h.source, h.host, h.source_sha256});
  const std::vector<bool> keep = DropByteIdenticalCopies(ids, into);
  into.hosts.clear();
  for (size_t i = 0; i < hosts.size(); ++i)
    if (keep[i]) into.hosts.push_back(std::move(hosts[i]));
}

std::vector<bool> DropByteIdenticalCopies(const std::vector<HostIdentity>& hosts, RunSummary& run) {
  std::vector<bool> keep(hosts.size(), true);
  // --compat xprof reads copies as hosts, as xprof does.
  if (run.options.compat == Compat::kXprof) return keep;
  absl::flat_hash_map<std::string_view, std::string_view> kept;  // sha256 -> host
  for (size_t i = 0; i < hosts.size(); ++i) {
    const HostIdentity& h = hosts[i];
    if (h.sha256.empty() || kept.try_emplace(h.sha256, h.host).second) continue;
    keep[i] = false;
    RunSummary::DroppedCopy copy{std::string(h.source), std::string(h.host), std::string(h.sha256), ""};
    auto at = std::upper_bound(
        run.dropped_copies.begin(), run.dropped_copies.end(), copy,
        [](const RunSummary::DroppedCopy& a, const RunSummary::DroppedCopy& b) { return a.source < b.source; });
    run.dropped_copies.insert(at, std::move(copy));
  }
  for (RunSummary::DroppedCopy& d : run.dropped_copies)
    if (auto it = kept.find(d.sha256); it != kept.end()) d.kept_host = std::string(it->second);
  return keep;
}

HostSummary CombineHostOps(const RunSummary& run) {
  HostSummary combined;
  for (size_t i = 0; i < run.hosts.size(); ++i) {
    if (i == 0) combined = run.hosts[i].ops;
    else CombineHostSummaries(combined, run.hosts[i].ops);
  }
  return combined;
}

StepDb CombineRunSteps(const RunSummary& run) {
  std::vector<StepDb> steps;
  steps.reserve(run.hosts.size());
  for (const HostPartials& h : run.hosts) steps.push_back(h.steps);
  return CombineHostSteps(std::move(steps), run.options);
}

TfDataAnalysis CombineRunTfData(const RunSummary& run) {
  TfDataAnalysis analysis;
  for (const HostPartials& h : run.hosts) CombineTfData(analysis, h.tf_data);
  FinalizeTfData(analysis);
  return analysis;
}

Diagnostics PartDiagnostics::ForParts(SummaryParts parts) const {
  Diagnostics out;
  if (parts.Has(SummaryPart::kSteps) || (parts.Has(SummaryPart::kMemory) && memory_grouped)) out.Merge(grouping);
  // A command showing one side of the op metrics meets that side's alone.
  const bool host_side = parts.Has(SummaryPart::kHostOps), device_side = parts.Has(SummaryPart::kKernels);
  if (host_side && device_side) out.Merge(ops);
  else if (host_side) out.Merge(ops_by_side ? ops_host : ops);
  else if (device_side) out.Merge(ops_by_side ? ops_device : ops);
  if (parts.Has(SummaryPart::kSteps)) out.Merge(steps);
  if (parts.Has(SummaryPart::kMemory)) out.Merge(memory);
  if (parts.Has(SummaryPart::kTfData)) out.Merge(tf_data);
  return out;
}

Diagnostics RunDiagnostics(const RunSummary& run) { return RunDiagnostics(run, run.parts); }

Diagnostics RunDiagnostics(const RunSummary& run, SummaryParts parts) {
  Diagnostics out;
  out.Merge(run.input_diagnostics);
  for (const RunSummary::DroppedCopy& d : run.dropped_copies)
    out.Add(diag_kind::kInputDuplicateHostFile, d.host + " (a byte-identical copy of " + d.kept_host + ")");
  for (const HostPartials& h : run.hosts) out.Merge(h.read_diagnostics);
  for (const HostPartials& h : run.hosts) out.Merge(h.diagnostics.ForParts(parts));
  return out;
}

}  // namespace tfprof
