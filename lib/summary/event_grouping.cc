#include "lib/summary/event_grouping.h"

#include <algorithm>
#include <functional>
#include <future>
#include <map>
#include <optional>
#include <stdexcept>

#include "lib/model/diagnostic_kinds.h"
#include "lib/model/stat_finder.h"
#include "lib/model/step_markers.h"
#include "lib/model/xplane_schema.h"
#include "lib/summary/event_forest.h"
#include "lib/summary/name_regex.h"
#include "lib/summary/steps_between.h"
#include "lib/summary/tf1_timeline_steps.h"
#include "lib/util/phase_times.h"

namespace tfprof {
namespace {

using grouping_internal::Forest;
using grouping_internal::IsLoopOp;
using grouping_internal::IsProfilerStepName;
using grouping_internal::Kind;
using grouping_internal::KindOfName;
using grouping_internal::MarkerTest;

// Captures grouped when they were taken carry group_id stats (and step_name
// on the events that name a step).
bool ReadCapturedGroups(const Host& host, EventGroups& out) {
  bool any = false;
  std::map<int64_t, std::string> names;
  out.group.Reset(host);
  for (size_t p = 0; p < host.planes.size(); ++p) {
    const Plane& plane = host.planes[p];
    StatFinder group_id(host, plane, "group_id"), step_name(host, plane, "step_name");
    if (!group_id.exists()) continue;
    for (size_t l = 0; l < plane.lines.size(); ++l) {
      const Line& line = plane.lines[l];
      const std::span<int32_t> ids = out.group.Line(p, l);
      // A line's events come in runs of one group: its name's entry is
      // looked up once per run.
      std::string* name = nullptr;
      int64_t name_of = 0;
      for (size_t e = 0; e < line.events.size(); ++e) {
        auto stats = line.EventStats(e);
        auto g = group_id.In(stats);
        if (!g) continue;
        any = true;
        ids[e] = static_cast<int32_t>(g->AsInt());
        // The first step_name of the group names it, wherever it is (the
        // Steps line may come after other events of the group): once it
        // is named, its other events are not searched for one.
        if (name == nullptr || name_of != g->AsInt()) {
          name = &names[g->AsInt()];
          name_of = g->AsInt();
        }
        if (name->empty())
          if (auto n = step_name.In(stats)) *name = std::string(host.Str(n->AsString()));
      }
    }
  }
  // The groups of events the reader left out (it keeps every event that
  // names a step): they are groups all the same.
  for (const Plane& plane : host.planes)
    for (int64_t id : plane.left_out_group_ids) {
      any = true;
      names.try_emplace(id);
    }
  for (auto& [id, name] : names) {
    StepGroup g;
    g.id = id;
    g.step_number = id;
    g.name = name.empty() ? std::to_string(id) : name;
    out.groups.push_back(std::move(g));
  }
  return any;
}

// PyTorch's profiler marks each step of `prof.step()` with a user annotation
// "ProfilerStep#<N>" on the host (Kineto copies it to the GPU as a
// gpu_user_annotation, on a derived line there).
// Whether TensorFlow's own step roots can exist: a `_r` (root level) stat,
// or events whose kind makes them roots (TraceContext, ProcessBatch,
// BatchingSessionRun) or loop iterations (ExecutorState::Process). Without
// any, a forest without --step-marker finds no step.
bool MayHaveTensorFlowRoots(const Host& host) {
  for (const Plane& plane : host.planes) {
    if (plane.FindStatKey(host.strings, "_r")) return true;
    for (const EventMetadata& m : plane.event_metadata)
      if (schema::IsStepRootEventName(host.Str(m.name))) return true;
  }
  return false;
}

bool HasProfilerSteps(const Host& host) {
  for (const Plane& plane : host.planes) {
    if (host.PlaneName(plane) != schema::kHostThreadsPlane) continue;
    for (const EventMetadata& m : plane.event_metadata)
      if (IsProfilerStepName(host.Str(m.name))) return true;
  }
  return false;
}

// The name of a TF loop op the capture runs, if any: the reference neither
// groups such captures nor marks their eager ops.
std::optional<std::string_view> FindLoopOp(const Host& host) {
  for (const Plane& plane : host.planes)
    for (const EventMetadata& m : plane.event_metadata)
      if (IsLoopOp(host.Str(m.name))) return host.Str(m.name);
  return std::nullopt;
}

bool GroupedWhenTaken(const Host& host) {
  for (const Plane& plane : host.planes)
    if (plane.FindStatKey(host.strings, "group_id")) return true;
  return false;
}

// The reference marks eager events while it groups: not in captures it does
// not group (TF loop ops), nor in captures grouped when they were taken.
bool ReferenceMarksEager(const Host& host) { return !FindLoopOp(host) && !GroupedWhenTaken(host); }

}  // namespace

void EventGroupIds::Reset(const Host& host, int32_t id) {
  Adopt(host, {}, {});  // Every line after the (no) lines given, in plane order.
  if (id != kNoGroup) std::fill(ids_.begin(), ids_.end(), id);
}

void EventGroupIds::Adopt(const Host& host, std::vector<int32_t> ids,
                          const std::vector<std::pair<uint32_t, uint32_t>>& lines) {
  constexpr size_t kUnplaced = SIZE_MAX;
  lines_.assign(host.planes.size(), {});
  for (size_t p = 0; p < host.planes.size(); ++p) lines_[p].assign(host.planes[p].lines.size(), Run{kUnplaced, 0});
  size_t placed = 0;
  for (const auto& [p, l] : lines) {
    lines_[p][l] = Run{placed, host.planes[p].lines[l].events.size()};
    placed += lines_[p][l].size;
  }
  if (placed != ids.size()) throw std::logic_error("EventGroupIds::Adopt: ids do not match the lines");
  size_t events = 0;
  for (const Plane& plane : host.planes) events += plane.EventCount();
  ids.reserve(events);  // Nothing to do when the caller reserved them.
  for (size_t p = 0; p < host.planes.size(); ++p)
    for (size_t l = 0; l < host.planes[p].lines.size(); ++l) {
      if (lines_[p][l].begin != kUnplaced) continue;
      lines_[p][l] = Run{ids.size(), host.planes[p].lines[l].events.size()};
      ids.resize(ids.size() + lines_[p][l].size, kNoGroup);
    }
  ids_ = std::move(ids);
}

std::vector<std::pair<uint32_t, uint32_t>> DeviceEventsInStartOrder(const Plane& plane) {
  std::vector<std::pair<uint32_t, uint32_t>> order;
  for (uint32_t l = 0; l < plane.lines.size(); ++l)
    if (!schema::IsDerivedLineId(plane.lines[l].id))
      for (uint32_t e = 0; e < plane.lines[l].events.size(); ++e) order.emplace_back(l, e);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) {
    const Event& x = plane.lines[a.first].events[a.second];
    const Event& y = plane.lines[b.first].events[b.second];
    return x.start_ps != y.start_ps ? x.start_ps < y.start_ps : x.duration_ps > y.duration_ps;
  });
  return order;
}

