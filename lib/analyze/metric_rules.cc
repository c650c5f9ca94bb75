#include "lib/analyze/metric_rules.h"

#include <charconv>
#include <cmath>
#include <stdexcept>

#include "fmt/format.h"

namespace tfprof {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// The operators, longest first so "<=" is not read as "<".
struct OpSpelling {
  std::string_view text;
  RuleOp op;
};
constexpr OpSpelling kOps[] = {{"<=", RuleOp::kLe}, {">=", RuleOp::kGe}, {"==", RuleOp::kEq},
                               {"!=", RuleOp::kNe}, {"<", RuleOp::kLt},  {">", RuleOp::kGt}};

bool Holds(double v, RuleOp op, double t) {
  switch (op) {
    case RuleOp::kLe: return v <= t;
    case RuleOp::kLt: return v < t;
    case RuleOp::kGe: return v >= t;
    case RuleOp::kGt: return v > t;
    case RuleOp::kEq: return v == t;
    case RuleOp::kNe: return v != t;
  }
  return false;
}

MetricRule MakeRule(std::string metric, RuleOp op, double threshold, std::string_view threshold_text, bool optional,
                    std::string origin) {
  MetricRule r;
  r.metric = std::move(metric);
  r.op = op;
  r.threshold = threshold;
  r.optional = optional;
  r.text = fmt::format("{}{} {} {}", optional ? "optional " : "", r.metric, RuleOpText(op), Trim(threshold_text));
  r.origin = std::move(origin);
  ValidateMetricName(r.metric, r.origin);
  return r;
}

}  // namespace

std::string_view RuleOpText(RuleOp op) {
  for (const OpSpelling& s : kOps)
    if (s.op == op) return s.text;
  return "?";
}

std::string_view OutcomeStatusName(OutcomeStatus s) {
  switch (s) {
    case OutcomeStatus::kPass: return "pass";
    case OutcomeStatus::kFail: return "FAIL";
    case OutcomeStatus::kSkip: return "skip";
  }
  return "?";
}

double ParseThreshold(std::string_view text, const std::string& context) {
  std::string_view s = Trim(text);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);  // from_chars takes no '+'.
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range)
    throw std::invalid_argument(fmt::format("{}: '{}' is out of range for a number", context, Trim(text)));
  if (ec != std::errc() || end == s.data() || !std::isfinite(v))  // from_chars also reads "inf" and "nan".
    throw std::invalid_argument(fmt::format("{}: '{}' is not a number", context, Trim(text)));
  std::string_view suffix = Trim(std::string_view(end, s.data() + s.size() - end));
  struct Scale {
    std::string_view suffix;
    double factor;
  };
  static constexpr Scale kScales[] = {
      {"", 1},     {"%", 1},    {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
      {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9},     {"TB", 1e12}};
  for (const Scale& sc : kScales) {
    if (suffix != sc.suffix) continue;
    // 1e308GiB is a finite number times a unit, but no finite threshold.
    if (!std::isfinite(v * sc.factor))
      throw std::invalid_argument(fmt::format("{}: '{}' is out of range for a number", context, Trim(text)));
    return v * sc.factor;
  }
  throw std::invalid_argument(fmt::format("{}: unknown unit '{}' in '{}' (use %, KiB, MiB, GiB, TiB, KB, MB, GB or TB)",
                                          context, suffix, Trim(text)));
}

MetricRule ParseBoundFlag(std::string_view arg, bool is_max) {
  const std::string flag = is_max ? "--max" : "--min";
  const size_t eq = arg.find('=');
  if (eq == std::string_view::npos || Trim(arg.substr(0, eq)).empty())
    throw std::invalid_argument(
        fmt::format("{} {}: expected METRIC=VALUE, e.g. {} overview.input_percent=20", flag, arg, flag));
  const std::string metric(Trim(arg.substr(0, eq)));
  const std::string_view value = arg.substr(eq + 1);
  return MakeRule(metric, is_max ? RuleOp::kLe : RuleOp::kGe, ParseThreshold(value, flag + " " + metric), value, false,
                  flag);
}

std::vector<MetricRule> ParseRules(std::string_view text, const std::string& source) {
  std::vector<MetricRule> rules;
  // Editors on Windows start UTF-8 files with a byte order mark.
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  size_t line_no = 0;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++line_no;
    if (const size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = Trim(line);
    if (line.empty()) continue;
    const std::string where = fmt::format("{}:{}", source, line_no);
    bool optional = false;
    if (line.substr(0, 9) == "optional " || line.substr(0, 9) == "optional\t") {
      optional = true;
      line = Trim(line.substr(9));
    }
    const size_t at = line.find_first_of("<>=!");
    if (at == std::string_view::npos)
      throw std::invalid_argument(
          fmt::format("{}: expected 'METRIC OP VALUE' (OP: <=, <, >=, >, ==, !=), got '{}'", where, line));
    const OpSpelling* op = nullptr;
    for (const OpSpelling& s : kOps)
      if (line.substr(at, s.text.size()) == s.text) {
        op = &s;
        break;
      }
    const std::string metric(Trim(line.substr(0, at)));
    if (!op || metric.empty() || metric.find_first_of(" \t") != std::string::npos)
      throw std::invalid_argument(
          fmt::format("{}: expected 'METRIC OP VALUE' (OP: <=, <, >=, >, ==, !=), got '{}'", where, line));
    const std::string_view value = line.substr(at + op->text.size());
    rules.push_back(MakeRule(metric, op->op, ParseThreshold(value, where), value, optional, where));
  }
  return rules;
}

void ValidateMetricName(const std::string& metric, const std::string& origin) {
  if (FindMetricDef(metric)) return;
  throw std::invalid_argument(
      fmt::format("{}: unknown metric '{}' (docs/metrics.md lists them; `tfprof-analyze metrics "
                  "PATH` prints a capture's)",
                  origin, metric));
}

std::string FormatMetricValue(double value, std::string_view unit) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (IsIntegerUnit(unit) && value == std::floor(value)) return fmt::format("{:.0f}", value);
  std::string s = fmt::format("{:.3f}", value);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

std::string MissingReason(const RunAnalysis& run, const std::string& metric) {
  const std::string note = run.AbsentNote(metric);
  return note.empty() ? "not in this capture" : "not in this capture (" + note + ")";
}

std::vector<CheckOutcome> EvaluateRules(const std::vector<MetricRule>& rules, const RunAnalysis& run,
                                        MissingPolicy missing) {
  std::vector<CheckOutcome> out;
  for (const MetricRule& r : rules) {
    CheckOutcome o;
    o.name = r.text;
    o.metric = r.metric;
    o.origin = r.origin;
    const Metric* m = run.Find(r.metric);
    const std::string_view unit = FindMetricDef(r.metric)->unit;
    if (!m) {
      o.missing = true;
      o.status = r.optional || missing == MissingPolicy::kSkip ? OutcomeStatus::kSkip : OutcomeStatus::kFail;
      o.message = MissingReason(run, r.metric);
    } else {
      o.actual = m->value;
      const bool ok = Holds(m->value, r.op, r.threshold);
      o.status = ok ? OutcomeStatus::kPass : OutcomeStatus::kFail;
      o.message =
          fmt::format("{} = {} {}{}", r.metric, FormatMetricValue(m->value, unit), unit,
                      ok ? "" : fmt::format(", not {} {}", RuleOpText(r.op), FormatMetricValue(r.threshold, unit)));
    }
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace tfprof
