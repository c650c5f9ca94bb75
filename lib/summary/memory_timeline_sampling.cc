#include "lib/summary/memory_timeline_sampling.h"

#include <algorithm>
#include <iterator>
#include <numeric>
#include <string>

#include "lib/model/errors.h"

namespace tfprof {

std::vector<size_t> SampleTimeline(const std::vector<MemorySnapshot>& timeline, size_t max_points, bool legacy) {
  const size_t n = timeline.size();
  std::vector<size_t> out;
  if (n <= max_points || max_points == 0) {
    out.resize(n);
    std::iota(out.begin(), out.end(), size_t{0});
    return out;
  }
  if (legacy) {
    // The max_points snapshots with the least free memory, shown in time order.
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return timeline[a].free_bytes < timeline[b].free_bytes; });
    order.resize(max_points);
    std::sort(order.begin(), order.end());
    return order;
  }
  // max_points windows: the first `narrow` of width w, the rest of width
  // w + 1, covering the timeline exactly; each gives its highest point (the
  // first among equals).
  const size_t w = n / max_points;
  const size_t narrow = max_points * (w + 1) - n;
  out.reserve(max_points);
  size_t begin = 0;
  for (size_t box = 0; box < max_points; ++box) {
    const size_t width = box < narrow ? w : w + 1;
    size_t best = begin;
    for (size_t i = begin + 1; i < begin + width; ++i)
      if (timeline[i].in_use() > timeline[best].in_use()) best = i;
    out.push_back(best);
    begin += width;
  }
  return out;
}

namespace {

// The positions in `kept` (ascending) of `picks` (a subset of it).
std::vector<uint32_t> PositionsIn(const std::vector<size_t>& kept, const std::vector<size_t>& picks) {
  std::vector<uint32_t> out;
  out.reserve(picks.size());
  for (size_t i : picks)
    out.push_back(static_cast<uint32_t>(std::lower_bound(kept.begin(), kept.end(), i) - kept.begin()));
  return out;
}

}  // namespace

void KeepSampledTimelines(HostMemoryProfile& profile, size_t max_points) {
  for (AllocatorMemoryProfile& a : profile.allocators) {
    if (a.timeline_events || max_points == 0 || a.timeline.size() <= max_points) continue;
    const std::vector<size_t> reference = SampleTimeline(a.timeline, max_points, /*legacy=*/false);
    const std::vector<size_t> legacy = SampleTimeline(a.timeline, max_points, /*legacy=*/true);
    std::vector<size_t> kept;
    kept.reserve(reference.size() + legacy.size());
    std::set_union(reference.begin(), reference.end(), legacy.begin(), legacy.end(), std::back_inserter(kept));
    a.reference_points = PositionsIn(kept, reference);
    a.legacy_points = PositionsIn(kept, legacy);
    std::vector<MemorySnapshot> timeline;
    timeline.reserve(kept.size());
    for (size_t i : kept) timeline.push_back(a.timeline[i]);
    a.timeline_events = a.timeline.size();
    a.sampled_to = static_cast<uint32_t>(max_points);
    a.timeline = std::move(timeline);
  }
}

std::vector<size_t> AllocatorTimelinePoints(const AllocatorMemoryProfile& a, size_t max_points, bool legacy) {
  if (!a.timeline_events) return SampleTimeline(a.timeline, max_points, legacy);
  if (max_points != a.sampled_to)
    throw InputError("",
                     "this run summary keeps allocator " + a.memory_id + "'s timeline sampled to " +
                         std::to_string(a.sampled_to) + " of its " + std::to_string(a.timeline_events) +
                         " events; every event (--all-points) needs the captures, or a summary made with "
                         "`summarize --all-points`",
                     kExitUnavailable);
  const std::vector<uint32_t>& picks = legacy ? a.legacy_points : a.reference_points;
  return std::vector<size_t>(picks.begin(), picks.end());
}

TimelineSampler::TimelineSampler(size_t events, size_t max_points)
    : keep_all_(max_points == 0 || events <= max_points), events_(events), max_points_(max_points) {
  if (keep_all_) {
    all_.reserve(events);
    return;
  }
  width_ = events / max_points;
  narrow_ = max_points * (width_ + 1) - events;
  window_end_ = narrow_ > 0 ? width_ : width_ + 1;
  reference_.reserve(max_points);
  legacy_slots_.reserve(max_points);
}

void TimelineSampler::Add(TimelinePoint point) {
  const size_t i = next_++;
  point.index = i;
  if (keep_all_) {
    all_.push_back(point);
    return;
  }
  // Reference: the window's first point, then any higher one.
  if (i == window_begin_ || point.in_use > window_best_.in_use) window_best_ = point;
  if (i + 1 == window_end_) {
    reference_.push_back(window_best_);
    ++window_;
    window_begin_ = window_end_;
    window_end_ += window_ < narrow_ ? width_ : width_ + 1;
  }
  // Legacy: kept while fewer than max_points are, or when less free than
  // the most free one kept (a later index never displaces an equal one).
  const Kept candidate{point.free_bytes, i, 0};
  if (legacy_.size() < max_points_) {
    legacy_slots_.push_back(point);
    legacy_.push(Kept{point.free_bytes, i, legacy_slots_.size() - 1});
  } else if (candidate < legacy_.top()) {
    const size_t slot = legacy_.top().slot;
    legacy_.pop();
    legacy_slots_[slot] = point;
    legacy_.push(Kept{point.free_bytes, i, slot});
  }
}

std::vector<TimelinePoint> TimelineSampler::KeptPoints(AllocatorMemoryProfile& p) {
  if (keep_all_) return std::move(all_);
  std::vector<Kept> legacy;
  legacy.reserve(legacy_.size());
  for (; !legacy_.empty(); legacy_.pop()) legacy.push_back(legacy_.top());
  std::sort(legacy.begin(), legacy.end(), [](const Kept& a, const Kept& b) { return a.index < b.index; });
  std::vector<size_t> reference_picks, legacy_picks, kept;
  for (const TimelinePoint& point : reference_) reference_picks.push_back(point.index);
  for (const Kept& k : legacy) legacy_picks.push_back(k.index);
  std::set_union(reference_picks.begin(), reference_picks.end(), legacy_picks.begin(), legacy_picks.end(),
                 std::back_inserter(kept));
  std::vector<TimelinePoint> out;
  out.reserve(kept.size());
  // Both pick lists ascend: merged, each index once, the point from
  // whichever list has it (the same point).
  size_t r = 0, l = 0;
  for (size_t i : kept) {
    const bool in_reference = r < reference_.size() && reference_[r].index == i;
    out.push_back(in_reference ? reference_[r] : legacy_slots_[legacy[l].slot]);
    if (in_reference) ++r;
    if (l < legacy.size() && legacy[l].index == i) ++l;
  }
  p.reference_points = PositionsIn(kept, reference_picks);
  p.legacy_points = PositionsIn(kept, legacy_picks);
  p.timeline_events = events_;
  p.sampled_to = static_cast<uint32_t>(max_points_);
  return out;
}

}  // namespace tfprof
