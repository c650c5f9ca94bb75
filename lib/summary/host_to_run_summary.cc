#include "lib/summary/host_to_run_summary.h"

#include <optional>

#include "lib/summary/event_grouping.h"

namespace tfprof {

RunSummary HostToRunSummary(const Host& host, const SummaryOptions& options) {
  RunSummary out;
  out.parts = options.parts;
  out.options = options.analysis;
  HostPartials& p = out.hosts.emplace_back();
  p.order = options.order;
  p.host = host.name;
  p.format = host.format;
  Diagnostics& diagnostics = p.diagnostics;

  // The one grouping of this pass, made when first needed: steps always
  // need it, the memory profile only for a host with allocator events (so
  // `memory` on a host without them groups nothing, and reports nothing
  // grouping met).
  std::optional<EventGroups> groups;
  auto grouped = [&]() -> const EventGroups& {
    if (!groups) groups = GroupEvents(host, diagnostics, options.analysis);
    return *groups;
  };
  const SummaryParts parts = options.parts;
  if (parts.Has(SummaryPart::kSteps)) grouped();

  if (parts.Has(SummaryPart::kOps)) {
    // Without eager marks: none (kernel-stats and placement show no
    // execution mode, and marking needs the event forest). With them and no
    // grouping to reuse: SummarizeHostOps marks alone (MarkEagerEvents,
    // cheaper than grouping, and met with no grouping diagnostics).
    static const EventBits kNoMarks;
    const EventBits* eager = &kNoMarks;
    if (parts.Has(SummaryPart::kEagerMarks)) eager = groups ? &groups->eager : nullptr;
    p.ops = SummarizeHostOps(host, diagnostics, options.analysis, eager);
  }
  if (parts.Has(SummaryPart::kSteps)) p.steps = BuildStepDb(host, *groups, options.analysis, diagnostics);
  if (parts.Has(SummaryPart::kMemory))
    p.memory = BuildMemoryProfile(host, MemoryProfileOptionsFor(options.analysis.compat), diagnostics, grouped);
  if (parts.Has(SummaryPart::kTfData)) {
    TfDataOptions tf_data;
    // --compat xprof reads iterator ids as xprof does.
    tf_data.xprof_ids = options.analysis.xprof();
    p.tf_data = SummarizeTfData(host, tf_data, diagnostics);
  }
  return out;
}

}  // namespace tfprof
