#include "lib/read/chrome_trace_kineto_ops.h"

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lib/model/xplane_schema.h"
#include "lib/read/stat_edit.h"

namespace tfprof {
namespace {

// Appends the op's two stats to the events `op_of` names (kEmpty: none),
// rebuilding the line's stat pool. Returns the events given an op.
uint64_t AddOpStats(Line& line, StatKey tf_op, StatKey tf_op_type, const std::vector<StringId>& op_of) {
  std::vector<Stat> stats;
  stats.reserve(line.stats.size() + 2 * line.events.size());
  uint32_t begin = 0;  // The event's stats in the old pool (its stats_end is rewritten below).
  uint64_t count = 0;
  for (size_t i = 0; i < line.events.size(); ++i) {
    std::span<const Stat> own(line.stats.data() + begin, line.events[i].stats_end - begin);
    begin = line.events[i].stats_end;
    stats.insert(stats.end(), own.begin(), own.end());
    if (op_of[i] != StringPool::kEmpty) {
      // Name and type are both the PyTorch op (see the header).
      stats.push_back(Stat::String(tf_op, op_of[i]));
      stats.push_back(Stat::String(tf_op_type, op_of[i]));
      ++count;
    }
    line.events[i].stats_end = static_cast<uint32_t>(stats.size());
  }
  line.stats = std::move(stats);
  return count;
}

}  // namespace

KinetoOpCounts MarkKinetoFrameworkOps(Host& host, Plane& cpu) {
  KinetoOpCounts counts;
  const auto cat = cpu.FindStatKey(host.strings, "cat");
  if (!cat || cpu.FindStatKey(host.strings, "tf_op")) return counts;
  const auto corr = cpu.FindStatKey(host.strings, "correlation_id");
  // Which events are ops, by metadata and category (cached per pair).
  absl::flat_hash_map<std::pair<EventMetadataId, StringId>, bool> is_op_cache;
  auto is_op = [&](EventMetadataId m, StringId c) {
    auto [it, fresh] = is_op_cache.try_emplace({m, c}, false);
    if (fresh) {
      std::string_view category = host.Str(c), name = host.Str(cpu.event_metadata[m].name);
      it->second = (category == "cpu_op" || category == "Operator") && !name.empty() &&
                   !schema::StartsWith(name, "ProfilerStep#");
    }
    return it->second;
  };
  const StatKey tf_op = StatKeyFor(host, cpu, "tf_op"), tf_op_type = StatKeyFor(host, cpu, "tf_op_type");
  absl::flat_hash_map<int64_t, StringId> op_of_launch;  // correlation_id -> op name.
  struct Open {
    int64_t end_ps;
    StringId name;
  };
  std::vector<Open> stack;
  for (Line& line : cpu.lines) {
    if (schema::IsDerivedLineId(line.id)) continue;
    // Events are sorted by start, longer first: an event is inside the
    // innermost open op that ends after it starts (an op ending at the same
    // instant as the next one starts is its sibling, not its parent).
    std::vector<StringId> op_of(line.events.size(), StringPool::kEmpty);
    stack.clear();
    for (size_t i = 0; i < line.events.size(); ++i) {
      const Event& e = line.events[i];
      while (!stack.empty() && stack.back().end_ps <= e.start_ps) stack.pop_back();
      auto stats = line.EventStats(i);
      auto c = FindStatIn(stats, cat);
      if (c && c->type() == StatType::kString && is_op(e.metadata, c->AsString())) {
        op_of[i] = cpu.event_metadata[e.metadata].name;
        stack.push_back({e.end_ps(), op_of[i]});
      } else if (auto k = FindStatIn(stats, corr); k && k->is_integer() && !stack.empty()) {
        op_of_launch.try_emplace(k->AsInt(), stack.back().name);
      }
    }
    counts.host_ops += AddOpStats(line, tf_op, tf_op_type, op_of);
  }
  if (op_of_launch.empty()) return counts;
  for (Plane& plane : host.planes) {
    if (&plane == &cpu || !schema::IsGpuPlane(host.PlaneName(plane))) continue;
    const auto gpu_corr = plane.FindStatKey(host.strings, "correlation_id");
    if (!gpu_corr || plane.FindStatKey(host.strings, "tf_op")) continue;
    const StatKey to_op = StatKeyFor(host, plane, "tf_op"), to_type = StatKeyFor(host, plane, "tf_op_type");
    for (Line& line : plane.lines) {
      // The derived line holds GPU-side annotations and syncs, not activity.
      if (schema::IsDerivedLineId(line.id)) continue;
      std::vector<StringId> op_of(line.events.size(), StringPool::kEmpty);
      bool any = false;
      for (size_t i = 0; i < line.events.size(); ++i) {
        auto k = FindStatIn(line.EventStats(i), gpu_corr);
        if (!k || !k->is_integer()) continue;
        auto it = op_of_launch.find(k->AsInt());
        if (it == op_of_launch.end()) {
          ++counts.device_without_op;
          continue;
        }
        op_of[i] = it->second;
        any = true;
      }
      if (any) counts.device_with_op += AddOpStats(line, to_op, to_type, op_of);
    }
  }
  return counts;
}

}  // namespace tfprof
