#include "lib/summary/run_summary_combine.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string>

namespace tfprof {
namespace {

bool SameOptions(const AnalysisOptions& a, const AnalysisOptions& b) {
  return a.compat == b.compat && a.step_marker == b.step_marker && a.steps_between == b.steps_between &&
         a.whole_trace == b.whole_trace;
}

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
  if (!(other.parts == into.parts) || !SameOptions(other.options, into.options))
    throw std::invalid_argument("run summaries built with different parts or options do not combine");
  into.input_diagnostics.Merge(other.input_diagnostics);
  // Hosts read in order (the loader's case): appended, no merge.
  if (into.hosts.empty() || other.hosts.empty() || into.hosts.back().order < other.hosts.front().order) {
    into.hosts.insert(into.hosts.end(), std::make_move_iterator(other.hosts.begin()),
                      std::make_move_iterator(other.hosts.end()));
    return;
  }
  // Checked before anything moves, so a refused combination leaves `into` whole.
  for (size_t i = 0, j = 0; i < into.hosts.size() && j < other.hosts.size();) {
    const uint32_t a = into.hosts[i].order, b = other.hosts[j].order;
    if (a == b) throw std::invalid_argument("two run summaries hold host " + std::to_string(a) + " of the run");
    (a < b ? i : j) += 1;
  }
  std::vector<HostPartials> hosts;
  hosts.reserve(into.hosts.size() + other.hosts.size());
  std::merge(std::make_move_iterator(into.hosts.begin()), std::make_move_iterator(into.hosts.end()),
             std::make_move_iterator(other.hosts.begin()), std::make_move_iterator(other.hosts.end()),
             std::back_inserter(hosts), [](const HostPartials& a, const HostPartials& b) { return a.order < b.order; });
  into.hosts = std::move(hosts);
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

Diagnostics RunDiagnostics(const RunSummary& run) {
  Diagnostics out;
  out.Merge(run.input_diagnostics);
  for (const HostPartials& h : run.hosts) out.Merge(h.read_diagnostics);
  for (const HostPartials& h : run.hosts) out.Merge(h.diagnostics);
  return out;
}

}  // namespace tfprof
