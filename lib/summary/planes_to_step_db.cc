#include "lib/summary/planes_to_step_db.h"

#include <algorithm>
#include <climits>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <tuple>
#include <utility>

#include "lib/model/diagnostic_kinds.h"
#include "lib/model/stat_finder.h"
#include "lib/model/tf1_timeline.h"
#include "lib/model/xplane_schema.h"
#include "lib/summary/pytorch_kernel_rules.h"
#include "lib/summary/time_span.h"

namespace tfprof {
namespace {

struct Span {
  int64_t begin, end;
  // Cut at 100 days like every span (time_span.h): a corrupt XSpace clock
  // puts a whole-trace step's ends further apart than int64 ps can hold.
  int64_t duration() const {
    bool cut = false;
    return end >= begin ? SpanPs(begin, end, &cut) : 0;
  }
  bool Includes(const Span& o) const { return begin <= o.begin && o.end <= end; }
};

// Events [first, end) of one line whose group is their step's: the events
// of other groups (or none) between them are skipped when the run is read.
// A step keeps runs of its events, not a span per event: a run stands for
// many events (a line's events come in runs of one step), and the spans of
// one step at a time are made when it is summarised.
struct EventRun {
  uint32_t plane, line, first, end;
};

struct StepDetails {
  std::vector<Span> host_markers, device_markers;
  std::vector<EventRun> runs;
  // With a GPU: the host's runs of the step, beside the device's.
  std::vector<EventRun> host_runs;
};

using StepMap = std::map<int32_t, StepDetails>;

// A step's entry of a StepMap, looked up once per run of the step's events,
// not once per event.
class StepLookup {
 public:
  explicit StepLookup(StepMap& steps) : steps_(steps) {}
  StepDetails& operator()(int32_t g) {
    if (last_ == nullptr || g != last_group_) {
      last_ = &steps_[g];
      last_group_ = g;
    }
    return *last_;
  }

 private:
  StepMap& steps_;
  int32_t last_group_ = 0;
  StepDetails* last_ = nullptr;
};

// Gathers one line's grouped events into runs, each added to its step
// when the next begins (and the last by Close, at the line's end).
class LineRuns {
 public:
  LineRuns(StepLookup& step, size_t plane, size_t line)
      : step_(step), plane_(static_cast<uint32_t>(plane)), line_(static_cast<uint32_t>(line)) {}

  void Add(int32_t g, size_t e) {
    const auto i = static_cast<uint32_t>(e);
    if (open_ && g == group_) {
      end_ = i + 1;
      return;
    }
    Close();
    open_ = true;
    group_ = g;
    first_ = i;
    end_ = i + 1;
  }

  void Close() {
    if (open_) step_(group_).runs.push_back({plane_, line_, first_, end_});
    open_ = false;
  }

