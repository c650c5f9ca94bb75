// Several TensorFlow 1 timelines of one run: a TF1 training loop traced
// session.runs one by one and wrote each to its own file (timeline_01.json,
// timeline_02.json, ...). Read as one host, each file is one step (the
// session.run events of lib/model/tf1_timeline.h, one per file).
#pragma once

#include <string>
#include <vector>

#include "lib/model/model.h"
#include "lib/read/capture_discovery.h"

namespace tfprof {

// Names TF1 users gave timelines: "timeline" at the start, ".json" or
// ".json.gz" at the end (timeline.json, timeline_01.json,
// timeline_xla.ctf.json).
bool IsTf1TimelineName(const std::string& file);

// Gathers the numbered timelines of a folder's captures into one capture
// per series: files whose names differ only in a trailing number
// ("timeline_<N>", "timeline-<N>.ctf") are one host, named by the part
// before the number ("timeline"), path = the lowest number, `more_steps` =
// the others in numeric order. A lone numbered file and other names stay as
// they are.
std::vector<CaptureFile> GatherTf1TimelineSeries(std::vector<CaptureFile> files);

// Appends the next step of a series to `into`: its planes and lines are
// matched by name, its times rebased on `into`'s origin. Throws InputError
// naming `step` when either is not a TF1 timeline or when the two are more
// than 50 days apart (times would not fit).
void AppendTf1TimelineStep(Host& into, const Host& step);

}  // namespace tfprof
