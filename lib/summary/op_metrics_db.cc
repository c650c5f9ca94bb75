#include "lib/summary/op_metrics_db.h"

#include <algorithm>

#include "lib/summary/time_span.h"

namespace tfprof {

OpMetrics& OpMetricsDb::Lookup(uint64_t module_id, std::string_view name) {
  return rows_[LookupIndex(module_id, name)];
}

size_t OpMetricsDb::LookupIndex(uint64_t module_id, std::string_view name) {
  auto [it, fresh] = index_.try_emplace({module_id, std::string(name)}, rows_.size());
  if (fresh) {
    rows_.emplace_back();
    rows_.back().module_id = module_id;
    rows_.back().name = std::string(name);
  }
  return it->second;
}

void OpMetricsDb::AddIdle() {
  OpMetrics& idle = rows_.emplace_back();
  idle.name = std::string(kIdleOp);
  idle.category = std::string(kIdleOp);
  idle.time_ps = idle.self_time_ps = total_time_ps - total_op_time_ps;
  index_.try_emplace({0, idle.name}, rows_.size() - 1);
}

void OpMetricsDb::AppendRow(OpMetrics row) {
  index_.try_emplace({row.module_id, row.name}, rows_.size());
  rows_.push_back(std::move(row));
}

void OpMetricsDb::Combine(const OpMetricsDb& src, bool count_cores) {
  for (const OpMetrics& s : src.rows_) {
    OpMetrics& d = Lookup(s.module_id, s.name);
    if (d.category.empty()) d.category = s.category;
    if (d.provenance.empty()) {
      d.provenance = s.provenance;
      d.provenance_is_name = s.provenance_is_name;
    }
    d.is_eager = d.is_eager || s.is_eager;
    d.occurrences += s.occurrences;
    d.device_launching_occurrences += s.device_launching_occurrences;
    // Saturating: a corrupt capture's spans, each up to 100 days, summed
    // over threads and hosts must not wrap round to small times.
    d.time_ps = SaturatingAdd(d.time_ps, s.time_ps);
    d.self_time_ps = SaturatingAdd(d.self_time_ps, s.self_time_ps);
    if (count_cores) d.num_cores += s.num_cores;
  }
  total_time_ps = SaturatingAdd(total_time_ps, src.total_time_ps);
  total_op_time_ps = SaturatingAdd(total_op_time_ps, src.total_op_time_ps);
}

std::vector<const OpMetrics*> OpMetricsDb::Sorted(size_t limit, bool with_idle) const {
  std::vector<const OpMetrics*> out;
  for (const OpMetrics& r : rows_)
    if (with_idle || !r.is_idle()) out.push_back(&r);
  std::stable_sort(out.begin(), out.end(), [](const OpMetrics* a, const OpMetrics* b) {
    return a->self_time_ps != b->self_time_ps ? a->self_time_ps > b->self_time_ps : a->name < b->name;
  });
  if (limit && out.size() > limit) out.resize(limit);
  return out;
}

}  // namespace tfprof
