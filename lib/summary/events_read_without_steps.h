// What the analyses read of a host-threads plane whose names give its host
// no step (schema::PlaneMayHaveSteps false: every JAX capture, a PyTorch
// XSpace without ProfilerStep#N). Grouping finds no step there and builds
// no event forest (event_grouping.cc), so no analysis follows the nesting
// or the links of such a plane's events: each reads the events it wants by
// their names, or by a stat that makes an event an op. The reader leaves
// every other event out of its line (EventStatFilter::use_without_steps),
// deciding by the plane's metadata before any event is read, and by an
// event's stats where an op's stat may be among them. A JAX
// capture's Python tracer line is most of its host's events and no
// analysis reads it (114 MB: `overview` 0.31 -> 0.20 s, peak 137 -> 33
// MiB).
// The same holds of any host for a command none of whose analyses groups
// events (no step analysis or memory profile: placement, tf-data, and
// op-stats where no EagerExecute calls for its eager marks, which keeps
// the plane whole as above; EventStatFilter::analyses_group): nothing
// builds a forest, so the rule applies whatever the host's names say of
// steps (a current-TF CPU capture, 113 MB: `placement` peak 86 -> 20
// MiB). A command that groups needs every event of a host that may have
// steps: grouping follows nesting, and which EagerExecute or ancestor is
// nearest depends on how many events lie between.
//
// Each part's rule is the analysis's own test of a name, called from here:
//   memory profile   its allocator events (schema::IsAllocatorEvent);
//   host op metrics  a TF op's name (ParseTfOpFullname), a PyTorch runtime
//                    fact's (IsPyTorchRuntimeFactName), and any event with
//                    an op's stat (StatsReadWithoutSteps);
//   tf.data          every event of a plane with an iterator's, producer's
//                    or consumer's name: an event's parent there is the
//                    nearest event containing it, whatever its name;
//   eager marks      every event of a plane with an EagerExecute (the
//                    forest is built for the marks, by the op metrics or
//                    by grouping beside them);
//   steps, kernels   nothing more (no step; kernels are the devices').
// An allocator event is left out by its name alone for a command that
// reads none (EventStatFilter::keep_allocator_events), whatever stats it
// carries: TensorFlow's tf_op on it makes no op.
// What the reader would say of an event left out goes unsaid (a negative
// duration, a line out of order only by it, and, where it is left out by
// its name, a dangling stat id: docs/robustness.md).
// An analysis that starts reading other host events must say so here:
// tests/summary/event_stat_filter_summary_test.cc compares every part's
// summary read this way and read whole, on every test and corpus capture.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "lib/read/read_options.h"
#include "lib/summary/analysis_options.h"
#include "lib/summary/run_summary.h"

namespace tfprof {

// What an event of this name (and display name, empty when none) is to the
// analyses of `parts` (SummaryParts::bits) on such a plane (or any, where
// they group nothing).
EventStatFilter::StepLessUse UseOfHostEventWithoutSteps(uint32_t parts, std::string_view name,
                                                        std::string_view display_name);
// The stats whose presence makes the analyses of `parts` read an event of
// any name there.
std::vector<std::string_view> StatsReadWithoutSteps(SummaryParts parts);
// Sets `filter` to leave out what the analyses of `parts` do not read of
// such planes (of any, where they group nothing), where the options let
// the capture's own names decide the steps (no --whole-trace,
// --step-marker or --steps-between) and, for the host op metrics, which
// events are ops (no --compat: xprof counts allocator events as ops, tf1
// parses names otherwise).
void LeaveOutWhatNoStepsLeaveUnread(EventStatFilter& filter, SummaryParts parts, const AnalysisOptions& analysis);

}  // namespace tfprof
