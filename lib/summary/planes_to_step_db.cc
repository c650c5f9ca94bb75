#include "lib/summary/planes_to_step_db.h"

#include <algorithm>
#include <climits>
#include <future>
#include <map>
#include <optional>
#include <utility>

#include "lib/model/diagnostic_kinds.h"
#include "lib/model/stat_finder.h"
#include "lib/model/tf1_timeline.h"
#include "lib/model/xplane_schema.h"
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

struct StepDetails {
  std::vector<Span> host_markers, device_markers;
  std::vector<TypedSpan> events;
  // With a GPU: the host's events of the step, beside the device's.
  std::vector<TypedSpan> host_events;
};

using StepMap = std::map<int32_t, StepDetails>;

// A step's entry of a StepMap, looked up once per run of the step's events
// (a line's events come in such runs), not once per event.
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

// What the step analysis makes of a host event's name, worked out once per
// event name of the plane (metadata), not once per event: a capture repeats
// a few hundred names millions of times.
class HostNameFacts {
 public:
  HostNameFacts(const Host& host, const Plane& plane, bool has_device)
      : host_(host), plane_(plane), has_device_(has_device), facts_(plane.event_metadata.size()) {}

  struct Facts {
    bool known = false;
    bool explicit_marker = false;
    bool real_cpu_compute = false;
    EventType with_correlation = EventType::kUnknown, without_correlation = EventType::kUnknown;
  };
  const Facts& Of(EventMetadataId m) {
    Facts& f = facts_[m];
    if (!f.known) {
      const std::string_view name = host_.Str(plane_.event_metadata[m].name);
      f.explicit_marker = IsExplicitHostMarker(name);
      f.real_cpu_compute = IsRealCpuCompute(name);
      f.with_correlation = ClassifyHostEvent(name, has_device_, true);
      f.without_correlation = ClassifyHostEvent(name, has_device_, false);
      f.known = true;
    }
    return f;
  }

 private:
  const Host& host_;
  const Plane& plane_;
  const bool has_device_;
  std::vector<Facts> facts_;
};

void AddHostPlane(const Host& host, size_t p, const EventGroups& groups, bool has_device, StepMap& steps) {
  const Plane& plane = host.planes[p];
  const StatFinder corr(host, plane, "correlation_id"), step_name(host, plane, "step_name");
  HostNameFacts names(host, plane, has_device);
  StepLookup step(steps);
  for (size_t l = 0; l < plane.lines.size(); ++l) {
    const Line& line = plane.lines[l];
    if (schema::IsDerivedLineId(line.id)) continue;
    for (size_t e = 0; e < line.events.size(); ++e) {
      const int32_t g = groups.Of(p, l, e);
      if (g == kNoGroup) continue;
      const Event& ev = line.events[e];
      const HostNameFacts::Facts& facts = names.Of(ev.metadata);
      auto stats = line.EventStats(e);
      const Span span{ev.start_ps, ev.end_ps()};
      bool named_root = false;
      if (groups.from_capture) {
        named_root = step_name.In(stats).has_value();
      } else if (static_cast<size_t>(g) < groups.groups.size()) {
        const auto& root = groups.groups[g].named_root;
        named_root =
            root && *root == EventRef{static_cast<uint32_t>(p), static_cast<uint32_t>(l), static_cast<uint32_t>(e)};
      }
      if (facts.explicit_marker || named_root) {
        step(g).host_markers.push_back(span);
      } else if (facts.real_cpu_compute) {
        step(g).events.push_back(
            {corr.In(stats) ? facts.with_correlation : facts.without_correlation, span.begin, span.end});
      }
    }
  }
}