 private:
  StepLookup& step_;
  const uint32_t plane_, line_;
  bool open_ = false;
  int32_t group_ = 0;
  uint32_t first_ = 0, end_ = 0;
};

// Runs `beside` on a second thread while `here` runs on this one, when
// `two_threads`; else one after the other here. Either way both have ended
// when it returns or throws (the first error is rethrown).
template <class Here, class Beside>
void RunBoth(bool two_threads, Here&& here, Beside&& beside) {
  if (!two_threads) {
    beside();
    here();
    return;
  }
  auto other = std::async(std::launch::async, std::forward<Beside>(beside));
  try {
    here();
  } catch (...) {
    other.wait();
    throw;
  }
  other.get();
}

// Appends `from` to `to`, taking its buffer when `to` is empty; `from` is
// left empty or as it was (its caller discards it).
template <class T>
void AppendOrMove(std::vector<T>& to, std::vector<T>& from) {
  if (to.empty()) to.swap(from);
  else to.insert(to.end(), from.begin(), from.end());
}

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// A step marker the user put on the host: Keras / tf.profiler "train" and
// "test" TraceMes and TF1 TraceContext, not nested names.
bool IsExplicitHostMarker(std::string_view name) {
  return (StartsWith(name, "train") || StartsWith(name, "test") || StartsWith(name, "TraceContext")) &&
         name.find('/') == std::string_view::npos;
}

// Eager and function wrappers hold other ops; their own time is not compute.
bool IsRealCpuCompute(std::string_view name) {
  return !(StartsWith(name, "EagerExecute") || StartsWith(name, "EagerLocalExecute") ||
           StartsWith(name, "EagerKernelExecute") || StartsWith(name, "FunctionRun") || IsExplicitHostMarker(name));
}

bool IsNarrow(ComputePrecision p) { return p == ComputePrecision::k16Bit || p == ComputePrecision::k8Bit; }

// Which of a plane's events count in their step's breakdown, and as what.
// What an event name implies is worked out once per name (metadata), while
// the steps are collected (one thread per plane); afterwards the object is
// only read, by the two threads that summarise the steps.
class PlaneEventTypes {
 public:
  PlaneEventTypes(const Host& host, size_t p, bool host_plane, bool has_device, DevicePrecisionRule precision)
      : host_(host),
        plane_(host.planes[p]),
        p_(static_cast<uint32_t>(p)),
        host_plane_(host_plane),
        has_device_(has_device),
        precision_(precision),
        tf1_(!host_plane && IsTf1TimelinePlane(host, plane_)),
        corr_(host, plane_, "correlation_id"),
        shape_(host, plane_, "shape"),
        step_name_(host, plane_, "step_name"),
        facts_(plane_.event_metadata.size()) {
    // A TF1 timeline's GPU executor lines: their ops are the GPU's, and
    // their time on the host is the launch (as a TF2 op with a correlation
    // id), not host compute.
    if (host_plane_ && IsTf1TimelinePlane(host, plane_)) {
      launch_lines_.resize(plane_.lines.size());
      for (size_t l = 0; l < plane_.lines.size(); ++l)
        launch_lines_[l] = IsTf1GpuExecutorLine(host.LineName(plane_.lines[l]));
    }
  }

  struct NameFacts {
    bool known = false;
    bool explicit_marker = false;
    bool real_cpu_compute = false;
    // Host: the type with and without a correlation id. Device: the type
    // of an event without a shape stat.
    EventType with_correlation = EventType::kUnknown, without_correlation = EventType::kUnknown;
    // Device, DevicePrecisionRule::kTypeNames: the name names a type of 16
    // bits or fewer.
    bool name_is_narrow = false;
  };

  // Works out (once) what the event's name implies; returns it.
  const NameFacts& Learn(const Event& ev) { return Learn(ev.metadata); }
  const NameFacts& Learn(EventMetadataId m) {
    const NameFacts& f = facts_[m];
    return f.known ? f : LearnName(m);
  }
  // A name met for the first time: out of line, so that Learn, once per
  // event, stays small.
  __attribute__((noinline)) const NameFacts& LearnName(EventMetadataId m) {
    NameFacts& f = facts_[m];
    const std::string_view name = host_.Str(plane_.event_metadata[m].name);
    if (host_plane_) {
      f.explicit_marker = IsExplicitHostMarker(name);
      f.real_cpu_compute = IsRealCpuCompute(name);
      f.with_correlation = ClassifyHostEvent(name, has_device_, true);
      f.without_correlation = ClassifyHostEvent(name, has_device_, false);
    } else {
      f.name_is_narrow = precision_ == DevicePrecisionRule::kTypeNames && IsNarrow(PrecisionNamedIn(name));
      f.without_correlation = ClassifyDeviceEvent(name, "", precision_, f.name_is_narrow);
    }
    f.known = true;
    return f;
  }
  // Every name of the plane learnt, for Learnt: read only, so that two
  // threads may share the object (AddHostPlane).
  void LearnAll() {
    for (EventMetadataId m = 0; m < facts_.size(); ++m) Learn(m);
  }
  const NameFacts& Learnt(const Event& ev) const { return facts_[ev.metadata]; }

  // A host event that marks its step: a user's marker, or the root event
  // its group was named after.
  bool IsHostMarker(const EventGroups& groups, const NameFacts& f, const Line& line, size_t l, size_t e,
                    int32_t g) const {
    if (f.explicit_marker) return true;
    if (groups.from_capture) return step_name_.In(line.EventStats(e)).has_value();
    if (static_cast<size_t>(g) >= groups.groups.size()) return false;
    const auto& root = groups.groups[static_cast<size_t>(g)].named_root;
    return root && *root == EventRef{p_, static_cast<uint32_t>(l), static_cast<uint32_t>(e)};
  }

