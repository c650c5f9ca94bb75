#include "lib/summary/events_read_without_steps.h"

#include "lib/model/xplane_schema.h"
#include "lib/summary/event_grouping.h"
#include "lib/summary/pytorch_runtime_facts.h"
#include "lib/summary/tf_data_events_to_pipelines.h"
#include "lib/summary/tf_op_name.h"

namespace tfprof {

EventStatFilter::StepLessUse UseOfHostEventWithoutSteps(uint32_t bits, std::string_view name,
                                                        std::string_view display_name) {
  using Use = EventStatFilter::StepLessUse;
  SummaryParts parts;
  parts.bits = bits;
  // The op metrics' eager marks, and grouping with them, build the event
  // forest from an EagerExecute (host_to_run_summary.cc: only for them).
  if (parts.Has(SummaryPart::kEagerMarks) && IsEagerExecuteName(name)) return Use::kWholePlane;
  if (parts.Has(SummaryPart::kTfData) && IsTfDataEventName(name)) return Use::kWholePlane;
  if (parts.Has(SummaryPart::kMemory) && schema::IsAllocatorEvent(name)) return Use::kRead;
  if (parts.Has(SummaryPart::kHostOps) && ParseTfOpFullname(name).category != OpCategory::kUnknown) return Use::kRead;
  // The PyTorch facts are summed with either half of the op summary.
  if ((parts.Has(SummaryPart::kHostOps) || parts.Has(SummaryPart::kKernels)) &&
      IsPyTorchRuntimeFactName(display_name.empty() ? name : display_name))
    return Use::kRead;
  return Use::kUnread;
}

std::vector<std::string_view> StatsReadWithoutSteps(SummaryParts parts) {
  // HostPlaneToOpMetrics: an XLA:CPU op (hlo_op; an XLA:GPU launch too,
  // with its correlation_id), a runtime call inside an op the capture types
  // (correlation_id), an input-pipeline stage (_ipl_stage_id), an op named
  // by its tf_op (an op the capture types has one too: its tf_op_type
  // alone makes no op).
  if (parts.Has(SummaryPart::kHostOps)) return {"hlo_op", "correlation_id", "_ipl_stage_id", "tf_op"};
  return {};
}

void LeaveOutWhatNoStepsLeaveUnread(EventStatFilter& filter, SummaryParts parts, const AnalysisOptions& analysis) {
  filter.use_without_steps = nullptr;
  filter.analyses_group = true;
  filter.stats_read_without_steps.clear();
  if (filter.keep_all || parts.bits == 0 || analysis.whole_trace || !analysis.step_marker.empty() ||
      !analysis.steps_between.empty())
    return;
  if (analysis.compat != Compat::kDefault && parts.Has(SummaryPart::kHostOps)) return;
  filter.use_without_steps = &UseOfHostEventWithoutSteps;
  filter.use_parts = parts.bits;
  // The eager marks group nothing without an EagerExecute, whose name
  // keeps its plane whole (UseOfHostEventWithoutSteps) or has the host
  // read again (another plane's).
  filter.analyses_group = parts.Has(SummaryPart::kSteps) || parts.Has(SummaryPart::kMemory);
  filter.stats_read_without_steps = StatsReadWithoutSteps(parts);
}

}  // namespace tfprof
