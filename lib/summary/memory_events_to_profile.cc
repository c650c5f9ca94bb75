#include "lib/summary/memory_events_to_profile.h"

#include <algorithm>
#include <array>
#include <condition_variable>
#include <exception>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <thread>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "lib/model/diagnostic_kinds.h"
#include "lib/model/errors.h"
#include "lib/model/xplane_schema.h"
#include "lib/summary/event_grouping.h"
#include "lib/summary/kineto_memory_events_to_profile.h"
#include "lib/summary/memory_timeline_sampling.h"
#include "lib/summary/time_span.h"
#include "lib/util/parallel_for.h"
#include "lib/util/phase_times.h"

namespace tfprof {
namespace {

// Allocator sizes are int64 in the capture; a corrupt capture must not make
// a sum overflow (undefined behaviour), so sums saturate (time_span.h).

// The profile's own ids of the capture's strings (op, region, shape), made
// as the passes in time order meet them, on one thread: looked up by the
// capture's id (dense, from 0) in a table, not a hash map, as this runs for
// three stats of every allocation. The table takes 4 bytes per capture
// string, far less than the string pool itself.
class ProfileStrings {
 public:
  ProfileStrings(const Host& host, HostMemoryProfile& out) : host_(host), out_(out) {}

  // The profile's id of the capture's string `id` (as SnapshotReader::Read
  // keeps it).
  StringId Intern(StringId id) {
    // Not an id of the capture's pool (no reader makes one): as its text,
    // empty.
    if (id >= host_.strings.size()) return StringPool::kEmpty;
    if (interned_.empty()) interned_.assign(host_.strings.size(), kNotInterned);
    StringId& ours = interned_[id];
    if (ours == kNotInterned) ours = out_.strings.Intern(host_.Str(id));
    return ours;
  }

 private:
  const Host& host_;
  HostMemoryProfile& out_;
  static constexpr StringId kNotInterned = std::numeric_limits<StringId>::max();
  std::vector<StringId> interned_;  // Per capture string id: ours, or kNotInterned.
};

// Reads allocator events' stats, kept as records by the reader or as
// generic stats (lib/model/allocator_stats.h: one set of rules for both);
// changes nothing, so the capture-order pass reads on several threads.
class SnapshotReader {
 public:
  SnapshotReader(const Host& host, const Plane& plane, const MemoryProfileOptions& options)
      : host_(host), strict_(options.strict_stat_types) {
    fields_.reserve(plane.stat_metadata.size());
    for (const StatMetadata& m : plane.stat_metadata) fields_.push_back(AllocatorFieldOf(host.Str(m.name)));
  }

  // Which allocator an event names, without making its text: the last
  // allocator_name (a string id) or device index (a number) in stored order.
  struct MemoryKey {
    bool is_index = false;
    int64_t value = StringPool::kEmpty;
    bool operator==(const MemoryKey& o) const { return is_index == o.is_index && value == o.value; }
    template <class H>
    friend H AbslHashValue(H h, const MemoryKey& k) {
      return H::combine(std::move(h), k.is_index, k.value);
    }
  };
  std::string IdOf(const MemoryKey& key) const {
    return key.is_index ? std::to_string(key.value) : std::string(host_.Str(static_cast<StringId>(key.value)));
  }

  // An event's generic stats as a record, in stored order (a repeated
  // stat: the last wins, as in the reference).
  AllocatorStats Gather(std::span<const Stat> stats) const {
    AllocatorStats a;
    const AllocatorField* const fields = fields_.data();
    const size_t field_count = fields_.size();
    for (const Stat& stat : stats) {
      const AllocatorField f = stat.key() < field_count ? fields[stat.key()] : AllocatorField::kNone;
      if (f != AllocatorField::kNone) a.Set(f, stat);
    }
    return a;
  }

  // Fills `s` from the event's record under the options' rule; returns the
  // memory id's key (IdOf makes its text). With `strings`, the op, region
  // and shape are kept as the capture's string ids (ProfileStrings::Intern
  // makes them the profile's, on one thread); without (the capture-order
  // pass, which needs only the sizes) they stay empty.
  MemoryKey Read(const AllocatorStats& a, MemorySnapshot& s, bool strings) const {
    s.stack_bytes = a.Int(a.bytes_reserved, AllocatorField::kBytesReserved, strict_);
    s.heap_bytes = a.Int(a.bytes_allocated, AllocatorField::kBytesAllocated, strict_);
    s.free_bytes = a.Int(a.bytes_available, AllocatorField::kBytesAvailable, strict_);
    s.fragmentation =
        strict_ && (a.odd_types & AllocatorStats::Bit(AllocatorField::kFragmentation)) ? 0.0 : a.fragmentation;
    s.peak_bytes_in_use = a.Int(a.peak_bytes_in_use, AllocatorField::kPeakBytesInUse, strict_);
    s.requested_bytes = a.Int(a.requested_bytes, AllocatorField::kRequestedBytes, strict_);
    s.allocation_bytes = a.Int(a.allocation_bytes, AllocatorField::kAllocationBytes, strict_);
    s.address = strict_ && (a.odd_types & AllocatorStats::Bit(AllocatorField::kAddress)) ? 0 : a.address;
    s.data_type = a.Int(a.data_type, AllocatorField::kDataType, strict_);
    if (strings) {
      s.op_name = a.tf_op;
      s.region_type = a.region_type;
      s.shape = a.shape;
    }
    if (!a.memory_is_index) return MemoryKey{false, a.memory_value};
    return MemoryKey{true, a.Int(a.memory_value, AllocatorField::kDeviceIndex, strict_)};
  }

