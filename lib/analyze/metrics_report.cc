#include "lib/analyze/metrics_report.h"

#include <cmath>

#include "fmt/format.h"

namespace tfprof {
namespace {

// Counts and bytes as integers (CSV and JSON too: a byte count must not
// read 6442450944.000), everything else as a double.
Cell ValueCell(double v, std::string_view unit) {
  if (IsIntegerUnit(unit) && std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9e18)
    return static_cast<int64_t>(v);
  return v;
}

Cell Optional(const std::optional<double>& v, std::string_view unit) { return v ? ValueCell(*v, unit) : Cell(); }

Cell FiniteOrEmpty(double v) { return std::isnan(v) ? Cell() : Cell(v); }

std::string_view UnitOf(const MetricDef* def) { return def ? def->unit : std::string_view(); }

std::string MetricChange(const MetricDelta& d) {
  if (!d.base) return "added";
  if (!d.next) return "removed";
  return *d.next > *d.base ? "up" : *d.next < *d.base ? "down" : "same";
}

Table MetricDeltaTable(std::string name, std::string title, const std::vector<MetricDelta>& rows) {
  Table t{std::move(name), std::move(title), {}, {}};
  t.Add({"metric", "metric", ColumnType::kString, 0, 48})
      .Add({"unit", "unit"})
      .Add({"base_value", "base", ColumnType::kDouble, 3})
      .Add({"new_value", "new", ColumnType::kDouble, 3})
      .Add({"delta", "Δ", ColumnType::kDouble, 3})
      .Add({"delta_percent", "Δ %", ColumnType::kDouble, 1}, "%")
      .Add({"change", "change"});
  for (const MetricDelta& d : rows) {
    const std::string_view unit = UnitOf(d.def);
    t.AddRow()
        .Set("metric", d.name)
        .Set("unit", std::string(unit))
        .Set("base_value", Optional(d.base, unit))
        .Set("new_value", Optional(d.next, unit))
        .Set("delta", d.base && d.next ? ValueCell(d.delta(), unit) : Cell())
        .Set("delta_percent", FiniteOrEmpty(d.delta_percent()))
        .Set("change", MetricChange(d));
  }
  return t;
}

Table RowDeltaTable(std::string name, std::string title, const RowDiff& diff, bool kernels, size_t top) {
  Table t{std::move(name), std::move(title), {}, {}};
  t.Add({"change", "change"});
  if (kernels) {
    t.Add({"kernel_name", "kernel", ColumnType::kString, 0, 56}).Add({"op_name", "op", ColumnType::kString, 0, 40});
  } else {
    t.Add({"side", "side"})
        .Add({"op_name", "op", ColumnType::kString, 0, 56})
        .Add({"op_type", "type", ColumnType::kString, 0, 24});
  }
  const std::string what = kernels ? "total" : "self_time";
  const std::string label = kernels ? "total" : "self";
  t.Add({"base_" + what + "_us", "base " + label + " us", ColumnType::kDouble, 3}, "us")
      .Add({"new_" + what + "_us", "new " + label + " us", ColumnType::kDouble, 3}, "us")
      .Add({"delta_us", "Δ us", ColumnType::kDouble, 3}, "us")
      .Add({"delta_percent", "Δ %", ColumnType::kDouble, 1}, "%")
      .Add({"base_occurrences", "base #", ColumnType::kInt}, "count")
      .Add({"new_occurrences", "new #", ColumnType::kInt}, "count");
  size_t n = 0;
  for (const RowDelta& r : diff.rows) {
    if (top && n++ >= top) break;
    Table::RowWriter row = t.AddRow();
    row.Set("change", std::string(RowChangeName(r.change)));
    if (!kernels) row.Set("side", r.side);
    row.Set(kernels ? "kernel_name" : "op_name", r.name)
        .Set(kernels ? "op_name" : "op_type", r.detail)
        .Set("base_" + what + "_us", r.base_us)
        .Set("new_" + what + "_us", r.next_us)
        .Set("delta_us", r.delta_us());
    // A percentage of nothing means nothing: empty for added rows.
    if (r.base_us > 0) row.Set("delta_percent", 100.0 * r.delta_us() / r.base_us);
    row.Set("base_occurrences", static_cast<int64_t>(r.base_count))
        .Set("new_occurrences", static_cast<int64_t>(r.next_count));
  }
  return t;
}

// A headline for one metric: "step time 12.960 -> 3.695 ms (-9.265 ms, -71.5%)".
void Headline(const std::vector<MetricDelta>& deltas, const std::string& metric, const std::string& label,
              std::vector<std::string>& lines) {
  for (const MetricDelta& d : deltas) {
    // Nothing to say about a number that is 0 on both sides (device
    // compute of two CPU runs).
    if (d.name != metric || !d.base || !d.next || (*d.base == 0 && *d.next == 0)) continue;
    const std::string_view unit = UnitOf(d.def);
    const double pct = d.delta_percent();
    lines.push_back(fmt::format("{}: {} → {} {} ({} {}{})", label, FormatMetricValue(*d.base, unit),
                                FormatMetricValue(*d.next, unit), unit, SignedValue(d.delta(), unit), DeltaUnit(unit),
                                std::isfinite(pct) ? fmt::format(", {:+.1f}%", pct) : ""));
  }
}

std::string RunLine(const std::string& side, const RunAnalysis& run, const std::string& label) {
  const Metric* steps = run.Find("overview.steps");
  const Metric* step = run.Find("overview.step_time_ms.avg");
  return fmt::format(
      "{}: {} · run {} · {} host{} · {}{}", side, label, run.run, run.ops.env.hosts.size(),
      run.ops.env.hosts.size() == 1 ? "" : "s",
      run.ops.env.has_device() ? fmt::format("{} × {}", run.ops.env.device_core_count, run.ops.env.device_type)
      : run.ops.env.tpu_count > 0
          ? fmt::format("{} TPU{} (not analysed)", run.ops.env.tpu_count, run.ops.env.tpu_count == 1 ? "" : "s")
      : run.ops.env.untraced_gpus > 0
          ? fmt::format("no GPU activity traced ({} GPU{} listed)", run.ops.env.untraced_gpus,
                        run.ops.env.untraced_gpus == 1 ? "" : "s")
          : std::string("CPU only"),
      steps && step ? fmt::format(" · {:.0f} step{}", steps->value, steps->value == 1 ? "" : "s")
                    : std::string(" · no steps"));
}

}  // namespace

Report BuildMetricsReport(const RunAnalysis& run) {
  Report r;
  r.command = "metrics";
  r.lines.push_back(fmt::format("run {} · {} metrics", run.run, run.metrics.size()));
  Table t{"metrics", "Metrics", {}, {}};
  t.Add({"metric", "metric", ColumnType::kString, 0, 52})
      .Add({"value", "value", ColumnType::kDouble, 3})
      .Add({"unit", "unit"})
      .Add({"command", "from"})
      .Add({"meaning", "meaning", ColumnType::kString, 0, 72});
  for (const Metric& m : run.metrics) {
    const std::string_view unit = UnitOf(m.def);
    t.AddRow()
        .Set("metric", m.name)
        .Set("value", ValueCell(m.value, unit))
        .Set("unit", std::string(unit))
        .Set("command", std::string(m.def ? m.def->command : ""))
        .Set("meaning", std::string(m.def ? m.def->meaning : ""));
  }
  r.tables.push_back(std::move(t));
  for (const RunAnalysis::Absent& a : run.absent) r.notes.push_back(a.note);
  return r;
}

Report BuildCheckReport(const RunAnalysis& run, const std::vector<CheckOutcome>& outcomes) {
  Report r;
  r.command = "check";
  size_t pass = 0, fail = 0, skip = 0;
  for (const CheckOutcome& o : outcomes) {
    pass += o.status == OutcomeStatus::kPass;
    fail += o.status == OutcomeStatus::kFail;
    skip += o.status == OutcomeStatus::kSkip;
  }
  r.lines.push_back(fmt::format("run {} · {} rule{}: {} passed, {} failed, {} skipped", run.run, outcomes.size(),
                                outcomes.size() == 1 ? "" : "s", pass, fail, skip));
  r.lines.push_back(fail ? "check: FAILED" : "check: passed");
  Table t{"checks", "Checks", {}, {}};
  t.Add({"rule", "rule", ColumnType::kString, 0, 64})
      .Add({"status", "status"})
      .Add({"value", "value", ColumnType::kDouble, 3})
      .Add({"unit", "unit"})
      .Add({"origin", "from"})
      .Add({"message", "message", ColumnType::kString, 0, 90});
  for (const CheckOutcome& o : outcomes) {
    const std::string_view unit = UnitOf(FindMetricDef(o.metric));
    t.AddRow()
        .Set("rule", o.name)
        .Set("status", std::string(OutcomeStatusName(o.status)))
        .Set("value", Optional(o.actual, unit))
        .Set("unit", std::string(unit))
        .Set("origin", o.origin)
        .Set("message", o.message);
  }
  r.tables.push_back(std::move(t));
  return r;
}

DiffInputs DiffRuns(const RunAnalysis& base, const RunAnalysis& next, const AnalysisOptions& options) {
  DiffInputs in;
  in.base = &base;
  in.next = &next;
  in.metrics = DiffMetrics(base, next);
  in.ops = DiffOpRows(base.ops, next.ops, options);
  in.kernels = DiffKernelRows(base.ops, next.ops);
  return in;
}

Report BuildDiffReport(const DiffInputs& d, const DiffReportOptions& options) {
  Report r;
  r.command = "diff";
  r.lines.push_back(RunLine("base", *d.base, options.base_label));
  r.lines.push_back(RunLine("new ", *d.next, options.next_label));
  Headline(d.metrics, "overview.step_time_ms.avg", "step time", r.lines);
  Headline(d.metrics, "overview.input_percent", "input", r.lines);
  Headline(d.metrics, "overview.device_compute_percent", "device compute", r.lines);
  Headline(d.metrics, "kernels.time_ms", "GPU kernel time", r.lines);

  // The overview side by side: step and placement metrics, without the
  // categories that are 0 in both runs (every metric is in `metrics`).
  std::vector<MetricDelta> overview;
  size_t zero = 0;
  for (const MetricDelta& m : d.metrics) {
    if (m.name.rfind("overview.", 0) != 0 && m.name.rfind("placement.", 0) != 0) continue;
    if (m.base && m.next && *m.base == 0 && *m.next == 0) {
      ++zero;
      continue;
    }
    overview.push_back(m);
  }
  r.tables.push_back(MetricDeltaTable("overview", "Overview (base → new)", overview));
  if (zero)
    r.notes.push_back(
        fmt::format("{} overview metric{} 0 in both runs not shown (--table metrics, or -v, lists every metric)", zero,
                    zero == 1 ? "" : "s"));

  r.tables.push_back(RowDeltaTable("ops", "TF ops by change in self time (op-stats)", d.ops, false, options.top));
  auto more = [&](const RowDiff& diff, const char* what) {
    if (options.top && diff.rows.size() > options.top)
      r.notes.push_back(fmt::format("{}: {} more changed row{} (--top 0 shows all)", what,
                                    diff.rows.size() - options.top, diff.rows.size() - options.top == 1 ? "" : "s"));
    if (diff.unchanged)
      r.notes.push_back(fmt::format("{}: {} row{} unchanged", what, diff.unchanged, diff.unchanged == 1 ? "" : "s"));
  };
  more(d.ops, "ops");
  const bool any_kernels = !d.base->ops.kernels.empty() || !d.next->ops.kernels.empty();
  if (any_kernels) {
    r.tables.push_back(
        RowDeltaTable("kernels", "GPU kernels by change in total time (kernel-stats)", d.kernels, true, options.top));
    more(d.kernels, "kernels");
  }
  if (!d.fail_if.empty()) {
    Table t{"fail_if", "--fail-if", {}, {}};
    t.Add({"condition", "condition", ColumnType::kString, 0, 64})
        .Add({"status", "status"})
        .Add({"change", "change", ColumnType::kDouble, 3})
        .Add({"message", "message", ColumnType::kString, 0, 100});
    for (const CheckOutcome& o : d.fail_if)
      t.AddRow()
          .Set("condition", o.name)
          .Set("status", std::string(OutcomeStatusName(o.status)))
          .Set("change", o.actual ? Cell(*o.actual) : Cell())
          .Set("message", o.message);
    r.tables.push_back(std::move(t));
  }
  Table all = MetricDeltaTable("metrics", "Every metric (base → new)", d.metrics);
  all.detail = true;
  r.tables.push_back(std::move(all));
  return r;
}

Report BuildOutcomesReport(const std::string& command, const std::vector<CheckOutcome>& outcomes,
                           const std::vector<std::pair<std::string, std::string>>& properties) {
  Report r;
  r.command = command;
  Table t{"outcomes", "Outcomes", {}, {}};
  t.Add({"name", "rule"}).Add({"status", "status"}).Add({"message", "message"}).Add({"origin", "from"});
  for (const CheckOutcome& o : outcomes)
    t.AddRow()
        .Set("name", o.name)
        .Set("status", std::string(OutcomeStatusName(o.status)))
        .Set("message", o.message)
        .Set("origin", o.origin);
  r.tables.push_back(std::move(t));
  Table p{"properties", "Properties", {}, {}};
  p.Add({"name", "name"}).Add({"value", "value"});
  for (const auto& [name, value] : properties) p.AddRow().Set("name", name).Set("value", value);
  r.tables.push_back(std::move(p));
  return r;
}

std::string FailureSummary(const std::vector<CheckOutcome>& outcomes, const std::string& what) {
  size_t failed = 0;
  std::string details;
  for (const CheckOutcome& o : outcomes) {
    if (o.status != OutcomeStatus::kFail) continue;
    ++failed;
    details += (details.empty() ? "" : "; ") + (o.missing ? o.name + ": " + o.message : o.message);
  }
  if (!failed) return "";
  return fmt::format("{} of {} {}{} failed: {}", failed, outcomes.size(), what, outcomes.size() == 1 ? "" : "s",
                     details);
}

}  // namespace tfprof