  // The type of a learnt event of a run, or none when it is not part of
  // the step's breakdown (a host wrapper; device activity that no launch
  // recorded).
  std::optional<EventType> TypeOf(const Line& line, size_t e) const {
    const NameFacts& f = facts_[line.events[e].metadata];
    const auto stats = line.EventStats(e);
    if (host_plane_) {
      // Runs hold no step marker (AddHostPlane closes a run at each).
      if (!f.real_cpu_compute) return std::nullopt;
      const size_t l = static_cast<size_t>(&line - plane_.lines.data());
      const bool launches = l < launch_lines_.size() && launch_lines_[l];
      return launches || corr_.In(stats) ? f.with_correlation : f.without_correlation;
    }
    // Device activity is what CUPTI recorded (it has a correlation id); a
    // TF1 timeline's streams hold nothing else and have no ids.
    if (!tf1_ && !corr_.In(stats)) return std::nullopt;
    const auto sh = shape_.In(stats);
    const std::string_view shape = sh ? host_.Str(sh->AsString()) : "";
    if (shape.empty()) return f.without_correlation;
    return ClassifyDeviceEvent(host_.Str(plane_.event_metadata[line.events[e].metadata].name), shape, precision_,
                               f.name_is_narrow);
  }

 private:
  const Host& host_;
  const Plane& plane_;
  const uint32_t p_;
  const bool host_plane_, has_device_;
  const DevicePrecisionRule precision_;
  const bool tf1_;
  const StatFinder corr_, shape_, step_name_;
  std::vector<NameFacts> facts_;
  std::vector<bool> launch_lines_;  // Per line of a TF1 host plane: a GPU executor's.
};

// The plane's PlaneEventTypes, by plane index (none for planes that hold no
// step events).
using PlaneTypesByIndex = std::vector<std::unique_ptr<PlaneEventTypes>>;

// The host plane's lines [from, to); `learnt`: `types` has learnt every
// name (LearnAll) and is only read.
void AddHostLines(const Host& host, size_t p, size_t from, size_t to, const EventGroups& groups, PlaneEventTypes& types,
                  bool learnt, StepMap& steps) {
  const Plane& plane = host.planes[p];
  StepLookup step(steps);
  for (size_t l = from; l < to; ++l) {
    const Line& line = plane.lines[l];
    if (schema::IsDerivedLineId(line.id)) continue;
    LineRuns runs(step, p, l);
    const std::span<const int32_t> ids = groups.group.Line(p, l);
    for (size_t e = 0; e < line.events.size(); ++e) {
      const int32_t g = ids[e];
      if (g == kNoGroup) continue;
      const Event& ev = line.events[e];
      const PlaneEventTypes::NameFacts& facts = learnt ? types.Learnt(ev) : types.Learn(ev);
      if (types.IsHostMarker(groups, facts, line, l, e, g)) {
        // A run never spans a marker, so its events need no such test
        // when they are typed (PlaneEventTypes::TypeOf).
        runs.Close();
        step(g).host_markers.push_back({ev.start_ps, ev.end_ps()});
      } else if (facts.real_cpu_compute) {
        runs.Add(g, e);
      }
    }
    runs.Close();
  }
}

// The host plane's steps: on two threads when `two_threads` (a host without
// GPU, whose plane is the step analysis's only pass over events: 0.35 s
// on one thread for a 1 GB current-TF capture), its lines split where
// about half the events come before, each half into its own map, joined
// in line order (what one pass makes).
void AddHostPlane(const Host& host, size_t p, const EventGroups& groups, PlaneEventTypes& types, StepMap& steps,
                  bool two_threads) {
  const Plane& plane = host.planes[p];
  size_t total = 0;
  for (const Line& line : plane.lines) total += line.events.size();
  size_t split = 0, before = 0;
  while (split < plane.lines.size() && before + plane.lines[split].events.size() / 2 < total / 2)
    before += plane.lines[split++].events.size();
  if (!two_threads || split == 0 || split == plane.lines.size()) {
    AddHostLines(host, p, 0, plane.lines.size(), groups, types, false, steps);
    return;
  }
  types.LearnAll();
  StepMap second;
  RunBoth(
      true, [&] { AddHostLines(host, p, 0, split, groups, types, true, steps); },
      [&] { AddHostLines(host, p, split, plane.lines.size(), groups, types, true, second); });
  for (auto& [g, d] : second) {
    StepDetails& s = steps[g];
    AppendOrMove(s.host_markers, d.host_markers);
    AppendOrMove(s.runs, d.runs);
  }
}

// The reference derives a device Steps line where the capture has none: one
// marker per run of consecutive (in time: start, longest first, then group)
// device events of one group. Lines are already in time order, so they are
// merged rather than copied and sorted; a line whose grouped events are out
// of that order (the tie-break on group) is sorted with the rest.
void DeriveDeviceMarkers(const Host& host, size_t p, const std::vector<size_t>& lines, const EventGroups& groups,
                         StepMap& local) {
  const Plane& plane = host.planes[p];
  using Key = std::tuple<int64_t, int64_t, int32_t>;  // (start, -duration, group)
  auto key = [&](size_t l, size_t e) {
    const Event& ev = plane.lines[l].events[e];
    return Key{ev.start_ps, -ev.duration_ps, groups.Of(p, l, e)};
  };
  auto next_grouped = [&](size_t l, size_t e) {
    while (e < plane.lines[l].events.size() && groups.Of(p, l, e) == kNoGroup) ++e;
    return e;
  };
  bool merge = true;
  for (size_t l : lines) {
    const size_t n = plane.lines[l].events.size();
    for (size_t e = next_grouped(l, 0), f; merge && e < n; e = f) {
      f = next_grouped(l, e + 1);
      if (f < n && key(l, f) < key(l, e)) merge = false;
    }
  }
  bool open = false;
  int32_t group = 0;
  int64_t begin = 0, end = 0;
  auto take = [&](const Key& k) {
    const auto [start, minus_duration, g] = k;
    if (open && g == group) {
      end = std::max(end, start - minus_duration);
      return;
    }
    if (open) local[group].device_markers.push_back({begin, end});
    open = true;
    group = g;
    begin = start;
    end = start - minus_duration;
  };
  if (merge) {
    // (key, line, event) of each line's next grouped event, least first.
    using Cursor = std::tuple<Key, size_t, size_t>;
    std::priority_queue<Cursor, std::vector<Cursor>, std::greater<>> next;
    for (size_t l : lines)
      if (size_t e = next_grouped(l, 0); e < plane.lines[l].events.size()) next.emplace(key(l, e), l, e);
    while (!next.empty()) {
      const auto [k, l, e] = next.top();
      next.pop();
      take(k);
      if (size_t f = next_grouped(l, e + 1); f < plane.lines[l].events.size()) next.emplace(key(l, f), l, f);
    }
  } else {
    std::vector<Key> ordered;
    for (size_t l : lines)
      for (size_t e = next_grouped(l, 0); e < plane.lines[l].events.size(); e = next_grouped(l, e + 1))
        ordered.push_back(key(l, e));
    std::sort(ordered.begin(), ordered.end());
    for (const Key& k : ordered) take(k);
  }
  if (open) local[group].device_markers.push_back({begin, end});
}

// One GPU plane: step markers from the Steps line (captures grouped when
// taken) or from runs of events of one group (grouped here), and runs of
// events from the streams; only steps with a marker are kept.
void AddDevicePlane(const Host& host, size_t p, const EventGroups& groups, PlaneEventTypes& types, StepMap& steps) {
  const Plane& plane = host.planes[p];
  StepMap local;
  StepLookup step(local);
  std::vector<size_t> stream_lines;
  for (size_t l = 0; l < plane.lines.size(); ++l) {
    const Line& line = plane.lines[l];
    const bool derived = schema::IsDerivedLineId(line.id);
    const bool steps_line = schema::IsDerivedStepsLineId(line.id);
    if (derived && !(steps_line && groups.from_capture)) continue;
    if (!steps_line) stream_lines.push_back(l);
    LineRuns runs(step, p, l);
    const std::span<const int32_t> ids = groups.group.Line(p, l);
    for (size_t e = 0; e < line.events.size(); ++e) {
      const int32_t g = ids[e];
      if (g == kNoGroup) continue;
      const Event& ev = line.events[e];
      if (steps_line) {
        step(g).device_markers.push_back({ev.start_ps, ev.end_ps()});
        continue;
      }
      types.Learn(ev);
      runs.Add(g, e);
    }
    runs.Close();
  }
  if (!groups.from_capture) DeriveDeviceMarkers(host, p, stream_lines, groups, local);
  for (auto& [g, d] : local) {
    if (d.device_markers.empty()) continue;
    StepDetails& s = steps[g];
    AppendOrMove(s.device_markers, d.device_markers);
    AppendOrMove(s.runs, d.runs);
  }
}

// The typed spans of a step's runs (group g), appended to `out`, less
// those that cannot change the breakdown: a span inside another of its
// line's spans of the same or a higher type (EventType's order, the one
// ToNonOverlapped gives the time to) adds time of that type nowhere, so
// the non-overlapped pieces are the same without it. On a host line a
// step's ops nest in the op that runs them (a T4 capture: 61.5 k of the
// 70.7 k host spans), and ToNonOverlapped's sort of the boundaries is
// most of the step analysis. The one span checked against is the run's
// kept span that ends last so far (events come by start): one comparison
// whatever the line holds. It misses a span inside a kept span nested in
// the cover with a lower type than its own (it is then sorted, to the
// same result); on the T4 capture it finds all that a stack of every
// open span finds.
void AppendSpans(const Host& host, const EventGroups& groups, const PlaneTypesByIndex& types,
                 const std::vector<EventRun>& runs, int32_t g, std::vector<TypedSpan>& out) {
  for (const EventRun& r : runs) {
    const Line& line = host.planes[r.plane].lines[r.line];
    const PlaneEventTypes& t = *types[r.plane];
    const std::span<const int32_t> ids = groups.group.Line(r.plane, r.line);
    bool covering = false;
    TypedSpan cover{};
    for (uint32_t e = r.first; e < r.end; ++e) {
      if (ids[e] != g) continue;
      const auto type = t.TypeOf(line, e);
      if (!type) continue;
      const TypedSpan span{*type, line.events[e].start_ps, line.events[e].end_ps()};
      if (covering && cover.begin_ps <= span.begin_ps && span.end_ps <= cover.end_ps && span.type <= cover.type)
        continue;
      if (!covering || span.end_ps > cover.end_ps) {
        cover = span;
        covering = true;
      }
      out.push_back(span);
    }
  }
}

Span LongestOf(const std::vector<Span>& v) {
  Span best{0, 0};
  for (const Span& s : v)
    if (s.duration() > best.duration()) best = s;
  return best;
}

// One step's row, or none when it is incomplete (no compute, or no time),
// and the 16- and 32-bit compute it holds (counted either way).
struct StepBreakdown {
  std::optional<StepRecord> record;
  uint64_t compute_16bit_ps = 0, compute_32bit_ps = 0;
};

// A step's typed spans, made from its runs into buffers that one thread
// reuses from step to step.
struct StepSpans {
  const Host& host;
  const EventGroups& groups;
  const PlaneTypesByIndex& types;
  std::vector<TypedSpan> spans, host_spans;

