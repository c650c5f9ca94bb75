#include "lib/summary/analysed_event_stats.h"

#include <algorithm>
#include <initializer_list>

#include "lib/model/tf1_timeline.h"
#include "lib/summary/events_read_without_steps.h"

namespace tfprof {
namespace {

struct StatGroup {
  SummaryParts parts;  // The parts whose analyses read these stats.
  std::initializer_list<std::string_view> names;
};

// Event grouping (event_grouping.cc) runs for steps, for eager marks and
// for the memory profile's step ids.
constexpr SummaryParts kGrouping = SummaryPart::kSteps | SummaryPart::kEagerMarks | SummaryPart::kMemory;

// clang-format off
const StatGroup kGroups[] = {
    // Event grouping: producer/consumer links (_r, _a, _p/_pt, _c/_ct, _pid),
    // TF step and loop ids, the launch-to-kernel link, the step names and
    // group ids of captures grouped when taken (event_grouping.cc), the
    // launches of steps between events (steps_between.cc), the files of a
    // TF1 timeline series (tf1_timeline_steps.cc).
    {kGrouping, {"_r", "_a", "id", "iter_num", "step_num", "graph_type", "correlation_id", "_pt", "_p", "_ct", "_c",
                 "_pid", "is_func", "group_id", "step_name", kTf1TimelineFileStat}},
    // Step database (planes_to_step_db.cc): step names, the launch-to-kernel
    // link, memcpy shapes.
    {SummaryPart::kSteps, {"correlation_id", "step_name", "shape"}},
    // Host op metrics (host_plane_to_op_metrics.cc): op identity, eager mode,
    // the input-pipeline stage of tf.data events, launches, and XLA:CPU ops'
    // names (xla_ops_to_op_metrics.cc's XlaOpNamer).
    {SummaryPart::kOps | SummaryPart::kHostOps,
     {"tf_op", "tf_op_type", "is_eager", "_ipl_stage_id", "_ipl_stage_cat", "correlation_id", "hlo_op", "hlo_module",
      "hlo_category"}},
    // Device op metrics (device_plane_to_op_metrics.cc) and XLA ops
    // (xla_ops_to_op_metrics.cc).
    {SummaryPart::kOps | SummaryPart::kKernels,
     {"tf_op", "tf_op_type", "level 0", "hlo_op", "hlo_module", "hlo_category", "is_eager", "correlation_id",
      "scope_range_id"}},
    // Kernel stats (device_plane_to_kernel_stats.cc): CUPTI's kernel details
    // or Kineto's launch parameters, and the op each kernel runs.
    {SummaryPart::kOps | SummaryPart::kKernels,
     {"kernel_details", "tf_op", "tf_op_type", "level 0", "equation", "op_input_types", "grid", "block",
      "registers per thread", "shared memory", "est. achieved occupancy %"}},
    // tf.data pipelines (tf_data_events_to_pipelines.cc): iterator ids and
    // async marks.
    {SummaryPart::kTfData, {"id", "parent_id", "element_id", "_a"}},
    // Memory profile of allocator events (memory_events_to_profile.cc), and
    // of PyTorch's memory events (kineto_memory_events_to_profile.cc).
    {SummaryPart::kMemory, {"allocator_name", "index_on_host", "device_ordinal", "bytes_reserved", "bytes_allocated",
                            "bytes_available", "fragmentation", "peak_bytes_in_use", "requested_bytes",
                            "allocation_bytes", "addr", "tf_op", "region_type", "data_type", "shape", "Bytes", "Addr",
                            "Total Allocated", "Total Reserved", "Device Type", "Device Id", "tf_op_type"}},
};
// clang-format on

}  // namespace

EventStatFilter EventStatsFor(SummaryParts parts, const AnalysisOptions& analysis) {
  std::vector<std::string_view> names;
  for (const StatGroup& g : kGroups) {
    if ((g.parts.bits & parts.bits) == 0) continue;
    for (std::string_view n : g.names)
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  }
  EventStatFilter filter = EventStatFilter::Only(std::move(names));
  // TensorFlow's pending step id on allocator events: grouping reads `id`
  // on executor, iterator and captured-function events and on step roots,
  // tf.data on iterator events, and the memory profile takes the step from
  // grouping (EventStatFilter::not_on_allocator_events).
  filter.not_on_allocator_events = {"id"};
  // Every summary skips derived lines (but the Steps line).
  filter.keep_derived_line_events = false;
  // The device side alone (kernel-stats) reads no host-thread event.
  filter.keep_host_thread_events = !(parts == SummaryParts(SummaryPart::kKernels));
  // The memory profile alone reads no device event (but the devices' Steps
  // lines): its allocator events are the host's, and their steps come from
  // host roots (device events only join the groups of their launches), so
  // only what grouping and the reader say of device events goes unsaid
  // (EventStatFilter::keep_device_events). Step markers may match a device
  // event's name, so with them the devices are read.
  filter.keep_device_events = !(parts == SummaryParts(SummaryPart::kMemory)) || analysis.whole_trace ||
                              !analysis.step_marker.empty() || !analysis.steps_between.empty();
  // Allocator events: the memory profile's alone, by default. Grouping
  // nests them (instants) under the op that allocates, where they can hold
  // only instants of the same time, whose groups come from that op all the
  // same; the steps' spans skip instants; the op statistics leave them out.
  filter.keep_allocator_events = parts.Has(SummaryPart::kMemory) || analysis.compat != Compat::kDefault ||
                                 analysis.whole_trace || !analysis.step_marker.empty() ||
                                 !analysis.steps_between.empty();
  // The memory profile reads its allocator events' stats as typed records
  // (lib/model/allocator_stats.h), unless --compat xprof's host op metrics
  // read them too: there an allocator event counts as a run of its tf_op.
  filter.allocator_records =
      parts.Has(SummaryPart::kMemory) &&
      !(analysis.compat == Compat::kXprof && (parts.Has(SummaryPart::kOps) || parts.Has(SummaryPart::kHostOps)));
  // The memory profile alone reads of the host's other events only what
  // groups its allocator events into steps; where the capture was grouped
  // when taken (and no option chooses the steps otherwise), that is their
  // group ids.
  filter.only_allocator_events_when_steps_allow = parts == SummaryParts(SummaryPart::kMemory) &&
                                                  !analysis.whole_trace && analysis.step_marker.empty() &&
                                                  analysis.steps_between.empty();
  // Where the host's names give it no step, or the parts group nothing,
  // only what the parts read by name or by an op's stat
  // (lib/summary/events_read_without_steps.h).
  LeaveOutWhatNoStepsLeaveUnread(filter, parts, analysis);
  return filter;
}

}  // namespace tfprof
