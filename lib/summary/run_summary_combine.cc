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
  std::vector<HostPartials> hosts;
  hosts.reserve(into.hosts.size() + other.hosts.size());
  auto by_order = [](const HostPartials& a, const HostPartials& b) { return a.order < b.order; };
  std::merge(std::make_move_iterator(into.hosts.begin()), std::make_move_iterator(into.hosts.end()),
             std::make_move_iterator(other.hosts.begin()), std::make_move_iterator(other.hosts.end()),
             std::back_inserter(hosts), by_order);
  for (size_t i = 1; i < hosts.size(); ++i)
    if (hosts[i].order == hosts[i - 1].order)
      throw std::invalid_argument("two run summaries hold host " + std::to_string(hosts[i].order) + " of the run");
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