 private:
  const Host& host_;
  const bool strict_;  // MemoryProfileOptions::strict_stat_types.
  std::vector<AllocatorField> fields_;
};

// The records of one line's allocator events (Plane::allocator_records),
// walked along with its events: the record of each event asked for in
// order, or none (an event whose stats stayed generic).
class RecordCursor {
 public:
  RecordCursor() = default;  // No records.
  // The line's blocks are [begin, end) of `blocks`; starts at `first`.
  RecordCursor(const std::vector<AllocatorRecordBlock>& blocks, size_t begin, size_t end, uint32_t first)
      : blocks_(&blocks), b_(begin), end_(end) {
    while (b_ < end_ && blocks[b_].records.back().event < first) ++b_;
    if (b_ == end_) return;
    const auto& r = blocks[b_].records;
    i_ = static_cast<size_t>(
        std::lower_bound(r.begin(), r.end(), first, [](const AllocatorStats& a, uint32_t e) { return a.event < e; }) -
        r.begin());
  }
  // Event e's record, if it has one: true, with its block and index.
  bool At(uint32_t e, uint32_t* block, uint32_t* index) {
    while (b_ < end_) {
      const std::vector<AllocatorStats>& r = (*blocks_)[b_].records;
      if (i_ == r.size()) {
        ++b_;
        i_ = 0;
      } else if (r[i_].event < e) {
        ++i_;  // A record of an event that is no allocator event after all (its metadata id came again).
      } else {
        if (r[i_].event != e) return false;
        *block = static_cast<uint32_t>(b_);
        *index = static_cast<uint32_t>(i_++);
        return true;
      }
    }
    return false;
  }

 private:
  const std::vector<AllocatorRecordBlock>* blocks_ = nullptr;
  size_t b_ = 0, end_ = 0, i_ = 0;
};

// An allocator event as the profile keeps it between its passes: its time
// and where its stats are, 16 bytes where its snapshot takes 100: its line
// and its index there (stats in the line's pool), or, with kInRecords set
// in `line`, its block of Plane::allocator_records and its index there.
// Each pass in time order reads the event's stats again from the model.
struct AllocatorEvent {
  static constexpr uint32_t kInRecords = 0x80000000u;
  int64_t time_ps;
  uint32_t line, event;
};
using AllocatorEvents = std::vector<AllocatorEvent, DefaultInitAllocator<AllocatorEvent>>;

// The window peak and the lifetime peak over an allocator's events in
// capture order. The reference updates them per event as it meets them
// (lines in stored order, then events), not in time order, so "the last
// among equal peaks" and "the last lifetime peak" mean the last in capture
// order. Two trackers of consecutive runs of events join into the one a
// single pass over both would give: the capture-order pass runs in pieces.
struct PeakTracker {
  bool any = false;       // An event was added.
  int64_t lifetime = 0;   // See MemoryProfileOptions::last_event_lifetime_peak.
  bool has_peak = false;  // An event had stack + heap >= 0, where the peak starts.
  int64_t peak_bytes = 0;
  int64_t capacity_bytes = 0;
  AllocatorEvent peak{};

  void Add(const MemorySnapshot& s, const AllocatorEvent& r, bool last_lifetime) {
    // The allocator's high-water mark only grows, so its largest value is
    // the lifetime peak; the reference keeps the last one, which can be
    // older than the window peak when threads are listed out of time order.
    lifetime = last_lifetime || !any ? s.peak_bytes_in_use : std::max(lifetime, s.peak_bytes_in_use);
    any = true;
    const int64_t in_use = s.in_use();
    if (in_use >= peak_bytes) {  // >=: among equal peaks the later wins.
      has_peak = true;
      peak_bytes = in_use;
      capacity_bytes = SaturatingAdd(in_use, s.free_bytes);
      peak = r;
    }
  }