  void Make(int32_t g, const StepDetails& d) {
    spans.clear();
    host_spans.clear();
    AppendSpans(host, groups, types, d.runs, g, spans);
    AppendSpans(host, groups, types, d.host_runs, g, host_spans);
  }
};

// Frees the step's runs once read.
StepBreakdown SummarizeStep(int32_t g, StepDetails& d, StepSpans& made,
                            const std::map<int64_t, const StepGroup*>& group_info, bool has_device) {
  const EventGroups& groups = made.groups;
  StepBreakdown out;
  // The step time: the longest host marker when it contains the longest
  // device marker (or there is none), else the device marker. Steps named
  // by a marker (--step-marker, --steps-between, PyTorch's ProfilerStep#N) are where the
  // host runs ahead of the device (PyTorch launches asynchronously): the
  // device marker alone would leave out the host part (e.g. loading the
  // batch), so such a step spans both.
  const Span h = LongestOf(d.host_markers), dev = LongestOf(d.device_markers);
  Span step = d.device_markers.empty() ? h : (h.Includes(dev) ? h : dev);
  if (groups.from_marker && !d.device_markers.empty() && h.duration() > 0 && !h.Includes(dev))
    step = {std::min(h.begin, dev.begin), std::max(h.end, dev.end)};
  made.Make(g, d);
  std::vector<EventRun>().swap(d.runs);
  std::vector<EventRun>().swap(d.host_runs);
  std::vector<TypedSpan> pieces = ToNonOverlapped(made.spans, made.host_spans);
  StepRecord r;
  r.group_id = g;
  auto gi = group_info.find(g);
  r.name = gi != group_info.end() ? gi->second->name : std::to_string(g);
  if (gi != group_info.end() && gi->second->numbered_by_name) r.marker_number = gi->second->step_number;
  r.begin_ps = step.begin;
  r.duration_ps = static_cast<uint64_t>(std::max<int64_t>(0, step.duration()));
  std::array<bool, kEventTypes> present{};
  uint64_t sum = 0;
  for (const TypedSpan& t : pieces) {
    const size_t k = static_cast<size_t>(t.type);
    present[k] = true;
    const int64_t overlap = std::min(t.end_ps, step.end) - std::max(t.begin_ps, step.begin);
    if (overlap > 0) {
      r.type_ps[k] += static_cast<uint64_t>(overlap);
      sum += static_cast<uint64_t>(overlap);
    }
    if (t.type == EventType::kDeviceCompute16) out.compute_16bit_ps += static_cast<uint64_t>(t.end_ps - t.begin_ps);
    if (t.type == EventType::kDeviceCompute32) out.compute_32bit_ps += static_cast<uint64_t>(t.end_ps - t.begin_ps);
  }
  if (sum < r.duration_ps) r.type_ps[0] += r.duration_ps - sum;
  const bool well_formed = has_device ? (present[static_cast<size_t>(EventType::kDeviceCompute16)] ||
                                         present[static_cast<size_t>(EventType::kDeviceCompute32)])
                                      : present[static_cast<size_t>(EventType::kHostCompute)];
  if (!well_formed || r.duration_ps == 0) return out;
  r.max_duration_ps = r.duration_ps;
  out.record = std::move(r);
  return out;
}

}  // namespace

StepDb BuildStepDb(const Host& host, const EventGroups& groups, const AnalysisOptions& options,
                   Diagnostics& diagnostics) {
  StepDb db;
  db.origin_ns = host.time_origin_ns;
  db.hosts.push_back(host.name);
  db.note = groups.note;
  db.whole_steps = !groups.step_spans.empty();
  std::vector<size_t> gpu_planes;
  size_t host_plane = host.planes.size();
  for (size_t p = 0; p < host.planes.size(); ++p) {
    std::string_view name = host.PlaneName(host.planes[p]);
    if (schema::IsGpuPlane(name)) gpu_planes.push_back(p);
    else if (name == schema::kHostThreadsPlane) host_plane = p;
  }
  db.has_device = !gpu_planes.empty();
  if (groups.empty()) {
    db.no_steps_reason = groups.no_groups_reason;
    return db;
  }
  StepMap host_steps, device_steps;
  // The host plane and the device planes fill their own maps from the
  // const host: the devices' on a second thread when there are both.
  const bool has_host_plane = host_plane < host.planes.size();
  PlaneTypesByIndex types(host.planes.size());
  // Precision as the reference tells it under --compat, else from every
  // type a name or shape names (docs/parity.md).
  const DevicePrecisionRule precision =
      options.compat == Compat::kDefault ? DevicePrecisionRule::kTypeNames : DevicePrecisionRule::kReference;
  if (has_host_plane)
    types[host_plane] = std::make_unique<PlaneEventTypes>(host, host_plane, true, db.has_device, precision);
  for (size_t p : gpu_planes) types[p] = std::make_unique<PlaneEventTypes>(host, p, false, db.has_device, precision);
  RunBoth(
      has_host_plane && !gpu_planes.empty(),
      [&] {
        // Without GPU planes the host's lines take both threads.
        if (has_host_plane)
          AddHostPlane(host, host_plane, groups, *types[host_plane], host_steps,
                       gpu_planes.empty() && host.planes[host_plane].EventCount() >= (size_t{1} << 16));
      },
      [&] {
        for (size_t p : gpu_planes) AddDevicePlane(host, p, groups, *types[p], device_steps);
      });
  if (groups.whole_trace) {
    // One step from the first to the last event of the host and devices.
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (size_t p = 0; p < host.planes.size(); ++p) {
      if (p != host_plane && std::find(gpu_planes.begin(), gpu_planes.end(), p) == gpu_planes.end()) continue;
      for (const Line& l : host.planes[p].lines) {
        if (schema::IsDerivedLineId(l.id)) continue;
        for (const Event& e : l.events) {
          first = std::min(first, e.start_ps);
          last = std::max(last, e.end_ps());
        }
      }
    }
    if (first < last) {
      host_steps[0].host_markers.push_back({first, last});
      if (db.has_device) device_steps[0].device_markers.push_back({first, last});
    }
  } else {
    // Steps whose span the capture gives (TF1 session.runs).
    for (size_t g = 0; g < groups.step_spans.size(); ++g) {
      const Span span{groups.step_spans[g].first, groups.step_spans[g].second};
      host_steps[static_cast<int32_t>(g)].host_markers.push_back(span);
      if (db.has_device) device_steps[static_cast<int32_t>(g)].device_markers.push_back(span);
    }
    // --steps-between windows: the host span only; the device's runs of the
    // step's events stay its device span, and the step spans both
    // (from_marker), as the device finishes a step after the host moved on.
    for (size_t g = 0; g < groups.marker_windows.size(); ++g)
      host_steps[static_cast<int32_t>(g)].host_markers.push_back(
          {groups.marker_windows[g].first, groups.marker_windows[g].second});
  }

  StepMap steps;
  if (!db.has_device) {
    steps = std::move(host_steps);
  } else {
    steps = std::move(device_steps);
    if (!options.xprof()) {
      // With a GPU, host events count for the steps the device also ran.
      for (auto& [g, h] : host_steps) {
        auto it = steps.find(g);
        if (it == steps.end()) continue;
        AppendOrMove(it->second.host_markers, h.host_markers);
        AppendOrMove(it->second.host_runs, h.runs);
      }
    }
  }

  std::map<int64_t, const StepGroup*> group_info;
  for (const StepGroup& g : groups.groups) group_info[g.id] = &g;
  // Steps are independent: each one's breakdown is worked out on one of
  // two threads (by halves of the step list), then kept in step order.
  std::vector<std::pair<int32_t, StepDetails*>> order;
  order.reserve(steps.size());
  size_t spans = 0;
  for (auto& [g, d] : steps) {
    order.emplace_back(g, &d);
    for (const std::vector<EventRun>* runs : {&d.runs, &d.host_runs})
      for (const EventRun& r : *runs) spans += r.end - r.first;
  }
  std::vector<StepBreakdown> done(order.size());
  auto summarize = [&](size_t from, size_t to) {
    StepSpans made{host, groups, types, {}, {}};
    for (size_t i = from; i < to; ++i)
      done[i] = SummarizeStep(order[i].first, *order[i].second, made, group_info, db.has_device);
  };
  // A second thread pays off from tens of thousands of events on.
  const size_t half = order.size() / 2;
  RunBoth(
      spans >= (size_t{1} << 16), [&] { summarize(half, order.size()); }, [&] { summarize(0, half); });
  for (StepBreakdown& b : done) {
    db.compute_16bit_ps += b.compute_16bit_ps;
    db.compute_32bit_ps += b.compute_32bit_ps;
    if (!b.record) {
      ++db.dropped_steps;
      continue;
    }
    b.record->host = host.name;
    db.steps.push_back(std::move(*b.record));
  }
  diagnostics.Add(diag_kind::kStepsDroppedIncomplete, "", db.dropped_steps);
  if (db.steps.empty() && groups.whole_trace)
    db.no_steps_reason = std::string("--whole-trace makes one step of the capture, but it has no ") +
                         (db.has_device ? "device compute (GPU kernel)" : "host compute") + " event to measure";
  else if (db.steps.empty())
    db.no_steps_reason =
        db.dropped_steps ? "step markers were found, but no step had both a step time and compute in it (incomplete "
                           "steps: try profiling longer)"
                         : "no step had a step marker on the host or a grouped event on the device";
  return db;
}

}  // namespace tfprof
