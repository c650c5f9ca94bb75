#include "lib/analyze/placement_report.h"

#include "fmt/format.h"
#include "lib/summary/device_plane_to_op_metrics.h"
#include "lib/summary/pytorch_kernel_rules.h"

namespace tfprof {
namespace {

double Percent(uint64_t part, uint64_t whole) {
  return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

}  // namespace

double Placement::host_percent() const {
  return Percent(host_op_executions, host_op_executions + device_op_executions);
}
double Placement::device_percent() const {
  return Percent(device_op_executions, host_op_executions + device_op_executions);
}

Placement ComputePlacement(const HostSummary& summary, const std::string& host_name) {
  Placement p;
  p.host = host_name;
  for (const OpMetrics& m : summary.host_ops.rows()) {
    p.host_op_executions += m.occurrences;
    if (!m.is_idle()) p.host_self_time_ps += m.self_time_ps;
  }
  OpMetricsDb tf = DeviceOpsToTfOps(summary.device_ops, /*with_idle=*/false);
  for (const OpMetrics& m : tf.rows()) {
    p.device_op_executions += m.occurrences;
    p.device_self_time_ps += m.self_time_ps;
  }
  return p;
}

Report BuildPlacementReport(const std::vector<Placement>& per_host, const HostSummary& combined,
                            size_t top_candidates) {
  Report r;
  r.command = "placement";
  Placement all = ComputePlacement(combined, "(all)");
  const bool pytorch = combined.env.pytorch();
  r.lines.push_back(fmt::format(
      "op placement: host {:.1f}% · device {:.1f}% of {} executions ({} on host, {} on device)", all.host_percent(),
      all.device_percent(), pytorch ? "op" : "TF op", all.host_op_executions, all.device_op_executions));

  Table t{"placement", pytorch ? "Op placement" : "TF op placement", {}, {}};
  t.Add({"host", "host"})
      .Add({"host_op_executions", "host ops", ColumnType::kInt}, "count")
      .Add({"device_op_executions", "device ops", ColumnType::kInt}, "count")
      .Add({"host_op_percent", "host %", ColumnType::kDouble, 1}, "%")
      .Add({"device_op_percent", "device %", ColumnType::kDouble, 1}, "%")
      .Add({"host_self_time_ms", "host ms", ColumnType::kDouble, 3}, "ms")
      .Add({"device_self_time_ms", "device ms", ColumnType::kDouble, 3}, "ms")
      .Add({"host_time_percent", "host time %", ColumnType::kDouble, 1}, "%")
      .Add({"device_time_percent", "device time %", ColumnType::kDouble, 1}, "%");
  std::vector<Placement> rows = per_host;
  if (per_host.size() != 1) rows.push_back(all);
  for (const Placement& p : rows) {
    const uint64_t time = p.host_self_time_ps + p.device_self_time_ps;
    t.AddRow()
        .Set("host", p.host)
        .Set("host_op_executions", static_cast<int64_t>(p.host_op_executions))
        .Set("device_op_executions", static_cast<int64_t>(p.device_op_executions))
        .Set("host_op_percent", p.host_percent())
        .Set("device_op_percent", p.device_percent())
        .Set("host_self_time_ms", static_cast<double>(p.host_self_time_ps) / 1e9)
        .Set("device_self_time_ms", static_cast<double>(p.device_self_time_ps) / 1e9)
        .Set("host_time_percent", Percent(p.host_self_time_ps, time))
        .Set("device_time_percent", Percent(p.device_self_time_ps, time));
  }
  r.tables.push_back(std::move(t));

  Table c{
      "host_op_candidates", "Ops on the host of a GPU run, by host self time (candidates to move to the GPU)", {}, {}};
  c.Add({"rank", "rank", ColumnType::kInt})
      .Add({"op_type", "type", ColumnType::kString, 0, 28})
      .Add({"op_name", "operation", ColumnType::kString, 0, 60})
      .Add({"occurrences", "#", ColumnType::kInt}, "count")
      .Add({"self_time_ms", "self ms", ColumnType::kDouble, 3}, "ms")
      .Add({"host_self_time_percent", "of host ops", ColumnType::kDouble, 1}, "%");
  if (combined.env.has_device()) {
    int64_t rank = 0;
    for (const OpMetrics* m : combined.host_ops.Sorted(0, /*with_idle=*/false)) {
      if (top_candidates && static_cast<size_t>(rank) >= top_candidates) break;
      if (m->self_time_ps == 0) break;
      // tf.data iterators run on the host by design; they are not candidates.
      if (m->category == "Dataset") continue;
      // An op that launched device work already runs there (its host time
      // is the dispatch: PyTorch's ops, a TF1 GPU executor's); PyTorch's
      // bookkeeping has nothing to move.
      if (m->device_launching_occurrences > 0 || (pytorch && IsTorchBookkeepingOp(m->name))) continue;
      c.AddRow()
          .Set("rank", ++rank)
          .Set("op_type", m->category)
          .Set("op_name", m->name)
          .Set("occurrences", static_cast<int64_t>(m->occurrences))
          .Set("self_time_ms", static_cast<double>(m->self_time_ps) / 1e9)
          .Set("host_self_time_percent", Percent(m->self_time_ps, combined.host_ops.total_op_time_ps));
    }
    if (pytorch)
      r.notes.push_back(
          "PyTorch candidates: host ops that never launched device work (no kernel, copy or memset "
          "from them or the ops inside them), leaving out tensor allocation and views, the autograd "
          "engine and backward nodes, and record_function scopes");
  } else if (combined.env.tpu_count > 0) {
    r.notes.push_back("the capture's devices are TPUs, which tfprof-analyze does not analyse: host ops only");
  } else {
    r.notes.push_back("no GPU device plane: every op ran on the host, so there are no candidates to move");
  }
  r.tables.push_back(std::move(c));
  return r;
}

}  // namespace tfprof
