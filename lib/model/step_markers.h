// The names in a capture's metadata that let grouping find steps on the
// capture's own markers (no --step-marker, --steps-between or
// --whole-trace): group ids the profiler wrote, TensorFlow's step roots,
// TF1 loop iterations and PyTorch's ProfilerStep#N. Grouping
// (lib/summary/event_grouping.cc: MayHaveTensorFlowRoots, HasProfilerSteps)
// finds no step in a host without any of them and builds no event forest;
// the reader (lib/read/xplane_reader.cc) then leaves out every host event
// no analysis of the command reads (lib/summary/events_read_without_steps.h),
// deciding by the metadata and, where an op's stat may make an event read,
// by its stats. The forest's own kinds
// (KindOfName) name the same roots: tests/analyze/steps_test.cc checks
// that they agree.
#pragma once

#include <string_view>

#include "lib/model/model.h"

namespace tfprof::schema {

// An event name grouping takes as a step root with no stat saying so
// (TraceContext, the batching roots) or as a TF1 loop iteration
// (ExecutorState::Process, with its iter_num).
bool IsStepRootEventName(std::string_view name);
// "ProfilerStep#<digits>": PyTorch's marker of each prof.step().
bool IsProfilerStepName(std::string_view name);

// Whether a plane's names could give its host a step: a group_id or a
// root-level (_r) stat, or an event named as above (ProfilerStep#N on the
// host threads' plane, where grouping looks for it).
bool PlaneMayHaveSteps(const Host& host, const Plane& plane);
// The same over every plane of a host, or its TF1 session.run line.
bool HostMayHaveSteps(const Host& host);

}  // namespace tfprof::schema
