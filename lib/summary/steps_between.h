// Steps between markers (--steps-between REGEX), for captures whose program
// marks no step: a PyTorch loop profiled without a schedule or prof.step()
// has no ProfilerStep#N, but each iteration starts with the same host event
// (`enumerate(DataLoader)#..._DataLoaderIter.__next__`). Step i is the
// window from marker i's start to marker i+1's start; the last runs to the
// end of the trace (the latest end of a host or device event), so that the
// last iteration's work after its marker is in it (an iteration that the
// profiler cut, or the loader's closing StopIteration call, has no device
// compute and is dropped like any incomplete step).
//
// Host events belong to the window holding their start. A device event
// belongs to the step of its launch (the host event with the same
// correlation_id), since PyTorch launches asynchronously and the kernel may
// run after the next marker; a device event with no launch in a window takes
// the step of the device event before it on its device, as the grouping of
// ProfilerStep#N does. A marker that starts inside an earlier marker on the
// same thread (a nested match) starts no step.
#pragma once

#include <string_view>

#include "lib/model/model.h"
#include "lib/summary/event_grouping.h"
#include "lib/summary/name_regex.h"

namespace tfprof {

// The steps of `host` between events of its host plane whose name matches
// `markers` (`pattern` is its text, for messages); EventGroups::marker_windows
// holds each step's window. No markers: no groups, with no_groups_reason.
EventGroups GroupStepsBetween(const Host& host, const NameRegex& markers, std::string_view pattern);

}  // namespace tfprof
