// Combining the step databases of a run's hosts (CombineHostSteps in
// planes_to_step_db.h): the chief host, the index offset that aligns each
// other host's steps with it, and the steps all hosts ran.
#include <algorithm>
#include <string>
#include <vector>

#include "lib/summary/planes_to_step_db.h"

namespace tfprof {
namespace {

// A step's span on a clock shared by the hosts (their own time origins).
struct AbsSpan {
  __int128 begin, end;
};

__int128 Overlap(const AbsSpan& a, const AbsSpan& b) {
  __int128 lo = std::max(a.begin, b.begin), hi = std::min(a.end, b.end);
  return hi > lo ? hi - lo : 0;
}

std::vector<AbsSpan> Spans(const StepDb& db) {
  std::vector<AbsSpan> out;
  for (const StepRecord& s : db.steps) {
    __int128 b = static_cast<__int128>(db.origin_ns) * 1000 + s.begin_ps;
    out.push_back({b, b + static_cast<__int128>(s.duration_ps)});
  }
  return out;
}

}  // namespace

StepDb CombineHostSteps(std::vector<StepDb> hosts, const AnalysisOptions& options) {
  if (hosts.empty()) return {};
  for (StepDb& h : hosts) {
    for (StepRecord& s : h.steps) s.max_duration_ps = s.duration_ps;
    // Like the reference, drop the first and the last step when there are
    // more than five: the profile window usually cuts them.
    if (h.steps.size() > 5 && !h.whole_steps) {
      h.steps.pop_back();
      h.steps.erase(h.steps.begin());
      h.dropped_steps += 2;
    }
  }
  if (hosts.size() == 1) return std::move(hosts[0]);
  bool any_device = false;
  for (const StepDb& h : hosts) any_device = any_device || h.has_device;
  StepDb out;
  out.has_device = any_device;
  std::vector<StepDb> kept;
  for (StepDb& h : hosts) {
    out.compute_16bit_ps += h.compute_16bit_ps;
    out.compute_32bit_ps += h.compute_32bit_ps;
    out.dropped_steps += h.dropped_steps;
    out.hosts.insert(out.hosts.end(), h.hosts.begin(), h.hosts.end());
    if (out.note.empty()) out.note = h.note;
    if (any_device && !h.has_device) continue;  // A coordinator.
    kept.push_back(std::move(h));
  }
  // The chief: the host whose steps span the least time.
  size_t chief = 0;
  __int128 chief_span = -1;
  std::vector<std::vector<AbsSpan>> spans;
  for (size_t i = 0; i < kept.size(); ++i) {
    spans.push_back(Spans(kept[i]));
    __int128 span = spans[i].empty() ? 0 : spans[i].back().end - spans[i].front().begin;
    if (chief_span < 0 || span < chief_span) {
      chief = i;
      chief_span = span;
    }
  }
  const int64_t n_chief = static_cast<int64_t>(spans[chief].size());
  // Each host's alignment: its first step and the chief step it matches.
  std::vector<int64_t> begin_host(kept.size(), 0), begin_chief(kept.size(), 0);
  int64_t first = 0, last = n_chief;
  std::vector<std::string> unmatched;
  for (size_t h = 0; h < kept.size(); ++h) {
    int64_t count = n_chief;
    if (h != chief) {
      const int64_t n = static_cast<int64_t>(spans[h].size());
      // Overlap of the steps paired at each offset k = chief index - host
      // index, walking both sequences in time order.
      std::vector<__int128> similarity(static_cast<size_t>(std::max<int64_t>(1, n + n_chief - 1)), 0);
      for (int64_t a = 0, c = 0; a < n && c < n_chief;) {
        const AbsSpan& x = spans[h][a];
        const AbsSpan& y = spans[chief][c];
        similarity[static_cast<size_t>(c - a + n - 1)] += Overlap(x, y);
        if (x.end < y.end) ++a;
        else if (y.end < x.end) ++c;
        else ++a, ++c;
      }
      int64_t best = 0;
      __int128 best_score = -1;
      for (int64_t k = 0; k < n_chief; ++k)
        if (similarity[static_cast<size_t>(k + n - 1)] > best_score)
          best = k, best_score = similarity[static_cast<size_t>(k + n - 1)];
      for (int64_t k = -1; k >= -(n - 1); --k)
        if (similarity[static_cast<size_t>(k + n - 1)] > best_score)
          best = k, best_score = similarity[static_cast<size_t>(k + n - 1)];
      if (best_score <= 0) unmatched.push_back(kept[h].hosts.empty() ? "?" : kept[h].hosts[0]);
      begin_host[h] = best >= 0 ? 0 : -best;
      begin_chief[h] = best >= 0 ? best : 0;
      count = std::min(n - begin_host[h], n_chief - begin_chief[h]);
    }
    first = std::max(first, begin_chief[h]);
    last = std::min(last, begin_chief[h] + count);
  }
  if (first >= last) {
    out.no_steps_reason = "steps were found on the hosts, but no step is common to all of them";
    return out;
  }
  // The reference reads the first host's breakdown and takes each step's
  // time as its slowest host's, so its rows do not add up to its step time;
  // by default a step is its slowest host's, time and breakdown alike.
  const bool reference = options.compat != Compat::kDefault;
  for (int64_t i = first; i < last; ++i) {
    auto step_of = [&](size_t h) -> const StepRecord& {
      return kept[h].steps[static_cast<size_t>(begin_host[h] + (i - begin_chief[h]))];
    };
    size_t slowest = 0;
    for (size_t h = 1; h < kept.size(); ++h)
      if (step_of(h).duration_ps > step_of(slowest).duration_ps) slowest = h;
    StepRecord r = step_of(reference ? 0 : slowest);
    r.max_duration_ps = step_of(slowest).duration_ps;
    // Hosts number their steps apart ("train 47" on one is "train 48" on
    // another): the first host's names, as the reference shows them.
    r.name = step_of(0).name;
    r.group_id = step_of(0).group_id;
    out.steps.push_back(std::move(r));
  }
  out.intersection_note =
      std::to_string(last - first) + " steps common to " + std::to_string(kept.size()) +
      (reference ? " hosts; breakdowns are the first host's, step-time statistics take the slowest host's time of "
                   "each step, as the TensorFlow Profiler does"
                 : " hosts; each step is its slowest host's (step time and breakdown alike; the steps table names "
                   "the host)");
  if (!unmatched.empty()) {
    std::string names;
    for (const std::string& u : unmatched) names += (names.empty() ? "" : ", ") + u;
    out.intersection_note +=
        "; the steps of " + names + " overlap none of the chief host's steps in time, so they were aligned by position";
  }
  return out;
}

}  // namespace tfprof