  // Adds the events `later` saw, all after these in capture order.
  void Join(const PeakTracker& later, bool last_lifetime) {
    if (!later.any) return;
    if (!any) {
      *this = later;
      return;
    }
    lifetime = last_lifetime ? later.lifetime : std::max(lifetime, later.lifetime);
    // Each started at 0 bytes: the later one's peak is what a single pass
    // would end with when it is at least ours.
    if (later.has_peak && (!has_peak || later.peak_bytes >= peak_bytes)) {
      has_peak = true;
      peak_bytes = later.peak_bytes;
      capacity_bytes = later.capacity_bytes;
      peak = later.peak;
    }
  }
};

// Where a step's first event is in time order, and the walk's state just
// before it (StepsInTimeOrder::state): the breakdown at the peak reads the
// events from there instead of from the first, the steps before it all
// skipped (1 GB: 44 ms -> under 0.1 ms).
struct StepStart {
  size_t index = 0;
  int64_t state = kNoGroup;
};

// The allocator's profile while its events are collected, in capture order.
struct Collecting {
  AllocatorMemoryProfile profile;
  PeakTracker peaks;
  // Capture order; SortByTime puts them in time order. Sized before the
  // pieces' events are copied in (on threads), so left unwritten till then.
  AllocatorEvents events;
  size_t expected = 0;  // How many events the pieces hold for it.
  // Each step's first event in time order (WalkTimeline): as many entries
  // as steps, at most two per group (a group, and the events outside any
  // group after it) and one for those before the first group.
  absl::flat_hash_map<int64_t, StepStart> step_starts;
};

// An allocator event's snapshot as read from the model (its step and, for
// a free, what it releases are the walk's to set).
struct SnapshotSource {
  const Plane& plane;
  const std::vector<int8_t>& kind;  // Per event metadata: 0 allocation, 1 free, -1 neither.
  const SnapshotReader& reader;
  const EventGroups& groups;
  size_t plane_index;
  ProfileStrings& strings;  // Added to by Intern: one thread only.

