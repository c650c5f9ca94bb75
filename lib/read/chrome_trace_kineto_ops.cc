#include "lib/read/chrome_trace_kineto_ops.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <vector>

#include "lib/model/xplane_schema.h"
#include "lib/read/chrome_trace_conventions.h"
#include "lib/read/stat_edit.h"
#include "lib/util/id_index.h"
#include "lib/util/parallel_for.h"
#include "lib/util/phase_times.h"

namespace tfprof {
namespace {

// What an event runs for: name and type of its row (both the same string),
// and for device events launched by an op, the op's Input type.
struct OpOf {
  StringId name = StringPool::kEmpty;
  StringId input_types = StringPool::kEmpty;
};

struct OpKeys {
  StatKey tf_op, tf_op_type;
  // Device events only: a host op's own `Input type` arg is already on it.
  std::optional<StatKey> input_types;
};

// Appends the op stats to the events `op_of` names (kEmpty: none), in
// room made in the line's stat pool. Returns the events given an op.
uint64_t AddOpStats(Line& line, const OpKeys& keys, const std::vector<OpOf>& op_of) {
  auto room = [&](size_t i) -> size_t {
    if (op_of[i].name == StringPool::kEmpty) return 0;
    return keys.input_types && op_of[i].input_types != StringPool::kEmpty ? 3 : 2;
  };
  if (MakeRoomForStats(line, room) == 0) return 0;
  uint64_t count = 0;
  for (size_t i = 0; i < line.events.size(); ++i) {
    const size_t n = room(i);
    if (n == 0) continue;
    Stat* out = line.stats.data() + line.events[i].stats_end - n;
    // Name and type are both the PyTorch op (see the header).
    out[0] = Stat::String(keys.tf_op, op_of[i].name);
    out[1] = Stat::String(keys.tf_op_type, op_of[i].name);
    if (n == 3) out[2] = Stat::String(*keys.input_types, op_of[i].input_types);
    ++count;
  }
  return count;
}

bool IsStepMarker(std::string_view name) { return schema::StartsWith(name, "ProfilerStep#"); }

enum class Kind : uint8_t { kOther, kOp, kAnnotation };

// Whether a host event is an op, a user annotation or neither, by metadata
// and category: decided for a metadata when it comes with another category
// than last time (an event name keeps its category, so that is once).
class HostKinds {
 public:
  HostKinds(const Host& host, const Plane& plane)
      : host_(host), plane_(plane), last_(plane.event_metadata.size(), {kNone, Kind::kOther}) {}
  Kind Of(EventMetadataId m, StringId c) {
    auto& [category, kind] = last_[m];
    if (category != c) {
      category = c;
      kind = Decide(host_.Str(plane_.event_metadata[m].name), host_.Str(c));
    }
    return kind;
  }

 private:
  static constexpr StringId kNone = std::numeric_limits<StringId>::max();
  static Kind Decide(std::string_view name, std::string_view category) {
    if (name.empty() || IsStepMarker(name)) return Kind::kOther;
    if (category == "cpu_op" || category == "Operator") return Kind::kOp;
    if (category == "user_annotation") return Kind::kAnnotation;
    return Kind::kOther;
  }

