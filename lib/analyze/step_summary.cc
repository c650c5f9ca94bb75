#include "lib/analyze/step_summary.h"

#include <algorithm>
#include <cmath>

namespace tfprof {

Stats Summarize(const std::vector<double>& v) {
  Stats s;
  s.count = v.size();
  if (v.empty()) return s;
  double sum = 0, sum_sq = 0;
  s.min = s.max = v[0];
  for (double x : v) {
    sum += x;
    sum_sq += x * x;
    s.min = std::min(s.min, x);
    s.max = std::max(s.max, x);
  }
  const double n = static_cast<double>(v.size());
  s.avg = sum / n;
  if (v.size() > 1 && s.min != s.max) s.stddev = std::sqrt(std::max(0.0, (sum_sq - sum * sum / n) / (n - 1)));
  return s;
}

StepSummary SummarizeSteps(const StepDb& db) {
  StepSummary out;
  out.has_device = db.has_device;
  out.compute_16bit_ps = db.compute_16bit_ps;
  out.compute_32bit_ps = db.compute_32bit_ps;
  out.no_steps_reason = db.no_steps_reason;
  out.intersection_note = db.intersection_note;
  out.note = db.note;
  std::vector<double> step_ms, input_pct, h2d;
  std::array<std::vector<double>, kCategories> cat_ms;
  std::array<double, kCategories> cat_total{};
  double step_total = 0;
  int64_t index = 0;
  for (const StepRecord& s : db.steps) {
    StepRow r;
    r.name = s.name;
    r.number = StepNumber(s, static_cast<size_t>(index));
    ++index;
    r.host = s.host;
    r.step_time_ms = static_cast<double>(s.duration_ps) / 1e9;
    auto cats = CategoriesOf(s.type_ps);
    for (size_t c = 0; c < kCategories; ++c) {
      r.category_ms[c] = static_cast<double>(cats[c]) / 1e9;
      cat_ms[c].push_back(r.category_ms[c]);
      cat_total[c] += r.category_ms[c];
    }
    r.host_to_device_ms = static_cast<double>(s.type_ps[static_cast<size_t>(EventType::kHostToDevice)] +
                                              s.type_ps[static_cast<size_t>(EventType::kDeviceWaitHost)]) /
                          1e9;
    h2d.push_back(r.host_to_device_ms);
    const double input = r.category_ms[static_cast<size_t>(Category::kInput)];
    r.input_percent = r.step_time_ms > 0 ? 100.0 * input / r.step_time_ms : 0.0;
    // Over several hosts a step takes as long as its slowest host.
    step_ms.push_back(static_cast<double>(s.max_duration_ps) / 1e9);
    input_pct.push_back(r.input_percent);
    step_total += r.step_time_ms;
    out.rows.push_back(std::move(r));
  }
  out.step_time_ms = Summarize(step_ms);
  out.input_percent = Summarize(input_pct);
  out.host_to_device_ms = Summarize(h2d);
  for (size_t c = 0; c < kCategories; ++c) {
    out.category_ms[c] = Summarize(cat_ms[c]);
    out.category_percent[c] = step_total > 0 ? 100.0 * cat_total[c] / step_total : 0.0;
  }
  return out;
}

}  // namespace tfprof