  // The event's line and its index there, and its record (null: its
  // stats are in the line's pool).
  struct Place {
    uint32_t line, event;
    const AllocatorStats* record;
  };
  Place PlaceOf(const AllocatorEvent& r) const {
    if (!(r.line & AllocatorEvent::kInRecords)) return {r.line, r.event, nullptr};
    const AllocatorRecordBlock& block = plane.allocator_records[r.line & ~AllocatorEvent::kInRecords];
    const AllocatorStats& record = block.records[r.event];
    return {block.line, record.event, &record};
  }
  // The snapshot with the capture's string ids: reads only, so any thread.
  MemorySnapshot Read(const AllocatorEvent& r) const {
    MemorySnapshot s;
    ReadInto(r, s);
    return s;
  }
  // The same, into `s` as it is, every field set but the step: the walk's
  // buffers are filled so, in place. A snapshot built on the stack and
  // copied there was read back in 16-byte loads over the narrower stores
  // that built it, a store-forwarding stall per event (1 GB walk: 70 ->
  // 63-70 ms).
  void ReadInto(const AllocatorEvent& r, MemorySnapshot& s) const {
    const Place at = PlaceOf(r);
    const Line& line = plane.lines[at.line];
    s.activity =
        kind[line.events[at.event].metadata] == 0 ? MemoryActivity::kAllocation : MemoryActivity::kDeallocation;
    if (at.record) {
      reader.Read(*at.record, s, true);
    } else {
      const AllocatorStats gathered = reader.Gather(line.EventStats(at.event));
      reader.Read(gathered, s, true);
    }
    s.time_ps = r.time_ps;
  }
  // Makes a read snapshot's strings the profile's.
  void Intern(MemorySnapshot& s) const {
    s.op_name = strings.Intern(s.op_name);
    s.region_type = strings.Intern(s.region_type);
    s.shape = strings.Intern(s.shape);
  }
  MemorySnapshot operator()(const AllocatorEvent& r) const {
    MemorySnapshot s = Read(r);
    Intern(s);
    return s;
  }
  // The event's group, or kNoGroup: reads only, so any thread.
  int64_t GroupOf(const AllocatorEvent& r) const {
    const Place at = PlaceOf(r);
    return groups.group.Find(plane_index, at.line, at.event);
  }
};

// Puts the events in the order a stable sort by time would give (equal
// times keep capture order), in place. Each line's events are already in
// time order, so the capture order is a few sorted runs (one per thread
// that allocates): neighbouring runs are merged (std::inplace_merge keeps
// the first run's element among equals) until one is left, which moves the
// records log2(runs) times instead of log2(n) times in a merge sort.
void SortByTime(AllocatorEvents& events) {
  std::vector<size_t> run_starts;
  for (size_t i = 0; i < events.size(); ++i)
    if (i == 0 || events[i].time_ps < events[i - 1].time_ps) run_starts.push_back(i);
  const auto by_time = [](const AllocatorEvent& a, const AllocatorEvent& b) { return a.time_ps < b.time_ps; };
  const auto at = [&](size_t i) { return events.begin() + static_cast<ptrdiff_t>(i); };
  while (run_starts.size() > 1) {
    std::vector<size_t> merged_starts;
    for (size_t r = 0; r < run_starts.size(); r += 2) {
      merged_starts.push_back(run_starts[r]);
      if (r + 1 == run_starts.size()) break;  // An odd run out waits for the next round.
      const size_t end = r + 2 < run_starts.size() ? run_starts[r + 2] : events.size();
      std::inplace_merge(at(run_starts[r]), at(run_starts[r + 1]), at(end), by_time);
    }
    run_starts.swap(merged_starts);
  }
}

// Each event's step in time order: the group of the event, and for events
// outside any step the step after the last one seen (0 before the first),
// so frees between steps count toward the next step.
class StepsInTimeOrder {
 public:
  // `group`: the next event's (SnapshotSource::GroupOf).
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

// Hands visit(snapshot, group) the snapshots of `events` in order, with the
// profile's strings, and each event's group. Reading them (a dozen stats
// each, in time order: all over the model) is two thirds of a walk's time
// and needs no order, so on a large allocator the reading runs ahead of the
// visits on a second thread, into a ring of `walk_read_ahead` + 1 blocks'
// buffers, in parts either thread may take: the walk's thread reads the
// next part itself rather than wait for its block (MemoryProfileOptions). A
// thread started per block read ahead, as before, kept the two CPUs about
// half idle (1 GB: about 100 ms for the walk, 132 ms read where walked).
template <class Visit>
void VisitSnapshots(const AllocatorEvents& events, const SnapshotSource& snapshot_of,
                    const MemoryProfileOptions& options, Visit&& visit) {
  const size_t kBlock = std::max<size_t>(options.walk_block_events, 1);
  struct Read {
    MemorySnapshot snapshot;
    int64_t group;
  };
  const size_t n = events.size();
  const size_t blocks = (n + kBlock - 1) / kBlock;
  auto read = [&](size_t from, size_t to, Read* out) {
    for (size_t i = from; i < to; ++i) {
      Read& r = out[i - from];
      snapshot_of.ReadInto(events[i], r.snapshot);
      r.group = snapshot_of.GroupOf(events[i]);
    }
  };
  auto visit_all = [&](std::span<Read> block) {
    for (Read& r : block) {
      snapshot_of.Intern(r.snapshot);
      visit(r.snapshot, r.group);
    }
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
    visit_all(std::span<Read>(buffers[slot].data(), std::min(n, (b + 1) * kBlock) - b * kBlock));
    {
      std::lock_guard<std::mutex> lock(mutex);
      parts_read[slot] = 0;
      ++visited;
    }
    changed.notify_all();
  }
}

// The time-ordered events' steps, frees and counts in one pass, keeping the
// timeline (every snapshot, or the points a report plots: TimelineSampler):
// - each snapshot's step (StepsInTimeOrder);
// - a free says only its size and address: it takes the op, region, dtype
//   and shape of the allocation at that address it releases;
// - the allocations and frees, and the peak's step: the last time the
//   window peak is reached.
void WalkTimeline(Collecting& c, const SnapshotSource& snapshot_of, const MemoryProfileOptions& options,
                  Diagnostics& diag) {
  AllocatorMemoryProfile& p = c.profile;
  struct Allocated {
    StringId op_name, region_type, shape;
    int64_t data_type;
  };
  absl::flat_hash_map<uint64_t, Allocated> live;  // address -> what was allocated there
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
  VisitSnapshots(c.events, snapshot_of, options, [&](MemorySnapshot& s, int64_t group) {
    const int64_t state = steps.state();
    s.step = steps.Next(group);
    if (index == 0 || s.step != previous_step) c.step_starts.try_emplace(s.step, StepStart{index, state});
    previous_step = s.step;
    ++index;
    if (s.in_use() == p.peak_bytes) p.peak_step = s.step;
    if (s.activity == MemoryActivity::kDeallocation) {
      ++p.deallocations;
      if (auto it = live.find(s.address); it != live.end()) {
        s.op_name = it->second.op_name;
        s.region_type = it->second.region_type;
        s.data_type = it->second.data_type;
        s.shape = it->second.shape;
        live.erase(it);
      } else {
        unmatched.Add(s.address);
      }
    } else {
      ++p.allocations;
      if (!live.try_emplace(s.address, Allocated{s.op_name, s.region_type, s.shape, s.data_type}).second)
        reused.Add(s.address);
    }
    timeline.Add(s);
  });
  timeline.Finish(p);
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

void Finish(Collecting& c, const SnapshotSource& snapshot_of, const MemoryProfileOptions& options,
            HostMemoryProfile& host, Diagnostics& diag) {
  AllocatorMemoryProfile& p = c.profile;
  p.lifetime_peak_bytes = c.peaks.lifetime;
  if (c.peaks.has_peak) {
    p.peak = snapshot_of(c.peaks.peak);
    p.peak_bytes = c.peaks.peak_bytes;
    p.peak_time_ps = p.peak.time_ps;
    p.capacity_bytes = c.peaks.capacity_bytes;
  }
  // Capture order within equal times, so the result does not depend on the
  // sort (the reference's sort is not stable).
  PhaseTimer sort_phase("memory profile: sort by time");
  SortByTime(c.events);
  sort_phase.Stop();
  PhaseTimer walk_phase("memory profile: steps, frees and timeline");
  WalkTimeline(c, snapshot_of, options, diag);
  walk_phase.Stop();
  c.profile.peak.step = c.profile.peak_step;
  PhaseTimer active_phase("memory profile: active at peak");
  ActiveAtPeak(c, snapshot_of, options, host);
}

}  // namespace

int64_t MemorySnapshot::in_use() const { return SaturatingAdd(stack_bytes, heap_bytes); }

MemoryProfileOptions MemoryProfileOptionsFor(Compat compat) {
  MemoryProfileOptions o;
  if (compat == Compat::kDefault) return o;
  o.line_offsets = true;
  o.strict_stat_types = true;
  o.last_event_lifetime_peak = true;
  if (compat == Compat::kTfLegacy) o.unexplained_heap_name = "preallocated/unknown";
  return o;
}

namespace {

// The host-threads plane whose allocator events the profile reads (the
// last of that name); host.planes.size() when there is none.
size_t AllocatorEventsPlane(const Host& host) {
  size_t plane_index = host.planes.size();
  for (size_t i = 0; i < host.planes.size(); ++i)
    if (host.PlaneName(host.planes[i]) == schema::kHostThreadsPlane) plane_index = i;
  return plane_index;
}

// One piece of the capture-order pass: a run of the plane's events (its
// lines one after another), the allocators its allocator events name in
// the order met, and what the pass met. Pieces are read on several threads
// and joined in order.
struct Piece {
  // Events, counted across the plane's lines; or blocks of complete
  // allocator records (CollectRecordsPiece).
  size_t begin = 0, end = 0;
  struct Allocator {
    std::string id;
    PeakTracker peaks;
    std::vector<AllocatorEvent> events;
  };
  std::vector<Allocator> allocators;
  Diagnostics diag;
};

// What every piece reads the same way.
struct PieceContext {
  const Host& host;
  const Plane& plane;
  const std::vector<size_t>& line_starts;  // Per line: its first event's place across the plane.
  const std::vector<int8_t>& kind;
  const SnapshotReader& reader;
  const MemoryProfileOptions& options;
  int64_t earliest_ps;  // The earliest start of a line with events, ps after the host's origin.
  // Per line: its blocks of Plane::allocator_records, [first, second).
  const std::vector<std::pair<size_t, size_t>>& line_records;
};

// What the capture-order pass does with each allocator event of a piece,
// whichever way the piece walks them.
class PieceCollector {
 public:
  PieceCollector(const PieceContext& ctx, Piece& piece, size_t most_events)
      : ctx_(ctx), piece_(piece), most_events_(most_events) {}