  const Host& host_;
  const Plane& plane_;
  std::vector<std::pair<StringId, Kind>> last_;  // Per metadata: the category last met, and its kind.
};

// What a runtime call (by correlation_id) was launched inside.
struct Launch {
  OpOf op;
  bool by_op = false;  // Inside an op (else inside a user annotation).
};

// The indices of `lines`, longest first (for ParallelFor), and how many
// events they hold.
std::vector<size_t> LongestFirst(const std::vector<Line>& lines, size_t* events) {
  *events = 0;
  for (const Line& l : lines) *events += l.events.size();
  return LargestFirst(lines.size(), [&](size_t i) { return lines[i].events.size(); });
}

bool IsDeviceActivity(std::string_view cat) {
  return cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "Kernel" || cat == "Memcpy" ||
         cat == "Memset";
}

// The keys of the stats a GPU plane's activities are told by; none where
// the plane is not Kineto's to name (no categories, or ops already named).
struct DeviceKeys {
  StatKey cat;
  std::optional<StatKey> corr;
};
std::optional<DeviceKeys> DeviceKeysOf(const Host& host, const Plane& plane) {
  const auto cat = plane.FindStatKey(host.strings, "cat");
  if (!cat || plane.FindStatKey(host.strings, "tf_op")) return std::nullopt;
  return DeviceKeys{*cat, plane.FindStatKey(host.strings, "correlation_id")};
}

// A device activity (kernel, memcpy, memset) of a GPU line: its event, and
// its correlation_id where it has an integer one.
struct Activity {
  uint32_t event;
  bool has_corr;
  int64_t corr;
};

// A GPU plane's activities, per line (none for derived lines), in event
// order.
struct PlaneActivities {
  Plane* plane;
  DeviceKeys keys;
  std::vector<std::vector<Activity>> of_line;
};

// How many events a part of a line holds for the passes below: enough that
// a part's work dwarfs taking it, few enough that one long stream line
// spreads over the threads.
constexpr size_t kEventsPerPart = size_t{1} << 15;

// The activities of the GPU planes Kineto's ops are to be marked on (those
// with categories and no tf_op), by category, found on a few threads a
// part of a line at a time (one stream line often holds most kernels) and
// joined in line order.
std::vector<PlaneActivities> DeviceActivities(Host& host, const Plane* cpu) {
  std::vector<PlaneActivities> planes;
  for (Plane& plane : host.planes) {
    if (&plane == cpu || !schema::IsGpuPlane(host.PlaneName(plane))) continue;
    const auto keys = DeviceKeysOf(host, plane);
    if (!keys) continue;
    PlaneActivities& out = planes.emplace_back(PlaneActivities{&plane, *keys, {}});
    out.of_line.resize(plane.lines.size());
    size_t events = 0;
    for (const Line& l : plane.lines) events += l.events.size();
    const auto size_of = [&](size_t l) {
      return schema::IsDerivedLineId(plane.lines[l].id) ? 0 : plane.lines[l].events.size();
    };
    const std::vector<ItemPart> parts = CutIntoParts(plane.lines.size(), size_of, kEventsPerPart);
    std::vector<std::vector<Activity>> found(parts.size());
    ParallelFor(parts.size(), ThreadsForEvents(events), [&](size_t k) {
      const ItemPart& part = parts[k];
      const Line& line = plane.lines[part.item];
      // Whether an event's category is a device activity's, by the category
      // last met (a line has few).
      StringId last_cat = StringPool::kEmpty;
      bool last_is_activity = false;
      for (size_t i = part.begin; i < part.end; ++i) {
        auto stats = line.EventStats(i);
        auto c = FindStatIn(stats, keys->cat);
        if (!c || c->type() != StatType::kString) continue;
        if (c->AsString() != last_cat || last_cat == StringPool::kEmpty) {
          last_cat = c->AsString();
          last_is_activity = IsDeviceActivity(host.Str(last_cat));
        }
        if (!last_is_activity) continue;
        const auto corr = FindStatIn(stats, keys->corr);
        const bool linked = corr && corr->is_integer();
        found[k].push_back({static_cast<uint32_t>(i), linked, linked ? corr->AsInt() : 0});
      }
    });
    for (size_t k = 0; k < parts.size(); ++k) {
      std::vector<Activity>& line = out.of_line[parts[k].item];
      if (line.empty()) line = std::move(found[k]);
      else line.insert(line.end(), found[k].begin(), found[k].end());
      std::vector<Activity>().swap(found[k]);  // Not held twice.
    }
  }
  return planes;
}

// The launches of the GPU activities' correlation ids: the ids numbered
// (IdIndex: a bit-table lookup where they are dense, as CUPTI hands them out),
// and per number the runtime call's op or annotation once the host side
// found one. A trace has several runtime calls with an id for each that
// ran on a GPU (the 1 GB Kineto trace 1.5 M calls, 0.36 M activities): only
// the calls of these ids are noted.
struct Launches {
  IdIndex ids;
  std::vector<std::optional<Launch>> of;  // Per id number.

