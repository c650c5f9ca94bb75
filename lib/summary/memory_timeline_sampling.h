// Internal to the memory profile: the timeline cut down to the points a
// report plots, met one snapshot at a time. What SampleTimeline and
// KeepSampledTimelines (memory_events_to_profile.h) do to a whole
// timeline, without ever holding it: a capture's allocators can log
// millions of events, and a report shows a thousand points.
#pragma once

#include <cstddef>
#include <cstdint>
#include <queue>
#include <vector>

#include "lib/summary/memory_events_to_profile.h"

namespace tfprof {

class TimelineSampler {
 public:
  // `events`: how many snapshots Add will be given; `max_points` as
  // MemoryProfileOptions::timeline_points (0: keep every snapshot).
  TimelineSampler(size_t events, size_t max_points);

  // The next snapshot in time order, final (step and a free's fields set).
  void Add(const MemorySnapshot& s);

  // Sets p's timeline as KeepSampledTimelines leaves a whole one: every
  // snapshot when there are at most max_points (or max_points is 0), else
  // the union of the two samplings' picks in time order, with their
  // positions in it, timeline_events and sampled_to.
  void Finish(AllocatorMemoryProfile& p);

 private:
  bool keep_all_;
  size_t events_, max_points_;
  size_t next_ = 0;  // Index of the next snapshot Add is given.
  std::vector<MemorySnapshot> all_;

  // Reference: max_points windows covering the timeline, the first
  // `narrow_` of width_ events and the rest one wider; each keeps its
  // highest point (stack + heap), the first among equals.
  size_t width_ = 0, narrow_ = 0, window_ = 0, window_begin_ = 0, window_end_ = 0;
  MemorySnapshot window_best_;
  size_t window_best_index_ = 0;
  std::vector<std::pair<size_t, MemorySnapshot>> reference_;

  // Legacy: the max_points snapshots with the least free memory, the
  // earliest among equals (a stable sort's first max_points): a max-heap of
  // (free bytes, index) holding the ones kept, their snapshots in slots.
  struct Kept {
    int64_t free_bytes;
    size_t index;
    size_t slot;
    bool operator<(const Kept& o) const {
      return free_bytes != o.free_bytes ? free_bytes < o.free_bytes : index < o.index;
    }
  };
  std::priority_queue<Kept> legacy_;
  std::vector<MemorySnapshot> legacy_slots_;
};

}  // namespace tfprof