  // The event `event` of `line` (kind k), its stats, its place
  // (AllocatorEvent's line and event), its line's time zero.
  void Add(const Line& line, const Event& event, int8_t k, const AllocatorStats& stats, uint32_t line_place,
           uint32_t event_place, int64_t zero_ps) {
    const Host& host = ctx_.host;
    MemorySnapshot s;
    s.activity = k == 0 ? MemoryActivity::kAllocation : MemoryActivity::kDeallocation;
    const SnapshotReader::MemoryKey key = ctx_.reader.Read(stats, s, false);
    if (piece_.allocators.empty() || !(last_key_ == key)) {
      auto found = slot_of_.find(key);
      if (found == slot_of_.end()) {
        std::string id = ctx_.reader.IdOf(key);
        auto [at, added] = slot_of_id_.try_emplace(id, piece_.allocators.size());
        if (added) {
          piece_.allocators.push_back(Piece::Allocator{std::move(id), {}, {}});
          // The first few allocators (a capture has one or two per device)
          // get room for the piece's every event, so their lists never
          // move (pages past what is written are never touched); any more
          // grow as they fill.
          if (piece_.allocators.size() <= 4) piece_.allocators.back().events.reserve(most_events_);
        }
        found = slot_of_.emplace(key, at->second).first;
      }
      last_ = found->second;
      last_key_ = key;
    }
    Piece::Allocator& allocator = piece_.allocators[last_];
    s.time_ps = SaturatingSub(event.start_ps, zero_ps);
    if (stats.seen != AllocatorStats::kSeenAll)
      piece_.diag.AddWithMessage(
          diag_kind::kMemoryMissingStats,
          "allocator events without some of allocator_name, bytes_reserved, bytes_allocated, bytes_available "
          "or allocation_bytes (read as empty or 0)",
          fmt::format("{} on {} at {} ps", host.Str(ctx_.plane.event_metadata[event.metadata].name),
                      host.LineName(line), event.start_ps));
    if (s.stack_bytes < 0 || s.heap_bytes < 0 || s.free_bytes < 0 || s.requested_bytes < 0 || s.allocation_bytes < 0)
      piece_.diag.Add(diag_kind::kMemoryNegativeSize,
                      fmt::format("{} {} at {} ps", allocator.id,
                                  host.Str(ctx_.plane.event_metadata[event.metadata].name), event.start_ps));
    const AllocatorEvent r{s.time_ps, line_place, event_place};
    allocator.peaks.Add(s, r, ctx_.options.last_event_lifetime_peak);
    allocator.events.push_back(r);
  }

