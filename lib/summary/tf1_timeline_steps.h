// Steps of a TensorFlow 1 timeline: a timeline records one session.run, so
// each is a step, and several timeline files of one run read as one host
// (lib/read/tf1_timeline_files.h) are several steps. The reader left one
// "session.run" event per timeline on a derived line of the host plane
// (lib/model/tf1_timeline.h); every event of the host belongs to the step
// whose session.run span holds its start.
#pragma once

#include <optional>

#include "lib/model/model.h"
#include "lib/summary/event_grouping.h"

namespace tfprof {

// The steps of a TF1 timeline host, each named after its timeline file
// ("timeline_01"), with EventGroups::step_spans set; nullopt when the host is
// not a TF1 timeline.
std::optional<EventGroups> GroupTf1SessionRuns(const Host& host);

}  // namespace tfprof
