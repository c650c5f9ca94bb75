#include "lib/analyze/hosts_report.h"

#include "fmt/format.h"
#include "lib/analyze/step_summary.h"
#include "lib/analyze/steps_report.h"
#include "lib/summary/planes_to_step_db.h"

namespace tfprof {
namespace {

Table HostsTable(const HostsAnalysis& a) {
  Table t{"hosts", "Hosts (times in ms, averages over each host's own steps)", {}, {}};
  t.Add({"host", "host", ColumnType::kString, 0, 24})
      .Add({"file", "file", ColumnType::kString, 0, 40})
      .Add({"steps", "steps", ColumnType::kInt}, "count")
      .Add({"step_avg_ms", "step avg", ColumnType::kDouble, 3}, "ms")
      .Add({"step_p50_ms", "p50", ColumnType::kDouble, 3}, "ms")
      .Add({"step_p90_ms", "p90", ColumnType::kDouble, 3}, "ms")
      .Add({"step_max_ms", "max", ColumnType::kDouble, 3}, "ms");
  AddCategoryColumns(t);
  t.Add({"busy_ms", "busy", ColumnType::kDouble, 3}, "ms")
      .Add({"step_vs_median_percent", "vs median %", ColumnType::kDouble, 1}, "%")
      .Add({"late_ms", "late", ColumnType::kDouble, 3}, "ms")
      .Add({"straggler", "straggler", ColumnType::kBool});
  for (const HostRow& row : a.rows) {
    Table::RowWriter cells = t.AddRow();
    cells.Set("host", row.host).Set("file", row.source).Set("steps", static_cast<int64_t>(row.steps));
    if (row.steps == 0) continue;
    cells.Set("step_avg_ms", row.step_avg_ms)
        .Set("step_p50_ms", row.step_p50_ms)
        .Set("step_p90_ms", row.step_p90_ms)
        .Set("step_max_ms", row.step_max_ms);
    SetCategoryCells(cells, row.category_avg_ms);
    cells.Set("busy_ms", row.busy_avg_ms);
    if (!row.compared || a.compared < 2) continue;
    cells.Set("step_vs_median_percent", row.step_vs_median_percent)
        .Set("late_ms", row.late_ms)
        .Set("straggler", row.slow || row.late);
  }
  return t;
}

// One row per host and step: the per-step x per-host table the summary keeps.
Table HostStepsTable(const RunSummary& run) {
  Table t{"host_steps", "Steps of each host (times in ms)", {}, {}};
  t.Add({"host", "host", ColumnType::kString, 0, 24})
      .Add({"step", "step", ColumnType::kString, 0, 24})
      .Add({"step_number", "#", ColumnType::kInt})
      .Add({"step_time_ms", "step", ColumnType::kDouble, 3}, "ms");
  AddCategoryColumns(t);
  for (const HostPartials& h : run.hosts) {
    const StepSummary s = SummarizeSteps(CombineHostSteps({h.steps}, run.options));
    for (const StepRow& step : s.rows) {
      Table::RowWriter cells = t.AddRow();
      cells.Set("host", h.host)
          .Set("step", step.name)
          .Set("step_number", step.number)
          .Set("step_time_ms", step.step_time_ms);
      SetCategoryCells(cells, step.category_ms);
    }
  }
  return t;
}

}  // namespace

Report BuildHostsReport(const HostsAnalysis& a, const RunSummary& run, bool per_step) {
  Report r;
  r.command = "hosts";
  r.lines.push_back("run " + run.run);
  r.lines.push_back(fmt::format("{} hosts, {} compared · median host: step {:.3f} ms, busy {:.3f} ms", a.rows.size(),
                                a.compared, a.median_step_ms, a.median_busy_ms));
  if (a.compared < 2) {
    r.lines.push_back("stragglers: none to compare (fewer than two hosts with steps)");
  } else if (a.stragglers.empty()) {
    r.lines.push_back("stragglers: none (no host 10% slower, or 10% of a step busier, than the median host)");
  } else {
    std::string names;
    for (const std::string& h : a.stragglers) names += (names.empty() ? "" : ", ") + h;
    r.lines.push_back(fmt::format("stragglers: {}", names));
  }
  r.tables.push_back(HostsTable(a));
  if (per_step) r.tables.push_back(HostStepsTable(run));
  r.notes.push_back(
      "busy = step time less All others (idle) and Device collectives: the host's own work. late = busy less the "
      "median host's busy; vs median = step time against the median host's. A host is a straggler when its step "
      "time is at least 10% over the median host's and its time outside Device collectives is too, by 10% of the "
      "median step time (a host long only by its wait there is waiting for the others), or it is late by at least "
      "10% of the median step time (in a "
      "synchronous job the others wait for it, in collectives or idle). p50/p90 are nearest-rank percentiles of "
      "the host's own steps (docs/hosts.md)");
  for (const HostRow& row : a.rows)
    if (row.steps == 0)
      r.notes.push_back(
          fmt::format("{}: no steps ({})", row.host, row.no_steps_reason.empty() ? "none found" : row.no_steps_reason));
  return r;
}

}  // namespace tfprof