 private:
  const PieceContext& ctx_;
  Piece& piece_;
  const size_t most_events_;
  // Each event's allocator by its key, without making the id's text per
  // event, and by that text: keys of one id (a name "0" and index 0) share
  // an entry, so their events stay in capture order. The last event's
  // entry is tried first, as events of one allocator come in runs.
  absl::flat_hash_map<SnapshotReader::MemoryKey, size_t> slot_of_;
  absl::flat_hash_map<std::string, size_t> slot_of_id_;
  size_t last_ = 0;
  SnapshotReader::MemoryKey last_key_;
};

// Where the line's events start in the time the profile keeps: the
// reference's offset within the line, or since the earliest line start.
int64_t ZeroPs(const PieceContext& ctx, const Line& line) {
  return ctx.options.line_offsets ? (line.timestamp_ns - ctx.host.time_origin_ns) * 1000 : ctx.earliest_ps;
}

// A piece of the plane's events, [begin, end) counted across its lines:
// each allocator event's stats from its record or its line's pool.
void CollectPiece(const PieceContext& ctx, Piece& piece) {
  PieceCollector collect(ctx, piece, piece.end - piece.begin);
  // The line holding the piece's first event: the last one starting at or
  // before it (lines without events start where the next one does).
  size_t l = static_cast<size_t>(std::upper_bound(ctx.line_starts.begin(), ctx.line_starts.end(), piece.begin) -
                                 ctx.line_starts.begin()) -
             1;
  for (; l < ctx.plane.lines.size() && ctx.line_starts[l] < piece.end; ++l) {
    const Line& line = ctx.plane.lines[l];
    const size_t start = ctx.line_starts[l];
    const size_t first = std::max(piece.begin, start) - start;
    const size_t stop = std::min(piece.end - start, line.events.size());
    // A line without events may hold any timestamp (readers check only the
    // lines they place events on): its start below could overflow.
    if (first >= stop) continue;
    // Readers keep every event's time relative to the host's origin; the
    // line's own start is at this many ps after it.
    const int64_t zero_ps = ZeroPs(ctx, line);
    RecordCursor records;
    if (ctx.plane.allocator_stats_as_records)
      records = RecordCursor(ctx.plane.allocator_records, ctx.line_records[l].first, ctx.line_records[l].second,
                             static_cast<uint32_t>(first));
    for (size_t e = first; e < stop; ++e) {
      const Event& event = line.events[e];
      const int8_t k = event.metadata < ctx.kind.size() ? ctx.kind[event.metadata] : -1;
      if (k < 0) continue;
      uint32_t block, index;
      if (records.At(static_cast<uint32_t>(e), &block, &index))
        collect.Add(line, event, k, ctx.plane.allocator_records[block].records[index],
                    block | AllocatorEvent::kInRecords, index, zero_ps);
      else
        collect.Add(line, event, k, ctx.reader.Gather(line.EventStats(e)), static_cast<uint32_t>(l),
                    static_cast<uint32_t>(e), zero_ps);
    }
  }
}

// A piece of blocks of Plane::allocator_records, [begin, end), when they
// are complete: only the allocator events are walked.
void CollectRecordsPiece(const PieceContext& ctx, Piece& piece) {
  size_t most = 0;
  for (size_t b = piece.begin; b < piece.end; ++b) most += ctx.plane.allocator_records[b].records.size();
  PieceCollector collect(ctx, piece, most);
  for (size_t b = piece.begin; b < piece.end; ++b) {
    const AllocatorRecordBlock& block = ctx.plane.allocator_records[b];
    const Line& line = ctx.plane.lines[block.line];
    const int64_t zero_ps = ZeroPs(ctx, line);
    for (size_t i = 0; i < block.records.size(); ++i) {
      const AllocatorStats& record = block.records[i];
      const Event& event = line.events[record.event];
      const int8_t k = event.metadata < ctx.kind.size() ? ctx.kind[event.metadata] : -1;
      if (k < 0) continue;  // Never, when the records are complete.
      collect.Add(line, event, k, record, static_cast<uint32_t>(b) | AllocatorEvent::kInRecords,
                  static_cast<uint32_t>(i), zero_ps);
    }
  }
}

}  // namespace

bool MemoryProfileGroups(const Host& host) {
  if (host.format == CaptureFormat::kChromeTrace) return false;
  const size_t p = AllocatorEventsPlane(host);
  if (p == host.planes.size()) return false;
  for (const EventMetadata& m : host.planes[p].event_metadata)
    if (schema::IsAllocatorEvent(host.Str(m.name))) return true;
  return false;
}

HostMemoryProfile BuildMemoryProfile(const Host& host, const MemoryProfileOptions& options, Diagnostics& diag,
                                     const EventGroupsSource& source) {
  // A Chrome trace holds no TensorFlow allocator events (its exporters drop
  // them), but a PyTorch trace may hold PyTorch's own.
  if (host.format == CaptureFormat::kChromeTrace) {
    HostMemoryProfile kineto = BuildKinetoMemoryProfile(host, diag, source);
    KeepSampledTimelines(kineto, options.timeline_points);
    return kineto;
  }
  HostMemoryProfile out;
  out.host = host.name;
  const size_t plane_index = AllocatorEventsPlane(host);
  if (plane_index == host.planes.size()) {
    out.no_profile_reason = "the capture has no host plane (/host:CPU), where TensorFlow records allocator events";
    return out;
  }
  const Plane& plane = host.planes[plane_index];
  // AllocatorEvent keeps a line's index in 31 bits.
  if (plane.lines.size() >= AllocatorEvent::kInRecords)
    throw InputError(host.source_path, "a host plane of more than 2 billion lines; not supported");

  // Which event names are allocator events (by the raw name, as the
  // reference matches them).
  std::vector<int8_t> kind(plane.event_metadata.size(), -1);
  bool any = false;
  for (size_t m = 0; m < plane.event_metadata.size(); ++m) {
    std::string_view name = host.Str(plane.event_metadata[m].name);
    if (name == schema::kMemoryAllocationEvent) kind[m] = 0;
    else if (name == schema::kMemoryDeallocationEvent) kind[m] = 1;
    any = any || kind[m] >= 0;
  }
  if (!any) {
    out.no_profile_reason =
        "no MemoryAllocation/MemoryDeallocation events on the host plane: TensorFlow records them only for its BFC "
        "allocators (GPU memory, and host memory with TF_CPU_ALLOCATOR_USE_BFC=true), so CPU-only runs usually have "
        "no memory profile (JAX records them for its GPU allocators too)";
    return out;
  }

  // Grouped here (no source): first, so its diagnostics come before the
  // profile's. A source's groups are asked for once the snapshots are
  // collected: its grouping may be running beside this (HostToRunSummary).
  std::optional<EventGroups> own;
  if (!source) own = GroupEvents(host, diag, {}, GroupingRun{.eager = false});

  // Line starts: the reference's time is the offset within the line; ours is
  // since the earliest line start (the same when all lines start together).
  int64_t earliest_ns = std::numeric_limits<int64_t>::max();
  bool lines_differ = false;
  for (const Line& line : plane.lines) {
    // A line whose events the reader left out counts as read
    // (EventStatFilter::only_allocator_events_when_grouped).
    if (!line.HadEvents()) continue;
    if (earliest_ns != std::numeric_limits<int64_t>::max() && line.timestamp_ns != earliest_ns) lines_differ = true;
    earliest_ns = std::min(earliest_ns, line.timestamp_ns);
  }
  if (earliest_ns != std::numeric_limits<int64_t>::max()) out.time_zero_ps = (earliest_ns - host.time_origin_ns) * 1000;
  if (lines_differ && options.line_offsets) diag.Add(diag_kind::kMemoryLineStartsDiffer);

  const SnapshotReader reader(host, plane, options);
  PhaseTimer collect_phase("memory profile: collect events");
  // The capture-order pass in pieces of the plane's events, at most
  // collect_piece_events each whatever the lines (1 GB: 9.7 M events, 4.5 M
  // of them allocator events with 60 M stats), on a few threads.
  std::vector<size_t> line_starts;
  line_starts.reserve(plane.lines.size());
  size_t plane_events = 0;
  for (const Line& line : plane.lines) {
    line_starts.push_back(plane_events);
    plane_events += line.events.size();
  }
  const size_t piece_events = std::max<size_t>(options.collect_piece_events, 1);
  // With complete records, pieces of whole blocks of about as many records
  // (each block one chunk of a line); else pieces of the plane's events.
  const bool by_records = plane.allocator_records_complete;
  std::vector<Piece> pieces;
  if (by_records) {
    size_t in_piece = 0;
    for (size_t b = 0; b < plane.allocator_records.size(); ++b) {
      if (pieces.empty() || in_piece >= piece_events) {
        pieces.emplace_back().begin = b;
        in_piece = 0;
      }
      pieces.back().end = b + 1;
      in_piece += plane.allocator_records[b].records.size();
    }
  } else {
    pieces.resize(plane_events == 0 ? 0 : (plane_events - 1) / piece_events + 1);
    for (size_t i = 0; i < pieces.size(); ++i) {
      pieces[i].begin = i * piece_events;
      pieces[i].end = pieces[i].begin + std::min(piece_events, plane_events - pieces[i].begin);
    }
  }
  const std::vector<std::pair<size_t, size_t>> line_records = plane.AllocatorRecordBlocksByLine();
  // out.time_zero_ps: the earliest start of a line with events.
  const PieceContext context{host, plane, line_starts, kind, reader, options, out.time_zero_ps, line_records};
  const size_t threads = options.collect_threads ? options.collect_threads : ThreadsForEvents(plane_events);
  ParallelFor(pieces.size(), threads, [&](size_t i) {
    if (by_records) CollectRecordsPiece(context, pieces[i]);
    else CollectPiece(context, pieces[i]);
  });

  // Joined by the memory id's text: keys of one id (a name "0" and index 0)
  // share its entry. Byte order, as the reference lists memory ids. The
  // pieces' events are copied in on threads, which fault in the fresh
  // pages side by side (1 GB: 4.5 M events, 72 MB).
  std::map<std::string, Collecting> by_id;
  struct Move {
    Piece::Allocator* from;
    Collecting* to;
    size_t at;
  };
  std::vector<Move> moves;
  for (Piece& piece : pieces)
    for (Piece::Allocator& a : piece.allocators) {
      Collecting& c = by_id[a.id];
      moves.push_back({&a, &c, c.expected});
      c.expected += a.events.size();
    }
  for (auto& [id, c] : by_id) c.events.resize(c.expected);
  ParallelFor(moves.size(), threads, [&](size_t i) {
    std::vector<AllocatorEvent>& from = moves[i].from->events;
    std::copy(from.begin(), from.end(), moves[i].to->events.begin() + static_cast<ptrdiff_t>(moves[i].at));
    // Given back once copied, so most of the pieces' events are gone by
    // the time the joined ones are all written.
    std::vector<AllocatorEvent>().swap(from);
  });
  for (Piece& piece : pieces) {
    diag.Merge(piece.diag);
    for (Piece::Allocator& a : piece.allocators) by_id[a.id].peaks.Join(a.peaks, options.last_event_lifetime_peak);
  }
  collect_phase.Stop();
  PhaseTimer groups_phase("memory profile: wait for the groups");
  const EventGroups& groups = source ? source() : *own;
  groups_phase.Stop();
  if (groups.groups.empty()) out.no_steps_reason = groups.no_groups_reason;
  for (const StepGroup& g : groups.groups) out.step_names[g.id] = g.name;
  ProfileStrings strings(host, out);
  const SnapshotSource snapshot_of{plane, kind, reader, groups, plane_index, strings};
  for (auto& [id, c] : by_id) {
    c.profile.memory_id = id;
    Finish(c, snapshot_of, options, out, diag);
    AllocatorEvents().swap(c.events);
    out.allocators.push_back(std::move(c.profile));
  }
  return out;
}

std::string DataTypeName(int64_t dt) {
  static constexpr std::array<std::string_view, 31> kNames = {"INVALID",
                                                              "float",
                                                              "double",
                                                              "int32",
                                                              "uint8",
                                                              "int16",
                                                              "int8",
                                                              "string",
                                                              "complex64",
                                                              "int64",
                                                              "bool",
                                                              "qint8",
                                                              "quint8",
                                                              "qint32",
                                                              "bfloat16",
                                                              "qint16",
                                                              "quint16",
                                                              "uint16",
                                                              "complex128",
                                                              "half",
                                                              "resource",
                                                              "variant",
                                                              "uint32",
                                                              "uint64",
                                                              "float8_e5m2",
                                                              "float8_e4m3fn",
                                                              "float8_e4m3fnuz",
                                                              "float8_e4m3b11fnuz",
                                                              "float8_e5m2fnuz",
                                                              "int4",
                                                              "uint4"};
  if (dt >= 0 && dt < static_cast<int64_t>(kNames.size())) return std::string(kNames[dt]);
  // Reference types are the base type + 100.
  if (dt > 100 && dt - 100 < static_cast<int64_t>(kNames.size())) return std::string(kNames[dt - 100]) + "_ref";
  return fmt::format("unknown dtype enum ({})", dt);
}

}  // namespace tfprof
