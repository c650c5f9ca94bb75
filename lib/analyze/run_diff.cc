#include "lib/analyze/run_diff.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include "fmt/format.h"
#include "lib/analyze/tf_stats_report.h"

namespace tfprof {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

struct Side {
  std::string detail;
  double us = 0;
  uint64_t count = 0;
};
using Key = std::pair<std::string, std::string>;  // (side, name) or (kernel, op)

// Pairs rows by key; rows only in BASE are removed, only in NEW added.
RowDiff Compare(const std::map<Key, Side>& base, const std::map<Key, Side>& next, bool kernels) {
  RowDiff out;
  auto add = [&](const Key& k, const Side* b, const Side* n) {
    RowDelta d;
    if (kernels) {
      d.name = k.first;
      d.detail = k.second;
    } else {
      d.side = k.first;
      d.name = k.second;
      d.detail = (n ? n : b)->detail;
    }
    d.base_us = b ? b->us : 0;
    d.next_us = n ? n->us : 0;
    d.base_count = b ? b->count : 0;
    d.next_count = n ? n->count : 0;
    if (!b) d.change = RowChange::kAdded;
    else if (!n) d.change = RowChange::kRemoved;
    else if (d.next_us == d.base_us) {
      ++out.unchanged;
      return;
    } else d.change = d.next_us > d.base_us ? RowChange::kGrown : RowChange::kShrunk;
    out.rows.push_back(std::move(d));
  };
  for (const auto& [k, b] : base) {
    auto it = next.find(k);
    add(k, &b, it == next.end() ? nullptr : &it->second);
  }
  for (const auto& [k, n] : next)
    if (!base.count(k)) add(k, nullptr, &n);
  // Largest change first; ties (e.g. two ops both removed with equal time)
  // by side and name, so the order is stable across platforms.
  std::stable_sort(out.rows.begin(), out.rows.end(), [](const RowDelta& a, const RowDelta& b) {
    const double da = std::fabs(a.delta_us()), db = std::fabs(b.delta_us());
    if (da != db) return da > db;
    if (a.side != b.side) return a.side < b.side;
    if (a.name != b.name) return a.name < b.name;
    return a.detail < b.detail;
  });
  return out;
}

std::map<Key, Side> OpRows(const HostSummary& s, const AnalysisOptions& options) {
  TfStatsOptions o;
  o.analysis = options;
  o.with_idle = false;
  o.top = std::numeric_limits<size_t>::max();  // Every row, not the reference's 500.
  std::map<Key, Side> rows;
  for (const TfStatsRecord& r : BuildTfStatsRecords(s, o)) {
    if (r.op_name == kIdleOp) continue;
    Side& side = rows[{r.on_device ? "device" : "host", r.op_name}];
    side.detail = r.op_type;
    side.us += r.total_self_time_us;
    side.count += r.occurrences;
  }
  return rows;
}

std::map<Key, Side> KernelRows(const HostSummary& s) {
  std::map<Key, Side> rows;
  for (const KernelReport& r : s.kernels.Sorted(0)) {
    Side& side = rows[{r.name, r.op_name}];
    side.us += static_cast<double>(r.total_ns) / 1000.0;
    side.count += r.occurrences;
  }
  return rows;
}

bool Holds(double v, RuleOp op, double t) {
  switch (op) {
    case RuleOp::kGt: return v > t;
    case RuleOp::kGe: return v >= t;
    case RuleOp::kLt: return v < t;
    case RuleOp::kLe: return v <= t;
    default: return false;
  }
}

}  // namespace

double MetricDelta::delta() const { return base && next ? *next - *base : kNan; }

double MetricDelta::delta_percent() const {
  if (!base || !next) return kNan;
  if (*base == 0) return *next == 0 ? 0.0 : (*next > 0 ? kInf : -kInf);
  return 100.0 * (*next - *base) / std::fabs(*base);
}

std::vector<MetricDelta> DiffMetrics(const RunAnalysis& base, const RunAnalysis& next) {
  std::vector<MetricDelta> out;
  for (const Metric& m : base.metrics) out.push_back({m.name, m.def, m.value, std::nullopt});
  size_t pos = 0;
  for (const Metric& m : next.metrics) {
    auto it = std::find_if(out.begin(), out.end(), [&](const MetricDelta& d) { return d.name == m.name; });
    if (it != out.end()) {
      it->next = m.value;
      pos = static_cast<size_t>(it - out.begin()) + 1;
    } else {
      out.insert(out.begin() + static_cast<std::ptrdiff_t>(pos), MetricDelta{m.name, m.def, std::nullopt, m.value});
      ++pos;
    }
  }
  return out;
}

