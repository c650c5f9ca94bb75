// Internal to the memory profile: the timeline cut down to the points a
// report plots, met one point at a time. What SampleTimeline and
// KeepSampledTimelines (memory_events_to_profile.h) do to a whole
// timeline, without ever holding it: a capture's allocators can log
// millions of events, and a report shows a thousand points; only the
// points kept are made snapshots.
#pragma once

#include <cstddef>
#include <cstdint>
#include <queue>
#include <vector>

#include "lib/summary/memory_events_to_profile.h"

namespace tfprof {

// A point of the timeline as the walk meets it: what the two samplings
// compare, and what makes its snapshot again if it is kept (its place in
// time order, its step, and for a free the allocation it releases).
struct TimelinePoint {
  static constexpr size_t kNone = SIZE_MAX;
  size_t index = 0;    // Set by TimelineSampler::Add: the order points are given in.
  int64_t in_use = 0;  // stack + heap
  int64_t free_bytes = 0;
  int64_t step = 0;
  size_t released = kNone;  // A free's allocation, by its index in time order.
};

class TimelineSampler {
 public:
  // `events`: how many points Add will be given; `max_points` as
  // MemoryProfileOptions::timeline_points (0: keep every point).
  TimelineSampler(size_t events, size_t max_points);

  // The next point in time order (its index set here).
  void Add(TimelinePoint point);
  // Every point is kept (no sampling).
  bool keeps_all() const { return keep_all_; }

  // Sets p's timeline as KeepSampledTimelines leaves a whole one: every
  // snapshot when there are at most max_points (or max_points is 0), else
  // the union of the two samplings' picks in time order, with their
  // positions in it, timeline_events and sampled_to. make(point) makes a
  // kept point's snapshot, in time order.
  template <class Make>
  void Finish(AllocatorMemoryProfile& p, Make&& make) {
    const std::vector<TimelinePoint> kept = KeptPoints(p);
    p.timeline.clear();
    p.timeline.reserve(kept.size());
    for (const TimelinePoint& point : kept) p.timeline.push_back(make(point));
  }

 private:
  // The points kept, in time order; sets p's fields but the timeline.
  std::vector<TimelinePoint> KeptPoints(AllocatorMemoryProfile& p);

  bool keep_all_;
  size_t events_, max_points_;
  size_t next_ = 0;  // Index of the next point Add is given.
  std::vector<TimelinePoint> all_;

  // Reference: max_points windows covering the timeline, the first
  // `narrow_` of width_ events and the rest one wider; each keeps its
  // highest point (stack + heap), the first among equals.
  size_t width_ = 0, narrow_ = 0, window_ = 0, window_begin_ = 0, window_end_ = 0;
  TimelinePoint window_best_;
  std::vector<TimelinePoint> reference_;

  // Legacy: the max_points points with the least free memory, the
  // earliest among equals (a stable sort's first max_points): a max-heap of
  // (free bytes, index) holding the ones kept, their points in slots.
  struct Kept {
    int64_t free_bytes;
    size_t index;
    size_t slot;
    bool operator<(const Kept& o) const {
      return free_bytes != o.free_bytes ? free_bytes < o.free_bytes : index < o.index;
    }
  };
  std::priority_queue<Kept> legacy_;
  std::vector<TimelinePoint> legacy_slots_;
};

}  // namespace tfprof