// One GPU plane: step markers from the Steps line (captures grouped when
// taken) or from runs of events of one group (grouped here), and typed
// events from the streams; only steps with a marker are kept.
void AddDevicePlane(const Host& host, size_t p, const EventGroups& groups, StepMap& steps) {
  const Plane& plane = host.planes[p];
  const StatFinder corr(host, plane, "correlation_id"), shape(host, plane, "shape");
  // ClassifyDeviceEvent of a name without a shape, once per event name;
  // events with a shape (memcpys) are classified one by one.
  constexpr auto kNotYet = static_cast<EventType>(0xff);
  std::vector<EventType> unshaped_type(plane.event_metadata.size(), kNotYet);
  StepMap local;
  StepLookup step(local);
  const bool tf1 = IsTf1TimelinePlane(host, plane);
  constexpr int64_t kStepLineId = static_cast<int32_t>(0xdeadbeefu);
  std::vector<std::tuple<int64_t, int64_t, int32_t>> ordered;  // (start, -duration, group) for derived markers
  for (size_t l = 0; l < plane.lines.size(); ++l) {
    const Line& line = plane.lines[l];
    const bool derived = schema::IsDerivedLineId(line.id);
    const bool steps_line = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(line.id))) == kStepLineId;
    if (derived && !(steps_line && groups.from_capture)) continue;
    for (size_t e = 0; e < line.events.size(); ++e) {
      const int32_t g = groups.Of(p, l, e);
      if (g == kNoGroup) continue;
      const Event& ev = line.events[e];
      if (steps_line) {
        step(g).device_markers.push_back({ev.start_ps, ev.end_ps()});
        continue;
      }
      if (!groups.from_capture) ordered.emplace_back(ev.start_ps, -ev.duration_ps, g);
      auto stats = line.EventStats(e);
      // Device activity is what CUPTI recorded (it has a correlation id);
      // a TF1 timeline's streams hold nothing else and have no ids.
      if (!corr.In(stats) && !tf1) continue;
      auto sh = shape.In(stats);
      std::string_view shape_text = sh ? host.Str(sh->AsString()) : "";
      EventType type;
      if (shape_text.empty()) {
        EventType& known = unshaped_type[ev.metadata];
        if (known == kNotYet) known = ClassifyDeviceEvent(host.Str(plane.event_metadata[ev.metadata].name), "");
        type = known;
      } else {
        type = ClassifyDeviceEvent(host.Str(plane.event_metadata[ev.metadata].name), shape_text);
      }
      step(g).events.push_back({type, ev.start_ps, ev.end_ps()});
    }
  }
  if (!groups.from_capture) {
    // The reference derives a Steps line: one marker per run of
    // consecutive (in time) device events of the same group.
    std::sort(ordered.begin(), ordered.end());
    for (size_t i = 0; i < ordered.size();) {
      const int32_t g = std::get<2>(ordered[i]);
      int64_t begin = std::get<0>(ordered[i]), end = begin - std::get<1>(ordered[i]);
      size_t j = i + 1;
      for (; j < ordered.size() && std::get<2>(ordered[j]) == g; ++j)
        end = std::max(end, std::get<0>(ordered[j]) - std::get<1>(ordered[j]));
      local[g].device_markers.push_back({begin, end});
      i = j;
    }
  }
  for (auto& [g, d] : local) {
    if (d.device_markers.empty()) continue;
    StepDetails& s = steps[g];
    AppendOrMove(s.device_markers, d.device_markers);
    AppendOrMove(s.events, d.events);
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

// Frees the step's spans once read.
StepBreakdown SummarizeStep(int32_t g, StepDetails& d, const EventGroups& groups,
                            const std::map<int64_t, const StepGroup*>& group_info, bool has_device) {
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
  std::vector<TypedSpan> pieces = ToNonOverlapped(d.events, d.host_events);
  std::vector<TypedSpan>().swap(d.events);
  std::vector<TypedSpan>().swap(d.host_events);
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
  RunBoth(
      has_host_plane && !gpu_planes.empty(),
      [&] {
        if (has_host_plane) AddHostPlane(host, host_plane, groups, db.has_device, host_steps);
      },
      [&] {
        for (size_t p : gpu_planes) AddDevicePlane(host, p, groups, device_steps);
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
        AppendOrMove(it->second.host_events, h.events);
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
    spans += d.events.size() + d.host_events.size();
  }
  std::vector<StepBreakdown> done(order.size());
  auto summarize = [&](size_t from, size_t to) {
    for (size_t i = from; i < to; ++i)
      done[i] = SummarizeStep(order[i].first, *order[i].second, groups, group_info, db.has_device);
  };
  // A second thread pays off from tens of thousands of spans on.
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

namespace tfprof {
namespace {

// A step's span on a clock shared by the hosts (their own time origins).
struct AbsSpan {
  __int128 begin, end;
};

__int128 Overlap(const AbsSpan& a, const AbsSpan& b) {
  __int128 lo = std::max(a.begin, b.begin), hi = std::min(a.end, b.end);
  return hi > lo ? hi - lo : 0;
}

std::vector<AbsSpan> Spans(const StepDb& db) {
  std::vector<AbsSpan> out;
  for (const StepRecord& s : db.steps) {
    __int128 b = static_cast<__int128>(db.origin_ns) * 1000 + s.begin_ps;
    out.push_back({b, b + static_cast<__int128>(s.duration_ps)});
  }
  return out;
}

}  // namespace

StepDb CombineHostSteps(std::vector<StepDb> hosts, const AnalysisOptions& options) {
  if (hosts.empty()) return {};
  for (StepDb& h : hosts) {
    for (StepRecord& s : h.steps) s.max_duration_ps = s.duration_ps;
    // Like the reference, drop the first and the last step when there are
    // more than five: the profile window usually cuts them.
    if (h.steps.size() > 5 && !h.whole_steps) {
      h.steps.pop_back();
      h.steps.erase(h.steps.begin());
      h.dropped_steps += 2;
    }
  }
  if (hosts.size() == 1) return std::move(hosts[0]);
  bool any_device = false;
  for (const StepDb& h : hosts) any_device = any_device || h.has_device;
  StepDb out;
  out.has_device = any_device;
  std::vector<StepDb> kept;
  for (StepDb& h : hosts) {
    out.compute_16bit_ps += h.compute_16bit_ps;
    out.compute_32bit_ps += h.compute_32bit_ps;
    out.dropped_steps += h.dropped_steps;
    out.hosts.insert(out.hosts.end(), h.hosts.begin(), h.hosts.end());
    if (out.note.empty()) out.note = h.note;
    if (any_device && !h.has_device) continue;  // A coordinator.
    kept.push_back(std::move(h));
  }
  // The chief: the host whose steps span the least time.
  size_t chief = 0;
  __int128 chief_span = -1;
  std::vector<std::vector<AbsSpan>> spans;
  for (size_t i = 0; i < kept.size(); ++i) {
    spans.push_back(Spans(kept[i]));
    __int128 span = spans[i].empty() ? 0 : spans[i].back().end - spans[i].front().begin;
    if (chief_span < 0 || span < chief_span) {
      chief = i;
      chief_span = span;
    }
  }
  const int64_t n_chief = static_cast<int64_t>(spans[chief].size());
  // Each host's alignment: its first step and the chief step it matches.
  std::vector<int64_t> begin_host(kept.size(), 0), begin_chief(kept.size(), 0);
  int64_t first = 0, last = n_chief;
  std::vector<std::string> unmatched;
  for (size_t h = 0; h < kept.size(); ++h) {
    int64_t count = n_chief;
    if (h != chief) {
      const int64_t n = static_cast<int64_t>(spans[h].size());
      // Overlap of the steps paired at each offset k = chief index - host
      // index, walking both sequences in time order.
      std::vector<__int128> similarity(static_cast<size_t>(std::max<int64_t>(1, n + n_chief - 1)), 0);
      for (int64_t a = 0, c = 0; a < n && c < n_chief;) {
        const AbsSpan& x = spans[h][a];
        const AbsSpan& y = spans[chief][c];
        similarity[static_cast<size_t>(c - a + n - 1)] += Overlap(x, y);
        if (x.end < y.end) ++a;
        else if (y.end < x.end) ++c;
        else ++a, ++c;
      }
      int64_t best = 0;
      __int128 best_score = -1;
      for (int64_t k = 0; k < n_chief; ++k)
        if (similarity[static_cast<size_t>(k + n - 1)] > best_score)
          best = k, best_score = similarity[static_cast<size_t>(k + n - 1)];
      for (int64_t k = -1; k >= -(n - 1); --k)
        if (similarity[static_cast<size_t>(k + n - 1)] > best_score)
          best = k, best_score = similarity[static_cast<size_t>(k + n - 1)];
      if (best_score <= 0) unmatched.push_back(kept[h].hosts.empty() ? "?" : kept[h].hosts[0]);
      begin_host[h] = best >= 0 ? 0 : -best;
      begin_chief[h] = best >= 0 ? best : 0;
      count = std::min(n - begin_host[h], n_chief - begin_chief[h]);
    }
    first = std::max(first, begin_chief[h]);
    last = std::min(last, begin_chief[h] + count);
  }
  if (first >= last) {
    out.no_steps_reason = "steps were found on the hosts, but no step is common to all of them";
    return out;
  }
  // The reference reads the first host's breakdown and takes each step's
  // time as its slowest host's, so its rows do not add up to its step time;
  // by default a step is its slowest host's, time and breakdown alike.
  const bool reference = options.compat != Compat::kDefault;
  for (int64_t i = first; i < last; ++i) {
    auto step_of = [&](size_t h) -> const StepRecord& {
      return kept[h].steps[static_cast<size_t>(begin_host[h] + (i - begin_chief[h]))];
    };
    size_t slowest = 0;
    for (size_t h = 1; h < kept.size(); ++h)
      if (step_of(h).duration_ps > step_of(slowest).duration_ps) slowest = h;
    StepRecord r = step_of(reference ? 0 : slowest);
    r.max_duration_ps = step_of(slowest).duration_ps;
    // Hosts number their steps apart ("train 47" on one is "train 48" on
    // another): the first host's names, as the reference shows them.
    r.name = step_of(0).name;
    r.group_id = step_of(0).group_id;
    out.steps.push_back(std::move(r));
  }
  out.intersection_note =
      std::to_string(last - first) + " steps common to " + std::to_string(kept.size()) +
      (reference ? " hosts; breakdowns are the first host's, step-time statistics take the slowest host's time of "
                   "each step, as the TensorFlow Profiler does"
                 : " hosts; each step is its slowest host's (step time and breakdown alike; the steps table names "
                   "the host)");
  if (!unmatched.empty()) {
    std::string names;
    for (const std::string& u : unmatched) names += (names.empty() ? "" : ", ") + u;
    out.intersection_note +=
        "; the steps of " + names + " overlap none of the chief host's steps in time, so they were aligned by position";
  }
  return out;
}

}  // namespace tfprof
