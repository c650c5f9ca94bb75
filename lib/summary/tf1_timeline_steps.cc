#include "lib/summary/tf1_timeline_steps.h"

#include <algorithm>
#include <string>

#include "lib/model/stat_finder.h"
#include "lib/model/tf1_timeline.h"

namespace tfprof {
namespace {

// "timeline_01.json" -> "timeline_01".
std::string StepName(std::string_view file) {
  for (std::string_view ext : {".json.gz", ".json"})
    if (file.size() > ext.size() && file.substr(file.size() - ext.size()) == ext)
      return std::string(file.substr(0, file.size() - ext.size()));
  return std::string(file);
}

}  // namespace

std::optional<EventGroups> GroupTf1SessionRuns(const Host& host) {
  const Line* runs = Tf1SessionRunLine(host);
  if (!runs || runs->events.empty()) return std::nullopt;
  const Plane* cpu = host.FindPlane(schema::kHostThreadsPlane);
  const StatFinder file(host, *cpu, kTf1TimelineFileStat);
  EventGroups out;
  // The session.run line is sorted by start; runs do not overlap when the
  // program ran them one after the other (the usual training loop), and an
  // event of overlapping runs goes to the last that started before it.
  for (size_t i = 0; i < runs->events.size(); ++i) {
    const Event& e = runs->events[i];
    StepGroup g;
    g.id = static_cast<int64_t>(i);
    g.step_number = static_cast<int64_t>(i) + 1;
    auto f = file.In(runs->EventStats(i));
    g.name = f ? StepName(host.Str(f->AsString())) : "session.run " + std::to_string(i + 1);
    out.groups.push_back(std::move(g));
    out.step_spans.emplace_back(e.start_ps, e.end_ps());
  }
  auto group_of = [&](int64_t start_ps) -> int32_t {
    auto it = std::upper_bound(runs->events.begin(), runs->events.end(), start_ps,
                               [](int64_t t, const Event& e) { return t < e.start_ps; });
    if (it == runs->events.begin()) return kNoGroup;
    --it;
    return start_ps <= it->end_ps() ? static_cast<int32_t>(it - runs->events.begin()) : kNoGroup;
  };
  out.group.Reset(host);
  for (size_t p = 0; p < host.planes.size(); ++p)
    for (size_t l = 0; l < host.planes[p].lines.size(); ++l) {
      const std::vector<Event, DefaultInitAllocator<Event>>& events = host.planes[p].lines[l].events;
      const std::span<int32_t> groups = out.group.Line(p, l);
      for (size_t e = 0; e < events.size(); ++e) groups[e] = group_of(events[e].start_ps);
    }
  out.note = out.groups.size() > 1 ? "steps: one per TensorFlow 1 timeline file (each records one session.run)"
                                   : "steps: the TensorFlow 1 timeline records one session.run, one step";
  return out;
}

}  // namespace tfprof