std::string_view RowChangeName(RowChange c) {
  switch (c) {
    case RowChange::kAdded: return "added";
    case RowChange::kRemoved: return "removed";
    case RowChange::kGrown: return "grown";
    case RowChange::kShrunk: return "shrunk";
  }
  return "?";
}

RowDiff DiffOpRows(const HostSummary& base, const HostSummary& next, const AnalysisOptions& options) {
  return Compare(OpRows(base, options), OpRows(next, options), /*kernels=*/false);
}

RowDiff DiffKernelRows(const HostSummary& base, const HostSummary& next) {
  return Compare(KernelRows(base), KernelRows(next), /*kernels=*/true);
}

DeltaCondition ParseDeltaCondition(std::string_view text) {
  const std::string context = fmt::format("--fail-if '{}'", text);
  const std::string usage =
      context +
      ": expected METRIC OP CHANGE with OP one of > >= < <= and CHANGE a signed number, '%' for a relative "
      "change (e.g. 'overview.step_time_ms.avg>+5%', 'overview.input_percent>+2')";
  const size_t at = text.find_first_of("<>");
  if (at == std::string_view::npos) throw std::invalid_argument(usage);
  DeltaCondition c;
  c.metric = std::string(Trim(text.substr(0, at)));
  const bool eq = at + 1 < text.size() && text[at + 1] == '=';
  c.op = text[at] == '>' ? (eq ? RuleOp::kGe : RuleOp::kGt) : (eq ? RuleOp::kLe : RuleOp::kLt);
  std::string_view amount = Trim(text.substr(at + (eq ? 2 : 1)));
  if (c.metric.empty() || c.metric.find_first_of(" \t") != std::string::npos || amount.empty())
    throw std::invalid_argument(usage);
  ValidateMetricName(c.metric, "--fail-if");
  c.relative = amount.back() == '%';
  if (c.relative) amount = Trim(amount.substr(0, amount.size() - 1));
  // Only a plain signed number: unit suffixes would make "5%" and "5MiB"
  // ambiguous between a relative and an absolute change.
  if (!amount.empty() && (std::isalpha(static_cast<unsigned char>(amount.back())) || amount.back() == '%'))
    throw std::invalid_argument(usage);
  c.amount = ParseThreshold(amount, context);
  c.text = fmt::format("{} {} {}{}", c.metric, RuleOpText(c.op), SignedValue(c.amount, ""), c.relative ? "%" : "");
  return c;
}

std::vector<CheckOutcome> EvaluateDeltaConditions(const std::vector<DeltaCondition>& conditions,
                                                  const std::vector<MetricDelta>& deltas, const RunAnalysis& base,
                                                  const RunAnalysis& next, MissingPolicy missing) {
  std::vector<CheckOutcome> out;
  for (const DeltaCondition& c : conditions) {
    CheckOutcome o;
    o.name = c.text;
    o.metric = c.metric;
    o.origin = "--fail-if";
    auto it = std::find_if(deltas.begin(), deltas.end(), [&](const MetricDelta& d) { return d.name == c.metric; });
    const std::string_view unit = FindMetricDef(c.metric)->unit;
    if (it == deltas.end() || !it->base || !it->next) {
      o.missing = true;
      o.status = missing == MissingPolicy::kSkip ? OutcomeStatus::kSkip : OutcomeStatus::kFail;
      const bool in_base = it != deltas.end() && it->base, in_next = it != deltas.end() && it->next;
      o.message = fmt::format("{} {}", c.metric,
                              !in_base && !in_next ? "is in neither run"
                              : !in_base           ? "is not in BASE: " + MissingReason(base, c.metric)
                                                   : "is not in NEW: " + MissingReason(next, c.metric));
    } else {
      const double change = c.relative ? it->delta_percent() : it->delta();
      o.actual = change;
      // The condition describes a regression: when it holds, the check fails.
      const bool regressed = Holds(change, c.op, c.amount);
      o.status = regressed ? OutcomeStatus::kFail : OutcomeStatus::kPass;
      const std::string suffix = c.relative ? "%" : " " + std::string(DeltaUnit(unit));
      o.message =
          fmt::format("{} {} -> {} {} ({}{}){}", c.metric, FormatMetricValue(*it->base, unit),
                      FormatMetricValue(*it->next, unit), unit, SignedValue(change, c.relative ? "" : unit), suffix,
                      regressed ? fmt::format(", {} {}{}", RuleOpText(c.op), SignedValue(c.amount, ""), suffix) : "");
    }
    out.push_back(std::move(o));
  }
  return out;
}

std::string_view DeltaUnit(std::string_view unit) { return unit == "%" ? "points" : unit; }

std::string SignedValue(double value, std::string_view unit) {
  if (std::isnan(value)) return "n/a";
  std::string s = FormatMetricValue(value, unit);
  return value > 0 || (value == 0 && s == "0") ? "+" + s : s;
}

}  // namespace tfprof