  explicit Launches(const std::vector<PlaneActivities>& planes) {
    std::vector<int64_t> corrs;
    size_t activities = 0;
    for (const PlaneActivities& p : planes)
      for (const auto& line : p.of_line) activities += line.size();
    corrs.reserve(activities);
    for (const PlaneActivities& p : planes)
      for (const auto& line : p.of_line)
        for (const Activity& a : line)
          if (a.has_corr) corrs.push_back(a.corr);
    ids = IdIndex(corrs);
    of.resize(ids.size());
  }
  const Launch* Find(int64_t corr) const {
    const uint32_t n = ids.Find(corr);
    return n == IdIndex::kNone || !of[n] ? nullptr : &*of[n];
  }
};

// Host side: types the ops, and notes for each runtime call whose
// correlation id a GPU activity has the innermost op, else the innermost
// user annotation, open when it starts. Lines are independent, so each is
// worked on one of a few threads; the runtime calls each finds are noted
// in line order after (a correlation id seen twice keeps its first call,
// as one pass in that order would).
void MarkHostOps(Host& host, Plane& cpu, Launches& launches, KinetoOpCounts& counts) {
  const auto cat = cpu.FindStatKey(host.strings, "cat");
  if (!cat) return;
  const auto corr = cpu.FindStatKey(host.strings, "correlation_id");
  const auto input_type = cpu.FindStatKey(host.strings, "Input type");
  const OpKeys keys{StatKeyFor(host, cpu, "tf_op"), StatKeyFor(host, cpu, "tf_op_type"), std::nullopt};
  struct Open {
    int64_t end_ps;
    OpOf op;
  };
  std::vector<std::vector<std::pair<uint32_t, Launch>>> calls(cpu.lines.size());  // (id number, launch)
  std::vector<uint64_t> ops_marked(cpu.lines.size());
  size_t events;
  const std::vector<size_t> order = LongestFirst(cpu.lines, &events);
  const size_t threads = ThreadsForEvents(events);
  // Per thread: a slot per event name, so not one per line (a trace may
  // have thousands of threads and of names).
  std::vector<std::optional<HostKinds>> kinds_of(threads);
  ParallelForWorkers(order.size(), threads, [&](size_t k, size_t worker) {
    const size_t l = order[k];
    Line& line = cpu.lines[l];
    if (schema::IsDerivedLineId(line.id)) return;
    if (!kinds_of[worker]) kinds_of[worker].emplace(host, cpu);
    HostKinds& kinds = *kinds_of[worker];
    // Ops and annotations nest separately (an annotation may end after the
    // op it began in): one stack each. Events are sorted by start, longer
    // first: an event is inside the innermost open scope that ends after it
    // starts (one ending at the same instant as the next one starts is its
    // sibling, not its parent).
    std::vector<Open> ops, annotations;
    std::vector<OpOf> op_of(line.events.size());
    for (size_t i = 0; i < line.events.size(); ++i) {
      const Event& e = line.events[i];
      for (auto* stack : {&ops, &annotations})
        while (!stack->empty() && stack->back().end_ps <= e.start_ps) stack->pop_back();
      auto stats = line.EventStats(i);
      auto c = FindStatIn(stats, cat);
      const Kind kind = c && c->type() == StatType::kString ? kinds.Of(e.metadata, c->AsString()) : Kind::kOther;
      if (kind == Kind::kOp) {
        op_of[i].name = cpu.event_metadata[e.metadata].name;
        if (auto t = FindStatIn(stats, input_type); t && t->type() == StatType::kString)
          op_of[i].input_types = t->AsString();
        ops.push_back({e.end_ps(), op_of[i]});
      } else if (kind == Kind::kAnnotation) {
        annotations.push_back({e.end_ps(), {cpu.event_metadata[e.metadata].name, StringPool::kEmpty}});
      } else if (ops.empty() && annotations.empty()) {
        continue;  // A call outside every scope launches nothing to name.
      } else if (auto k = FindStatIn(stats, corr); k && k->is_integer()) {
        const uint32_t n = launches.ids.Find(k->AsInt());
        if (n == IdIndex::kNone) continue;
        if (!ops.empty()) calls[l].emplace_back(n, Launch{ops.back().op, true});
        else calls[l].emplace_back(n, Launch{annotations.back().op, false});
      }
    }
    ops_marked[l] = AddOpStats(line, keys, op_of);
  });
  for (size_t l = 0; l < calls.size(); ++l) {
    for (const auto& [n, launch] : calls[l])
      if (!launches.of[n]) launches.of[n] = launch;
    counts.host_ops += ops_marked[l];
  }
}

// Device side: names every kernel, memcpy and memset of a GPU plane (rules
// 1-4 of the header).
void MarkDeviceOps(Host& host, PlaneActivities& activities, const Launches& launches, KinetoOpCounts& counts) {
  Plane& plane = *activities.plane;
  const StatKey cat = activities.keys.cat;

  // The GPU annotations (their derived line), by start, longer first.
  struct Span {
    int64_t begin, end;
    StringId name;
  };
  std::vector<Span> annotations;
  for (const Line& line : plane.lines) {
    if (line.id != kKinetoAnnotationLineId) continue;
    for (size_t i = 0; i < line.events.size(); ++i) {
      auto c = FindStatIn(line.EventStats(i), cat);
      std::string_view name = host.Str(plane.event_metadata[line.events[i].metadata].name);
      if (c && c->type() == StatType::kString && host.Str(c->AsString()) == "gpu_user_annotation" && !name.empty() &&
          !IsStepMarker(name))
        annotations.push_back(
            {line.events[i].start_ps, line.events[i].end_ps(), plane.event_metadata[line.events[i].metadata].name});
    }
  }
  std::sort(annotations.begin(), annotations.end(),
            [](const Span& a, const Span& b) { return a.begin != b.begin ? a.begin < b.begin : a.end > b.end; });

  // Each activity's row: the op of its launch (rules 1-2), found a part of
  // a line at a time on a few threads; the others are decided below in
  // start order, so one sweep finds the innermost annotation open at their
  // start.
  size_t events;
  const std::vector<size_t> order = LongestFirst(plane.lines, &events);
  std::vector<std::vector<OpOf>> op_of(plane.lines.size());
  for (size_t l = 0; l < plane.lines.size(); ++l)
    if (!activities.of_line[l].empty()) op_of[l].resize(plane.lines[l].events.size());
  using Unlinked = std::tuple<int64_t, uint32_t, uint32_t>;  // (start, line, event) for rules 3-4.
  const std::vector<ItemPart> parts = CutIntoParts(
      plane.lines.size(), [&](size_t l) { return activities.of_line[l].size(); }, kEventsPerPart);
  std::vector<std::vector<Unlinked>> unlinked_in(parts.size());
  std::vector<KinetoOpCounts> part_counts(parts.size());
  ParallelFor(parts.size(), ThreadsForEvents(events), [&](size_t k) {
    const ItemPart& part = parts[k];
    const Line& line = plane.lines[part.item];
    const std::vector<Activity>& of_line = activities.of_line[part.item];
    KinetoOpCounts& n = part_counts[k];
    for (size_t a = part.begin; a < part.end; ++a) {
      const Activity& act = of_line[a];
      if (const Launch* launch = act.has_corr ? launches.Find(act.corr) : nullptr) {
        op_of[part.item][act.event] = launch->op;
        ++(launch->by_op ? n.device_with_op : n.device_with_annotation);
        n.device_with_input_types += launch->op.input_types != StringPool::kEmpty;
        continue;
      }
      unlinked_in[k].emplace_back(line.events[act.event].start_ps, static_cast<uint32_t>(part.item), act.event);
    }
  });
  std::vector<Unlinked> unlinked;
  for (size_t k = 0; k < parts.size(); ++k) {
    counts.device_with_op += part_counts[k].device_with_op;
    counts.device_with_annotation += part_counts[k].device_with_annotation;
    counts.device_with_input_types += part_counts[k].device_with_input_types;
    unlinked.insert(unlinked.end(), unlinked_in[k].begin(), unlinked_in[k].end());
    std::vector<Unlinked>().swap(unlinked_in[k]);
  }
  std::sort(unlinked.begin(), unlinked.end());
  std::vector<const Span*> open;
  size_t next = 0;
  for (const auto& [start, l, i] : unlinked) {
    while (next < annotations.size() && annotations[next].begin <= start) open.push_back(&annotations[next++]);
    while (!open.empty() && open.back()->end <= start) open.pop_back();
    const Event& e = plane.lines[l].events[i];
    if (!open.empty()) {
      op_of[l][i].name = open.back()->name;
      ++counts.device_with_gpu_annotation;
    } else {
      // The Kineto name (a copy's display name keeps it).
      const EventMetadata& m = plane.event_metadata[e.metadata];
      op_of[l][i].name = m.display_name != StringPool::kEmpty ? m.display_name : m.name;
      ++counts.device_named_as_themselves;
    }
  }

  const OpKeys keys{StatKeyFor(host, plane, "tf_op"), StatKeyFor(host, plane, "tf_op_type"),
                    StatKeyFor(host, plane, "op_input_types")};
  ParallelFor(order.size(), ThreadsForEvents(events), [&](size_t k) {
    if (!op_of[order[k]].empty()) AddOpStats(plane.lines[order[k]], keys, op_of[order[k]]);
  });
}

}  // namespace

KinetoOpCounts MarkKinetoFrameworkOps(Host& host, Plane* cpu) {
  KinetoOpCounts counts;
  // A host plane with tf_op stats is not Kineto's to type.
  if (cpu && cpu->FindStatKey(host.strings, "tf_op")) return counts;
  PhaseTimer device_phase("framework ops: device activities");
  std::vector<PlaneActivities> planes = DeviceActivities(host, cpu);
  Launches launches(planes);
  device_phase.Stop();
  PhaseTimer host_phase("framework ops: host walk");
  if (cpu) MarkHostOps(host, *cpu, launches, counts);
  host_phase.Stop();
  PhaseTimer mark_phase("framework ops: device marks");
  for (PlaneActivities& p : planes) MarkDeviceOps(host, p, launches, counts);
  return counts;
}

}  // namespace tfprof
