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

}  // namespace

Table FindingsDiffTable(const Advice& base, const Advice& next) {
  Table t{"findings", "Advisor findings, base -> new", {}, {}};
  t.Add({.key = "id", .label = "Finding"});
  t.Add({.key = "change", .label = "Change"});
  t.Add({.key = "base_severity", .label = "Base"});
  t.Add({.key = "new_severity", .label = "New"});
  t.Add({.key = "base_ms_per_step", .label = "Base ms/step", .type = ColumnType::kDouble, .precision = 3}, "ms");
  t.Add({.key = "new_ms_per_step", .label = "New ms/step", .type = ColumnType::kDouble, .precision = 3}, "ms");
  t.Add({.key = "summary", .label = "What (new run; base when resolved)", .max_width = 100});
  auto add = [&t](const std::string& id, const Finding* b, const Finding* n) {
    std::string change = "same";
    if (!b) change = "new";
    else if (!n) change = "resolved";
    else if (n->severity > b->severity) change = "worse";
    else if (n->severity < b->severity) change = "better";
    auto row = t.AddRow();
    row.Set("id", id).Set("change", change);
    SetSide(row, b, "base_severity", "base_ms_per_step");
    SetSide(row, n, "new_severity", "new_ms_per_step");
    row.Set("summary", n ? n->summary : b->summary);
  };
  for (const Finding& n : next.findings) add(n.id, FindingOf(base, n.id), &n);
  for (const Finding& b : base.findings)
    if (!FindingOf(next, b.id)) add(b.id, &b, nullptr);
  return t;
}

std::string FindingsDiffLine(const Table& findings) {
  std::vector<std::string> added, resolved, worse, better;
  const int id = findings.ColumnIndex("id"), change = findings.ColumnIndex("change");
  for (const auto& row : findings.rows) {
    const std::string& c = std::get<std::string>(row[static_cast<size_t>(change)]);
    const std::string& name = std::get<std::string>(row[static_cast<size_t>(id)]);
    if (c == "new") added.push_back(name);
    else if (c == "resolved") resolved.push_back(name);
    else if (c == "worse") worse.push_back(name);
    else if (c == "better") better.push_back(name);
  }
  auto part = [](const char* what, const std::vector<std::string>& ids) {
    return ids.empty() ? fmt::format("0 {}", what) : fmt::format("{} {} ({})", ids.size(), what, fmt::join(ids, ", "));
  };
  return "findings: " + part("new", added) + ", " + part("resolved", resolved) + ", " + part("worse", worse) + ", " +
         part("better", better);
}

void AddFindingsDiff(const RunSummary& base, const RunSummary& next, Report& diff) {
  Table findings = FindingsDiffTable(RunSummaryToAdvice(base), RunSummaryToAdvice(next));
  diff.lines.push_back(FindingsDiffLine(findings));
  diff.tables.push_back(std::move(findings));
}

}  // namespace tfprof
