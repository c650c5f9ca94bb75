// Advice -> Report: the findings first (one row each, evidence joined),
// the evidence one row per number, then every rule's check.
#include <string>

#include "fmt/format.h"
#include "lib/advise/run_summary_to_advice.h"

namespace tfprof {
namespace {

std::string JoinEvidence(const Finding& f) {
  std::string out;
  for (const Evidence& e : f.evidence) {
    if (!out.empty()) out += "; ";
    out += e.what + ": " + e.value + " [" + e.source + "]";
  }
  return out;
}

}  // namespace

Report BuildAdviceReport(const Advice& advice, const AdviseOptions& options) {
  Report r;
  r.command = "advise";
  r.lines.push_back("run " + advice.run + " · " + advice.framework + " checklist");
  if (advice.steps)
    r.lines.push_back(fmt::format("{} steps, {:.3f} ms per step on average", advice.steps, advice.step_ms));
  size_t by[3] = {0, 0, 0};
  for (const Finding& f : advice.findings) ++by[static_cast<size_t>(f.severity)];
  size_t undecided = 0;
  for (const RuleCheck& c : advice.checks) undecided += c.status == RuleStatus::kUndecided;
  r.lines.push_back(
      advice.findings.empty()
          ? fmt::format("no findings: {} rules checked, {} could not decide", advice.checks.size(), undecided)
          : fmt::format("{} findings ({} high, {} medium, {} low); {} rules checked, {} could not decide",
                        advice.findings.size(), by[2], by[1], by[0], advice.checks.size(), undecided));
  // The text view shows each finding as a block of statements; the
  // `findings` table (CSV's default, JSON) holds the same, one row each.
  int64_t n = 0;
  for (const Finding& f : advice.findings) {
    std::string at_stake = f.risk ? "a risk, not time per step" : "time at stake unknown (no steps)";
    if (f.ms_per_step)
      at_stake = fmt::format("{:.3f} ms/step at stake", *f.ms_per_step) +
                 (f.step_percent ? fmt::format(" ({:.1f}% of the step)", *f.step_percent) : std::string());
    r.lines.push_back(fmt::format("{}. [{}] {} · {}", ++n, SeverityName(f.severity), f.id, at_stake));
    r.lines.push_back("   " + f.summary);
    for (const Evidence& ev : f.evidence)
      r.lines.push_back("   - " + ev.what + ": " + ev.value + " [" + ev.source + "]");
    r.lines.push_back("   try: " + f.advice);
    if (!f.guide.empty()) r.lines.push_back("   guide: " + f.guide);
  }

  Table& t = r.tables.emplace_back();
  t.name = "findings";
  t.title = "Findings, most costly first";
  t.detail = true;  // Shown above as statements.
  t.Add({.key = "rank", .label = "#", .type = ColumnType::kInt});
  t.Add({.key = "id", .label = "Finding"});
  t.Add({.key = "severity", .label = "Severity"});
  t.Add({.key = "ms_per_step", .label = "ms/step at stake", .type = ColumnType::kDouble, .precision = 3}, "ms");
  t.Add({.key = "step_percent", .label = "% of step", .type = ColumnType::kDouble, .precision = 1}, "%");
  t.Add({.key = "summary", .label = "What", .max_width = 90});
  t.Add({.key = "evidence", .label = "Evidence", .max_width = 90});
  t.Add({.key = "advice", .label = "Try", .max_width = 90});
  t.Add({.key = "guide", .label = "Guide"});
  int64_t rank = 0;
  for (const Finding& f : advice.findings) {
    auto row = t.AddRow();
    row.Set("rank", ++rank).Set("id", f.id).Set("severity", std::string(SeverityName(f.severity)));
    if (f.ms_per_step) row.Set("ms_per_step", *f.ms_per_step);
    if (f.step_percent) row.Set("step_percent", *f.step_percent);
    row.Set("summary", f.summary).Set("evidence", JoinEvidence(f)).Set("advice", f.advice).Set("guide", f.guide);
  }

  Table& e = r.tables.emplace_back();
  e.name = "evidence";
  e.title = "Evidence";
  e.detail = true;
  e.Add({.key = "finding", .label = "Finding"});
  e.Add({.key = "what", .label = "What", .max_width = 100});
  e.Add({.key = "value", .label = "Value", .max_width = 60});
  e.Add({.key = "source", .label = "From (command)"});
  for (const Finding& f : advice.findings)
    for (const Evidence& ev : f.evidence)
      e.AddRow().Set("finding", f.id).Set("what", ev.what).Set("value", ev.value).Set("source", ev.source);

  Table& c = r.tables.emplace_back();
  c.name = "checks";
  c.title = "Every rule";
  c.Add({.key = "rule", .label = "Rule"});
  c.Add({.key = "status", .label = "Status"});
  c.Add({.key = "detail", .label = "Measured / why not decided", .max_width = 110});
  c.Add({.key = "question", .label = "Checks", .max_width = 80});
  for (const RuleCheck& k : advice.checks) {
    const RuleDef* def = FindRule(k.id);
    c.AddRow()
        .Set("rule", k.id)
        .Set("status", std::string(RuleStatusName(k.status)))
        .Set("detail", k.detail)
        .Set("question", def ? std::string(def->title) : std::string());
  }
  r.notes.push_back(
      "ms/step at stake: what fixing a finding could win per step at most, estimated as docs/advise.md describes per "
      "rule; findings overlap (input_bound and its causes), so do not add them up. The thresholds in force: the "
      "`thresholds` table (--verbose); change one with --threshold NAME=VALUE.");
  Table& th = r.tables.emplace_back();
  th.name = "thresholds";
  th.title = "Thresholds";
  th.detail = true;
  th.Add({.key = "name", .label = "Threshold"});
  th.Add({.key = "value", .label = "Value", .type = ColumnType::kDouble, .precision = 2});
  th.Add({.key = "default", .label = "Default", .type = ColumnType::kDouble, .precision = 2});
  th.Add({.key = "meaning", .label = "Meaning", .max_width = 90});
  th.Add({.key = "source", .label = "Source", .max_width = 60});
  for (const ThresholdDef& d : ThresholdCatalogue())
    th.AddRow()
        .Set("name", std::string(d.name))
        .Set("value", options.Get(d.name))
        .Set("default", d.value)
        .Set("meaning", std::string(d.meaning))
        .Set("source", std::string(d.source));
  return r;
}

}  // namespace tfprof
