#include "lib/summary/memory_time_order_pass.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <span>
#include <string_view>
#include <thread>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "lib/model/diagnostic_kinds.h"
#include "lib/summary/memory_timeline_sampling.h"
#include "lib/summary/time_span.h"
#include "lib/util/phase_times.h"

namespace tfprof::memory_internal {
namespace {

// Each event's step in time order: the group of the event, and for events
// outside any step the step after the last one seen (0 before the first),
// so frees between steps count toward the next step.
class StepsInTimeOrder {
 public:
  // `group`: the next event's (SnapshotSource::GroupOf, WalkFields::group).
  int64_t Next(int64_t group) {
    if (group == kNoGroup) return last_ + 1;
    last_ = group;
    return group;
  }
  // Where the walk stands: resuming from it gives the steps of the events
  // after as a walk from the first event would.
  int64_t state() const { return last_; }
  void Resume(int64_t state) { last_ = state; }

 private:
  int64_t last_ = kNoGroup;
};

// Hands visit(fields) what the walk reads of each of `events`, in order
// (SnapshotReader::WalkFields: sizes, address, kind, group). Reading them
// is a few loads all over the model (records, events, groups) that need no
// order, so on a large allocator the reading runs ahead of the visits on a
// second thread, into a ring of `walk_read_ahead` + 1 blocks' buffers, in
// parts either thread may take: the walk's thread reads the next part
// itself rather than wait for its block (MemoryProfileOptions). 103 MiB:
// the walk 9.7-15.1 ms so, 19.7-22.1 ms read where walked (session 33;
// with whole snapshots read, a thread started per block kept the two CPUs
// about half idle: 1 GB about 100 ms, 132 ms read where walked).
template <class Visit>
void VisitEvents(const AllocatorEvents& events, const SnapshotSource& snapshot_of, const MemoryProfileOptions& options,
                 Visit&& visit) {
  const size_t kBlock = std::max<size_t>(options.walk_block_events, 1);
  using Read = SnapshotReader::WalkFields;
  const size_t n = events.size();
  const size_t blocks = (n + kBlock - 1) / kBlock;
  auto read = [&](size_t from, size_t to, Read* out) {
    for (size_t i = from; i < to; ++i) snapshot_of.ReadWalkInto(events[i], out[i - from]);
  };
  auto visit_all = [&](std::span<const Read> block) {
    for (const Read& r : block) visit(r);
  };
  // With fewer blocks, a thread is not worth starting.
  const size_t ahead = blocks >= 4 ? std::min(options.walk_read_ahead, blocks) : 0;
  if (ahead == 0) {
    std::vector<Read> buffer;
    for (size_t from = 0; from < n; from += kBlock) {
      buffer.resize(std::min(n, from + kBlock) - from);
      read(from, from + buffer.size(), buffer.data());
      visit_all(buffer);
    }
    return;
  }
  // Block b is read into buffer b % ring, in parts of `kPart` events; a
  // part of block b may be read once block b - ring is visited.
  const size_t ring = ahead + 1;
  const size_t kPart = std::clamp<size_t>(options.walk_part_events, 1, kBlock);
  const size_t parts_per_block = (kBlock + kPart - 1) / kPart;
  std::vector<std::vector<Read>> buffers(ring);
  for (std::vector<Read>& buffer : buffers) buffer.resize(std::min(kBlock, n));
  std::mutex mutex;
  std::condition_variable changed;
  size_t next_part = 0;  // Guarded by `mutex`, like the three below.
  size_t visited = 0;    // Blocks visited.
  bool stop = false;
  std::vector<size_t> parts_read(ring, 0);  // Per buffer, of the block it holds.
  // Part p is part p % parts_per_block of block p / parts_per_block; only
  // the last block may have fewer.
  const auto parts_of = [&](size_t b) { return (std::min(n, (b + 1) * kBlock) - b * kBlock + kPart - 1) / kPart; };
  const size_t parts = (blocks - 1) * parts_per_block + parts_of(blocks - 1);
  // Under the lock: the next part may be read now.
  const auto may_take = [&] { return next_part < parts && next_part / parts_per_block <= visited + ahead; };
  // Reads part `p` outside the lock, then counts it (the lock is held on
  // entry and on return).
  const auto read_part = [&](std::unique_lock<std::mutex>& lock, size_t p) {
    const size_t b = p / parts_per_block;
    const size_t from = b * kBlock + (p % parts_per_block) * kPart;
    lock.unlock();
    read(from, std::min({n, from + kPart, (b + 1) * kBlock}), buffers[b % ring].data() + (from - b * kBlock));
    lock.lock();
    if (++parts_read[b % ring] == parts_of(b)) changed.notify_all();
  };
  std::exception_ptr reader_error;  // Guarded by `mutex`: the walk's thread rethrows it.
  std::thread reader([&] {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      changed.wait(lock, [&] { return stop || may_take(); });
      if (stop) return;
      try {
        read_part(lock, next_part++);
      } catch (...) {
        if (!lock.owns_lock()) lock.lock();
        reader_error = std::current_exception();
        changed.notify_all();
        return;
      }
    }
  });
  struct Join {  // The reader stops and is joined however the walk leaves.
    std::thread& reader;
    std::mutex& mutex;
    std::condition_variable& changed;
    bool& stop;
    ~Join() {
      {
        std::lock_guard<std::mutex> lock(mutex);
        stop = true;
      }
      changed.notify_all();
      reader.join();
    }
  } join{reader, mutex, changed, stop};
  for (size_t b = 0; b < blocks; ++b) {
    const size_t slot = b % ring;
    {
      std::unique_lock<std::mutex> lock(mutex);
      while (parts_read[slot] < parts_of(b)) {
        if (reader_error) std::rethrow_exception(reader_error);
        if (may_take()) read_part(lock, next_part++);
        else changed.wait(lock);
      }
    }
    visit_all(std::span<const Read>(buffers[slot].data(), std::min(n, (b + 1) * kBlock) - b * kBlock));
    {
      std::lock_guard<std::mutex> lock(mutex);
      parts_read[slot] = 0;
      ++visited;
    }
    changed.notify_all();
  }
}

// The time-ordered events' steps, frees and counts in one pass, keeping the
// timeline (every point, or the points a report plots: TimelineSampler):
// - each event's step (StepsInTimeOrder);
// - a free says only its size and address: it takes the op, region, dtype
//   and shape of the allocation at that address it releases;
// - the allocations and frees, and the peak's step: the last time the
//   window peak is reached.
// Only the sizes, address, kind and group of each event are read here; the
// snapshots of the points the timeline keeps (a thousand by default) are
// read in full at the end, a free's op, region, dtype and shape from the
// allocation it released. Reading and interning every event's snapshot
// was most of the walk's work (big_20 `memory`: the profile 48.2 -> 38.2 M
// instructions).
void WalkTimeline(Collecting& c, const SnapshotSource& snapshot_of, const MemoryProfileOptions& options,
                  Diagnostics& diag) {
  AllocatorMemoryProfile& p = c.profile;
  absl::flat_hash_map<uint64_t, size_t> live;  // address -> the allocation there, by its index
  StepsInTimeOrder steps;
  TimelineSampler timeline(c.events.size(), options.timeline_points);
  // Counted here and reported once: a capture can hold a hundred thousand
  // of each (1 GB: 55 k), and only the first one's text is kept.
  struct Odd {
    uint64_t count = 0;
    uint64_t first_address = 0;
    void Add(uint64_t address) {
      if (count++ == 0) first_address = address;
    }
  } unmatched, reused;
  size_t index = 0;
  int64_t previous_step = 0;
  bool peak_step_seen = false;
  VisitEvents(c.events, snapshot_of, options, [&](const SnapshotReader::WalkFields& w) {
    TimelinePoint point;
    point.in_use = w.in_use();
    point.free_bytes = w.free_bytes;
    const int64_t state = steps.state();
    point.step = steps.Next(w.group);
    if (index == 0 || point.step != previous_step) c.step_starts.try_emplace(point.step, StepStart{index, state});
    previous_step = point.step;
    // The reference's peak step: the last event at the peak's size; with
    // first_peak, the first (the peak event itself, in time order).
    if (point.in_use == p.peak_bytes && !(options.first_peak && peak_step_seen)) {
      p.peak_step = point.step;
      peak_step_seen = true;
    }
    if (w.deallocation) {
      ++p.deallocations;
      if (auto it = live.find(w.address); it != live.end()) {
        point.released = it->second;
        live.erase(it);
      } else {
        unmatched.Add(w.address);
      }
    } else {
      ++p.allocations;
      if (!live.try_emplace(w.address, index).second) reused.Add(w.address);
    }
    timeline.Add(point);
    ++index;
  });
  // A kept free takes what its allocation says: from the timeline when it
  // keeps every point (the allocation, earlier, is there already), else
  // read again.
  const bool keeps_all = timeline.keeps_all();
  timeline.Finish(p, [&](const TimelinePoint& point) {
    MemorySnapshot s = snapshot_of(c.events[point.index]);
    s.step = point.step;
    if (point.released != TimelinePoint::kNone) {
      MemorySnapshot read_again;
      const MemorySnapshot& allocation =
          keeps_all ? p.timeline[point.released] : (read_again = snapshot_of(c.events[point.released]));
      s.op_name = allocation.op_name;
      s.region_type = allocation.region_type;
      s.data_type = allocation.data_type;
      s.shape = allocation.shape;
    }
    return s;
  });
  if (unmatched.count > 0)
    diag.AddWithMessage(diag_kind::kMemoryUnmatchedDeallocation,
                        "frees of memory allocated before the profile window (or whose allocation event is "
                        "missing); they keep their own sizes but have no op, region, dtype or shape",
                        fmt::format("{} address {}", p.memory_id, unmatched.first_address), unmatched.count);
  if (reused.count > 0)
    diag.AddWithMessage(diag_kind::kMemoryAddressReusedWithoutFree,
                        "allocations at an address whose earlier allocation was never freed in the capture; the "
                        "first one describes the next free, as in the TensorFlow Profiler",
                        fmt::format("{} address {}", p.memory_id, reused.first_address), reused.count);
}

// The breakdown at the peak: the allocations of the peak's step made up to
// the peak time and not freed by then, largest first, equal ones merged.
// Only the events of the peak's step are read again.
void ActiveAtPeak(Collecting& c, const SnapshotSource& snapshot_of, const MemoryProfileOptions& options,
                  HostMemoryProfile& host) {
  AllocatorMemoryProfile& p = c.profile;
  // Heap in use at the peak that no allocation in the window explains (made
  // before the profile started, or in an earlier step).
  int64_t unexplained = p.peak.heap_bytes;
  int64_t freed_unknown = 0;
  absl::flat_hash_map<uint64_t, size_t> live;  // address -> index in time order
  // From the peak step's first event (none: no event is of that step).
  const auto start = c.step_starts.find(p.peak_step);
  StepsInTimeOrder steps;
  if (start != c.step_starts.end()) steps.Resume(start->second.state);
  for (size_t i = start != c.step_starts.end() ? start->second.index : c.events.size(); i < c.events.size(); ++i) {
    const AllocatorEvent& r = c.events[i];
    if (r.time_ps > p.peak_time_ps) break;
    if (steps.Next(snapshot_of.GroupOf(r)) != p.peak_step) continue;
    const MemorySnapshot s = snapshot_of(r);
    if (s.activity == MemoryActivity::kAllocation) {
      // A second allocation at a live address replaces the first, which
      // then drops out of the breakdown while its bytes stay counted as
      // explained; this is the reference's accounting, kept for parity.
      live[s.address] = i;
      unexplained = SaturatingSub(unexplained, s.allocation_bytes);
    } else {
      if (!live.erase(s.address)) freed_unknown = SaturatingAdd(freed_unknown, s.allocation_bytes);
      unexplained = SaturatingAdd(unexplained, s.allocation_bytes);
    }
  }
  // Frees of allocations made before the window release memory that was
  // never counted as explained.
  unexplained = SaturatingSub(unexplained, freed_unknown);

  std::vector<ActiveAllocation> rows;
  rows.reserve(live.size() + 2);
  for (const auto& [address, i] : live) {
    const MemorySnapshot s = snapshot_of(c.events[i]);
    ActiveAllocation a;
    a.allocation_bytes = s.allocation_bytes;
    a.requested_bytes = s.requested_bytes;
    a.op_name = s.op_name;
    a.region_type = s.region_type;
    a.data_type = s.data_type;
    a.shape = s.shape;
    a.step = p.peak_step;
    a.snapshot = static_cast<int64_t>(i);
    rows.push_back(a);
  }
  // Hash order is arbitrary: start from time order so that which of several
  // equal allocations represents a merged row does not depend on it.
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.snapshot < b.snapshot; });

  auto special = [&](int64_t bytes, std::string_view name, std::string_view region) {
    ActiveAllocation a;
    a.allocation_bytes = a.requested_bytes = bytes;
    a.op_name = host.strings.Intern(name);
    a.region_type = host.strings.Intern(region);
    a.data_type = 0;
    a.shape = host.strings.Intern("unknown");
    a.step = p.peak_step;
    a.special = static_cast<int>(p.specials.size());
    p.specials.push_back(a);
    rows.push_back(a);
  };
  if (unexplained > 0) special(unexplained, options.unexplained_heap_name, "persist/dynamic");
  if (p.peak.stack_bytes > 0) special(p.peak.stack_bytes, "stack", "stack");

  // Largest allocation first, then largest request, then by name, region,
  // dtype and shape; rows equal on all of these are one row. The sizes are
  // compared the other way round, not negated: a corrupt capture's size can
  // be INT64_MIN, which has no negation.
  auto key = [&](const ActiveAllocation& a) {
    return std::make_tuple(host.Str(a.op_name), host.Str(a.region_type), DataTypeName(a.data_type), host.Str(a.shape));
  };
  // Sorted by this, a row equals the one before it when not after it.
  auto before = [&](const ActiveAllocation& a, const ActiveAllocation& b) {
    if (a.allocation_bytes != b.allocation_bytes) return a.allocation_bytes > b.allocation_bytes;
    if (a.requested_bytes != b.requested_bytes) return a.requested_bytes > b.requested_bytes;
    return key(a) < key(b);
  };
  std::stable_sort(rows.begin(), rows.end(), before);
  for (const ActiveAllocation& r : rows) {
    if (!p.active.empty() && !before(p.active.back(), r)) {
      ++p.active.back().occurrences;
      continue;
    }
    p.active.push_back(r);
  }
}

}  // namespace

void FinishInTimeOrder(Collecting& c, const SnapshotSource& snapshot_of, const MemoryProfileOptions& options,
                       HostMemoryProfile& host, Diagnostics& diag) {
  AllocatorMemoryProfile& p = c.profile;
  p.lifetime_peak_bytes = c.peaks.lifetime;
  if (c.peaks.has_peak) {
    p.peak = snapshot_of(c.peaks.peak);
    p.peak_bytes = c.peaks.peak_bytes;
    p.peak_time_ps = p.peak.time_ps;
    p.capacity_bytes = c.peaks.capacity_bytes;
  }
  // c.events are in time order, equal times in capture order
  // (CollectInCaptureOrder), so the result does not depend on how they were
  // sorted (the reference's sort is not stable).
  PhaseTimer walk_phase("memory profile: steps, frees and timeline");
  WalkTimeline(c, snapshot_of, options, diag);
  walk_phase.Stop();
  c.profile.peak.step = c.profile.peak_step;
  PhaseTimer active_phase("memory profile: active at peak");
  ActiveAtPeak(c, snapshot_of, options, host);
}

}  // namespace tfprof::memory_internal