bool IsEagerExecuteName(std::string_view name) { return KindOfName(name) == Kind::kEagerExecute; }

bool HasEagerExecute(const Host& host) {
  for (const Plane& plane : host.planes)
    for (const EventMetadata& m : plane.event_metadata)
      if (IsEagerExecuteName(host.Str(m.name))) return true;
  return false;
}

EventBits MarkEagerEvents(const Host& host, bool even_if_grouped, size_t threads) {
  EventBits out;
  if (FindLoopOp(host) || (!even_if_grouped && GroupedWhenTaken(host))) return out;
  if (!HasEagerExecute(host)) return out;  // The usual case, found without building the forest.
  Diagnostics unused;                      // Build's diagnostics are GroupEvents' to report.
  Forest forest(host, unused, nullptr);
  forest.Build(threads, kMinParallelGroupingEvents);
  forest.MarkEager(out);
  return out;
}

// --whole-trace: every event in step 0, named by the plane's span.
EventGroups WholeTrace(const Host& host) {
  EventGroups out;
  out.whole_trace = true;
  out.group.Reset(host, 0);
  StepGroup g;
  g.name = "whole trace";
  out.groups.push_back(g);
  return out;
}

EventGroups GroupEvents(const Host& host, Diagnostics& diagnostics, const AnalysisOptions& options,
                        const GroupingRun& run) {
  const size_t threads = run.threads;
  if (options.whole_trace) {
    // The steps are ours, but op stats still need the reference's marks.
    EventGroups out = WholeTrace(host);
    if (run.eager) out.eager = MarkEagerEvents(host);
    return out;
  }
  if (!options.steps_between.empty()) {
    EventGroups out =
        GroupStepsBetween(host, NameRegex(options.steps_between, "--steps-between"), options.steps_between);
    // The steps are ours, but op stats still need the reference's marks.
    if (run.eager) out.eager = MarkEagerEvents(host);
    return out;
  }
  MarkerTest marker;
  if (!options.step_marker.empty()) {
    auto re = std::make_shared<NameRegex>(options.step_marker, "--step-marker");  // Throws for a bad pattern.
    marker = [re](std::string_view name) { return re->Matches(name); };
  }
  // A TensorFlow 1 timeline records one session.run: the step, whatever
  // its events are named.
  if (!marker)
    if (auto runs = GroupTf1SessionRuns(host)) return std::move(*runs);
  EventGroups out;
  if (auto loop = FindLoopOp(host); loop && !marker) {
    out.group.Reset(host);
    out.no_groups_reason = "the graph runs TensorFlow loop ops (" + std::string(*loop) +
                           "), for which the TensorFlow Profiler does not group events into steps";
    return out;
  }
  if (!marker && GroupedWhenTaken(host)) {
    out.from_capture = ReadCapturedGroups(host, out);
    if (out.from_capture) return out;
    out = EventGroups();
  }
  // PyTorch's ProfilerStep#N mark the steps when TensorFlow's roots find
  // none. A capture that cannot have TensorFlow roots (every PyTorch trace)
  // skips that forest; one that can but finds none drops it, with what it
  // met: its diagnostics count only when its groups are used (the same
  // kernels without launch would otherwise be counted twice).
  const bool profiler_steps = !marker && HasProfilerSteps(host);
  // Without a marker the forest's steps start only at TensorFlow's roots
  // (Forest::Roots): a capture that has none and no ProfilerStep#N either
  // (JAX, a PyTorch trace recorded without prof.step()) would build it to
  // find no step, unless it makes eager marks. What it counts (device
  // events without a launch, which "get the step of the events before
  // them") means nothing where there are no steps: not reported then,
  // whether or not marks built it, so every command says the same. JAX 114 MB:
  // `memory` 0.30 -> 0.23 s, peak 218 -> 173 MiB; `overview` 186 -> 138
  // MiB (docs/performance-history.md, session 41).
  const bool may_have_roots = MayHaveTensorFlowRoots(host);
  const bool may_group = marker || may_have_roots;
  // (A capture with ProfilerStep#N and no TensorFlow root takes its steps'
  // own forest below.)
  const bool build_forest =
      may_have_roots ||
      (!profiler_steps && (marker || (run.eager && ReferenceMarksEager(host) && HasEagerExecute(host))));
  Diagnostics forest_diagnostics;
  bool eager_handed = false;  // run.eager_ready has them.
  if (!build_forest && !profiler_steps) out.group.Reset(host);
  if (build_forest) {
    Forest forest(host, forest_diagnostics, marker);
    PhaseTimer build_phase("grouping: forest");
    forest.Build(threads, run.min_parallel_events);
    build_phase.Stop();
    // With --step-marker the forest is still the reference's (only the
    // roots differ), so its marks are too.
    const bool marks = run.eager && ReferenceMarksEager(host);
    if (run.eager && run.eager_ready && threads > 1) {
      // The marks on a second thread while the steps are grouped here (both
      // only read the forest's nesting and links), handed over when made.
      // The forest outlives the marking on every path, a throw included.
      auto marking = std::async(std::launch::async, [&] {
        PhaseTimer eager_phase("grouping: eager marks (beside)");
        EventBits bits;
        if (marks) forest.MarkEager(bits);
        eager_phase.Stop();
        run.eager_ready(std::move(bits));
      });
      eager_handed = true;
      try {
        PhaseTimer group_phase("grouping: steps");
        // The search takes the second thread only when the marks leave it
        // idle: beside them it would hold a second copy of the labels (4
        // bytes a node) at the run's peak for no time gained.
        forest.Group(out, marks ? 1 : threads, run.min_parallel_events);
      } catch (...) {
        marking.wait();
        throw;
      }
      marking.get();
    } else {
      PhaseTimer group_phase("grouping: steps");
      forest.Group(out, threads, run.min_parallel_events);
      group_phase.Stop();
      PhaseTimer eager_phase("grouping: eager marks");
      if (marks) forest.MarkEager(out.eager);
    }
  }
  out.from_marker = static_cast<bool>(marker);
  if (out.groups.empty() && profiler_steps) {
    // No TensorFlow step markers, but PyTorch's: use them, as if
    // --step-marker had named them.
    out = EventGroups();
    Forest steps(host, diagnostics, IsProfilerStepName);
    steps.Build(threads, run.min_parallel_events);
    steps.Group(out, threads, run.min_parallel_events);
    // The same forest as the first but for its roots: the marks handed
    // over are these.
    if (run.eager && !eager_handed && ReferenceMarksEager(host)) steps.MarkEager(out.eager);
    out.from_marker = true;
    out.note =
        "steps: PyTorch's ProfilerStep#N annotations (no TensorFlow step markers), as with --step-marker "
        "'^ProfilerStep#\\d+$'";
    diagnostics.Add(diag_kind::kStepsProfilerStepMarker, "", out.groups.size());
    return out;
  }
  if (may_group) diagnostics.Merge(forest_diagnostics);
  if (out.groups.empty() && marker)
    out.no_groups_reason = "no event matches --step-marker '" + options.step_marker + "'";
  else if (out.groups.empty() && host.framework == Framework::kPyTorch)
    out.no_groups_reason =
        "no step markers: no ProfilerStep#N annotation (torch.profiler.profile writes one for each "
        "prof.step() call; for a DataLoader loop without them: --steps-between "
        "'enumerate\\(DataLoader\\)')";
  else if (out.groups.empty())
    out.no_groups_reason =
        "no step markers: no event has a root stat (_r, as tf.profiler.experimental.Trace(..., _r=1), Keras and "
        "tf.function calls add) and there is no TraceContext";
  return out;
}

}  // namespace tfprof
