#include "lib/advise/advice_diff.h"

#include <vector>

#include "fmt/format.h"
#include "lib/advise/run_summary_to_advice.h"

namespace tfprof {
namespace {

const Finding* FindingOf(const Advice& a, const std::string& id) {
  for (const Finding& f : a.findings)
    if (f.id == id) return &f;
  return nullptr;
}

void SetSide(Table::RowWriter& row, const Finding* f, const char* severity_key, const char* ms_key) {
  if (!f) return;
  row.Set(severity_key, std::string(SeverityName(f->severity)));
  if (f->ms_per_step) row.Set(ms_key, *f->ms_per_step);
}

// Table `findings`: one row per rule that fired in either run, in the new
// run's order (then the resolved ones in the base's): `change` is new,
// resolved, worse, better or same (by severity). `line`: the head line
// naming them ("findings: 1 new (input_bound), 0 resolved, ...").
Table FindingsDiffTable(const Advice& base, const Advice& next, std::string* line) {
  Table t{"findings", "Advisor findings, base -> new", {}, {}};
  t.Add({.key = "id", .label = "Finding"});
  t.Add({.key = "change", .label = "Change"});
  t.Add({.key = "base_severity", .label = "Base"});
  t.Add({.key = "new_severity", .label = "New"});
  t.Add({.key = "base_ms_per_step", .label = "Base ms/step", .type = ColumnType::kDouble, .precision = 3}, "ms");
  t.Add({.key = "new_ms_per_step", .label = "New ms/step", .type = ColumnType::kDouble, .precision = 3}, "ms");
  t.Add({.key = "summary", .label = "What (new run; base when resolved)", .max_width = 100});
  // The ids of each kind of change, in table order, for the head line.
  std::vector<std::string> added, resolved, worse, better;
  auto add = [&](const std::string& id, const Finding* b, const Finding* n) {
    std::string change = "same";
    if (!b) change = "new", added.push_back(id);
    else if (!n) change = "resolved", resolved.push_back(id);
    else if (n->severity > b->severity) change = "worse", worse.push_back(id);
    else if (n->severity < b->severity) change = "better", better.push_back(id);
    auto row = t.AddRow();
    row.Set("id", id).Set("change", change);
    SetSide(row, b, "base_severity", "base_ms_per_step");
    SetSide(row, n, "new_severity", "new_ms_per_step");
    row.Set("summary", n ? n->summary : b->summary);
  };
  for (const Finding& n : next.findings) add(n.id, FindingOf(base, n.id), &n);
  for (const Finding& b : base.findings)
    if (!FindingOf(next, b.id)) add(b.id, &b, nullptr);
  auto part = [](const char* what, const std::vector<std::string>& ids) {
    return ids.empty() ? fmt::format("0 {}", what) : fmt::format("{} {} ({})", ids.size(), what, fmt::join(ids, ", "));
  };
  *line = "findings: " + part("new", added) + ", " + part("resolved", resolved) + ", " + part("worse", worse) + ", " +
          part("better", better);
  return t;
}

}  // namespace

void AddFindingsDiff(const RunSummary& base, const RunSummary& next, Report& diff, const RunAnalysis* base_analysis,
                     const RunAnalysis* next_analysis) {
  std::string line;
  Table findings = FindingsDiffTable(RunSummaryToAdvice(base, {}, base_analysis),
                                     RunSummaryToAdvice(next, {}, next_analysis), &line);
  diff.lines.push_back(std::move(line));
  diff.tables.push_back(std::move(findings));
}

}  // namespace tfprof
