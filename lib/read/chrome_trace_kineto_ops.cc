#include "lib/read/chrome_trace_kineto_ops.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "lib/model/xplane_schema.h"
#include "lib/read/chrome_trace_conventions.h"
#include "lib/read/stat_edit.h"
#include "lib/util/parallel_for.h"

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

// Calls visit(i, corr) for each device activity (kernel, memcpy, memset) of
// a line, by category, with its correlation_id when it has an integer one.
template <typename Visit>
void ForEachDeviceActivity(const Host& host, const Line& line, const DeviceKeys& keys, Visit visit) {
  // Whether an event's category is a device activity's, by the category
  // last met (a line has few).
  StringId last_cat = StringPool::kEmpty;
  bool last_is_activity = false;
  for (size_t i = 0; i < line.events.size(); ++i) {
    auto stats = line.EventStats(i);
    auto c = FindStatIn(stats, keys.cat);
    if (!c || c->type() != StatType::kString) continue;
    if (c->AsString() != last_cat || last_cat == StringPool::kEmpty) {
      last_cat = c->AsString();
      last_is_activity = IsDeviceActivity(host.Str(last_cat));
    }
    if (!last_is_activity) continue;
    const auto corr = FindStatIn(stats, keys.corr);
    visit(i, corr && corr->is_integer() ? std::optional<int64_t>(corr->AsInt()) : std::nullopt);
  }
}

// The correlation ids of the GPU planes' activities: the runtime calls the
// host side need note (a trace has several calls with an id for each that
// ran on a GPU: the 1 GB Kineto trace 1.5 M calls, 0.36 M activities).
absl::flat_hash_set<int64_t> DeviceCorrelationIds(const Host& host, const Plane* cpu) {
  absl::flat_hash_set<int64_t> ids;
  for (const Plane& plane : host.planes) {
    if (&plane == cpu || !schema::IsGpuPlane(host.PlaneName(plane))) continue;
    const auto keys = DeviceKeysOf(host, plane);
    if (!keys) continue;
    for (const Line& line : plane.lines)
      if (!schema::IsDerivedLineId(line.id))
        ForEachDeviceActivity(host, line, *keys, [&](size_t, std::optional<int64_t> corr) {
          if (corr) ids.insert(*corr);
        });
  }
  return ids;
}

// Host side: types the ops, and notes for each runtime call whose
// correlation id a GPU activity has (DeviceCorrelationIds) the innermost
// op, else the innermost user annotation, open when it starts. Lines are
// independent, so each is worked on one of a few threads; the runtime calls
// each finds are merged in line order after (a correlation id seen twice
// keeps its first call, as one pass in that order would).
absl::flat_hash_map<int64_t, Launch> MarkHostOps(Host& host, Plane& cpu, KinetoOpCounts& counts) {
  absl::flat_hash_map<int64_t, Launch> launches;
  const auto cat = cpu.FindStatKey(host.strings, "cat");
  if (!cat) return launches;
  const absl::flat_hash_set<int64_t> wanted = DeviceCorrelationIds(host, &cpu);
  const auto corr = cpu.FindStatKey(host.strings, "correlation_id");
  const auto input_type = cpu.FindStatKey(host.strings, "Input type");
  const OpKeys keys{StatKeyFor(host, cpu, "tf_op"), StatKeyFor(host, cpu, "tf_op_type"), std::nullopt};
  struct Open {
    int64_t end_ps;
    OpOf op;
  };
  std::vector<std::vector<std::pair<int64_t, Launch>>> calls(cpu.lines.size());
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
      } else if (auto k = FindStatIn(stats, corr); k && k->is_integer() && wanted.contains(k->AsInt())) {
        if (!ops.empty()) calls[l].emplace_back(k->AsInt(), Launch{ops.back().op, true});
        else if (!annotations.empty()) calls[l].emplace_back(k->AsInt(), Launch{annotations.back().op, false});
      }
    }
    ops_marked[l] = AddOpStats(line, keys, op_of);
  });
  size_t total = 0;
  for (const auto& c : calls) total += c.size();
  launches.reserve(total);
  for (size_t l = 0; l < calls.size(); ++l) {
    for (const auto& [id, launch] : calls[l]) launches.try_emplace(id, launch);
    counts.host_ops += ops_marked[l];
  }
  return launches;
}

// Device side: names every kernel, memcpy and memset of a GPU plane (rules
// 1-4 of the header).
void MarkDeviceOps(Host& host, Plane& plane, const absl::flat_hash_map<int64_t, Launch>& launches,
                   KinetoOpCounts& counts) {
  const auto device_keys = DeviceKeysOf(host, plane);
  if (!device_keys) return;
  const StatKey cat = device_keys->cat;

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

  // Each activity's row: the op of its launch (rules 1-2), found line by
  // line on a few threads; the others are decided below in start order, so
  // one sweep finds the innermost annotation open at their start.
  std::vector<std::vector<OpOf>> op_of(plane.lines.size());
  using Unlinked = std::tuple<int64_t, uint32_t, uint32_t>;  // (start, line, event) for rules 3-4.
  std::vector<std::vector<Unlinked>> unlinked_in(plane.lines.size());
  std::vector<KinetoOpCounts> line_counts(plane.lines.size());
  size_t events;
  const std::vector<size_t> order = LongestFirst(plane.lines, &events);
  ParallelFor(order.size(), ThreadsForEvents(events), [&](size_t k) {
    const size_t l = order[k];
    const Line& line = plane.lines[l];
    if (schema::IsDerivedLineId(line.id)) return;
    op_of[l].resize(line.events.size());
    KinetoOpCounts& n = line_counts[l];
    ForEachDeviceActivity(host, line, *device_keys, [&](size_t i, std::optional<int64_t> corr) {
      if (corr) {
        if (auto it = launches.find(*corr); it != launches.end()) {
          op_of[l][i] = it->second.op;
          ++(it->second.by_op ? n.device_with_op : n.device_with_annotation);
          n.device_with_input_types += it->second.op.input_types != StringPool::kEmpty;
          return;
        }
      }
      unlinked_in[l].emplace_back(line.events[i].start_ps, static_cast<uint32_t>(l), static_cast<uint32_t>(i));
    });
  });
  std::vector<Unlinked> unlinked;
  for (size_t l = 0; l < plane.lines.size(); ++l) {
    counts.device_with_op += line_counts[l].device_with_op;
    counts.device_with_annotation += line_counts[l].device_with_annotation;
    counts.device_with_input_types += line_counts[l].device_with_input_types;
    unlinked.insert(unlinked.end(), unlinked_in[l].begin(), unlinked_in[l].end());
    std::vector<Unlinked>().swap(unlinked_in[l]);
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
  absl::flat_hash_map<int64_t, Launch> launches;
  if (cpu) {
    // A host plane with tf_op stats is not Kineto's to type.
    if (cpu->FindStatKey(host.strings, "tf_op")) return counts;
    launches = MarkHostOps(host, *cpu, counts);
  }
  for (Plane& plane : host.planes)
    if (&plane != cpu && schema::IsGpuPlane(host.PlaneName(plane))) MarkDeviceOps(host, plane, launches, counts);
  return counts;
}

}  // namespace tfprof
