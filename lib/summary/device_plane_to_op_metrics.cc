#include "lib/summary/device_plane_to_op_metrics.h"

#include <algorithm>
#include <limits>
#include <tuple>

#include "absl/container/flat_hash_map.h"

#include "lib/model/diagnostic_kinds.h"
#include "lib/model/stat_finder.h"
#include "lib/model/xplane_schema.h"
#include "lib/summary/tf_op_name.h"
#include "lib/summary/time_span.h"
#include "lib/summary/xla_ops_to_op_metrics.h"

namespace tfprof {

OpMetricsDb DevicePlaneToOpMetrics(const Host& host, const Plane& plane, Diagnostics& diagnostics,
                                   const AnalysisOptions& options, const std::vector<std::vector<bool>>* eager_marks) {
  const StatFinder tf_op(host, plane, "tf_op"), level0(host, plane, "level 0"), hlo_op(host, plane, "hlo_op"),
      is_eager(host, plane, "is_eager");
  const StatFinder tf_op_type(host, plane, "tf_op_type");
  OpMetricsDb db;
  // XLA ops (hlo_op): counted per HLO op by default; the references name
  // them only from the HLO protos and leave them out here.
  const bool count_xla = options.compat == Compat::kDefault;
  XlaDeviceOpsBuilder xla(host, plane);
  // The reference measures the span on line offsets (all GPU stream lines
  // share one timestamp), so do the same.
  int64_t first = std::numeric_limits<int64_t>::max(), last = 0;
  uint64_t xla_events = 0;
  using RowKey = std::tuple<StringId, StringId, EventMetadataId>;
  absl::flat_hash_map<RowKey, size_t> row_of;
  for (size_t l = 0; l < plane.lines.size(); ++l) {
    const Line& line = plane.lines[l];
    if (schema::IsDerivedLineId(line.id)) continue;
    const std::vector<bool>* marks = eager_marks ? &(*eager_marks)[l] : nullptr;
    const int64_t line_start_ps = line.events.empty() ? 0 : (line.timestamp_ns - host.time_origin_ns) * 1000;
    for (size_t i = 0; i < line.events.size(); ++i) {
      const Event& e = line.events[i];
      first = std::min(first, e.start_ps - line_start_ps);
      last = std::max(last, e.end_ps() - line_start_ps);
      auto stats = line.EventStats(i);
      if (count_xla) {
        if (xla.Add(l, e, stats, db)) continue;
        xla.Break(l);
      } else if (auto h = hlo_op.In(stats); h && !host.Str(h->AsString()).empty()) {
        ++xla_events;
        continue;
      }
      // TensorFlow before about 2.14 named the op in a "level 0" stat (the
      // outermost annotation); current xprof reads only tf_op and shows no
      // device ops for such captures. We read both.
      auto op_stat = tf_op.In(stats);
      if (!op_stat && !options.xprof()) op_stat = level0.In(stats);
      const StringId full_id = op_stat ? op_stat->AsString() : StringPool::kEmpty;
      std::string_view full = host.Str(full_id);
      if (full.empty()) continue;
      auto type_stat = tf_op_type.In(stats);
      const StringId type_id = type_stat ? type_stat->AsString() : StringPool::kEmpty;
      // The row follows from the op, its type and the kernel's name: found
      // once per distinct triple (parsing the op, building the row's name),
      // then only counted.
      auto [known, fresh] = row_of.try_emplace(RowKey{full_id, type_id, e.metadata}, 0);
      if (fresh) {
        TfOp op = OpFromStats(full, host.Str(type_id), options.tf_legacy());
        std::string name = std::string(op.name) + "/" + std::string(host.Str(plane.event_metadata[e.metadata].name));
        known->second = db.LookupIndex(0, name);
        OpMetrics& m = db.Row(known->second);
        if (m.occurrences == 0 && m.category.empty() && m.provenance.empty()) {
          m.category = op.type.empty() ? "unknown" : std::string(op.type);
          m.provenance = std::string(full);
          m.provenance_is_name = op.category == OpCategory::kFramework;
          auto eager = is_eager.In(stats);  // The row's first event decides.
          m.is_eager = m.is_eager || (eager ? eager->AsInt() != 0 : marks && (*marks)[i]);
        }
      }
      OpMetrics& m = db.Row(known->second);
      m.num_cores = 1;
      m.occurrences += 1;
      m.time_ps += static_cast<uint64_t>(e.duration_ps);
      m.self_time_ps += static_cast<uint64_t>(e.duration_ps);
      db.total_op_time_ps += static_cast<uint64_t>(e.duration_ps);
    }
  }
  bool span_cut = false;
  db.SetTotalTime(last ? static_cast<uint64_t>(SpanPs(first, last, &span_cut)) : 0);
  db.AddIdle();
  xla.Report(host.PlaneName(plane), diagnostics);
  diagnostics.Add(diag_kind::kOpStatsSpanCut, std::string(host.PlaneName(plane)), span_cut ? 1 : 0);
  diagnostics.Add(diag_kind::kOpStatsXlaDeviceOpsSkipped, std::string(host.PlaneName(plane)), xla_events);
  return db;
}

OpMetricsDb DeviceOpsToTfOps(const OpMetricsDb& device_ops, bool with_idle, const AnalysisOptions& options) {
  OpMetricsDb tf;
  for (const OpMetrics& d : device_ops.rows()) {
    std::string_view name, type;
    if (d.is_idle()) {
      if (!with_idle) continue;
      name = type = kIdleOp;
    } else if (d.provenance.empty()) {
      name = d.name;
    } else {
      TfOp op = d.provenance_is_name ? TfOp{OpCategory::kFramework, d.provenance, d.category}
                                     : ParseTfOpFullname(d.provenance, options.tf_legacy());
      name = op.name;
      type = op.type;
    }
    OpMetrics& m = tf.Lookup(0, name);
    if (m.category.empty()) m.category = type.empty() ? "Unknown" : std::string(type);
    m.is_eager = d.is_eager;
    m.occurrences = std::max(m.occurrences, d.occurrences);
    m.time_ps += d.time_ps;
    m.self_time_ps += d.self_time_ps;
    m.num_cores = std::max(m.num_cores, d.num_cores);
  }
  tf.total_op_time_ps = device_ops.total_op_time_ps;
  tf.total_time_ps = with_idle ? device_ops.total_time_ps : device_ops.total_op_time_ps;
  return tf;
}

}  // namespace tfprof
