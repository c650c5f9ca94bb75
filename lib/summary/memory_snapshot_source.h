// Internal to the memory profile (memory_events_to_profile.cc and its two
// passes): how an allocator event is kept between the passes (its time and
// where its stats are), how its snapshot is read back from the model, and
// the per-allocator state the capture-order pass hands the time-order one.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lib/model/allocator_stats.h"
#include "lib/model/default_init_allocator.h"
#include "lib/model/model.h"
#include "lib/summary/event_grouping.h"
#include "lib/summary/memory_events_to_profile.h"
#include "lib/summary/time_span.h"

namespace tfprof::memory_internal {

// Allocator sizes are int64 in the capture; a corrupt capture must not make
// a sum overflow (undefined behaviour), so sums saturate (time_span.h).

// The profile's own ids of the capture's strings (op, region, shape), made
// as the snapshots kept are read (the timeline's points, the peak and the
// allocations alive then; every event with --all-points), on one thread:
// looked up by the capture's id (dense, from 0) in a table, not a hash
// map. The table takes 4 bytes per capture string, far less than the
// string pool itself.
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

  // What the walk in time order reads of every event (WalkTimeline): the
  // sizes the timeline's samplings compare, the address a free is matched
  // by, its kind and group. The rest of a snapshot is read only for the
  // points the timeline keeps.
  struct WalkFields {
    int64_t stack_bytes = 0, heap_bytes = 0, free_bytes = 0;
    uint64_t address = 0;
    int64_t group = 0;
    bool deallocation = false;
    int64_t in_use() const { return SaturatingAdd(stack_bytes, heap_bytes); }
  };
  // Those of the fields Read sets (Read takes them from here: one rule).
  void ReadWalk(const AllocatorStats& a, WalkFields& w) const {
    w.stack_bytes = a.Int(a.bytes_reserved, AllocatorField::kBytesReserved, strict_);
    w.heap_bytes = a.Int(a.bytes_allocated, AllocatorField::kBytesAllocated, strict_);
    w.free_bytes = a.Int(a.bytes_available, AllocatorField::kBytesAvailable, strict_);
    w.address = strict_ && (a.odd_types & AllocatorStats::Bit(AllocatorField::kAddress)) ? 0 : a.address;
  }

  // Fills `s` from the event's record under the options' rule; returns the
  // memory id's key (IdOf makes its text). With `strings`, the op, region
  // and shape are kept as the capture's string ids (ProfileStrings::Intern
  // makes them the profile's, on one thread); without (the capture-order
  // pass, which needs only the sizes) they stay empty.
  MemoryKey Read(const AllocatorStats& a, MemorySnapshot& s, bool strings) const {
    WalkFields w;
    ReadWalk(a, w);
    s.stack_bytes = w.stack_bytes;
    s.heap_bytes = w.heap_bytes;
    s.free_bytes = w.free_bytes;
    s.address = w.address;
    s.fragmentation =
        strict_ && (a.odd_types & AllocatorStats::Bit(AllocatorField::kFragmentation)) ? 0.0 : a.fragmentation;
    s.peak_bytes_in_use = a.Int(a.peak_bytes_in_use, AllocatorField::kPeakBytesInUse, strict_);
    s.requested_bytes = a.Int(a.requested_bytes, AllocatorField::kRequestedBytes, strict_);
    s.allocation_bytes = a.Int(a.allocation_bytes, AllocatorField::kAllocationBytes, strict_);
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

  // `first_peak`: among equal peaks the first wins (MemoryProfileOptions).
  void Add(const MemorySnapshot& s, const AllocatorEvent& r, bool last_lifetime, bool first_peak = false) {
    // The allocator's high-water mark only grows, so its largest value is
    // the lifetime peak; the reference keeps the last one, which can be
    // older than the window peak when threads are listed out of time order.
    lifetime = last_lifetime || !any ? s.peak_bytes_in_use : std::max(lifetime, s.peak_bytes_in_use);
    any = true;
    const int64_t in_use = s.in_use();
    // >=: among equal peaks the later wins, unless the first is asked for.
    if (first_peak ? in_use > peak_bytes || (!has_peak && in_use >= 0) : in_use >= peak_bytes) {
      has_peak = true;
      peak_bytes = in_use;
      capacity_bytes = SaturatingAdd(in_use, s.free_bytes);
      peak = r;
    }
  }

  // Adds the events `later` saw, all after these in capture order.
  void Join(const PeakTracker& later, bool last_lifetime, bool first_peak = false) {
    if (!later.any) return;
    if (!any) {
      *this = later;
      return;
    }
    lifetime = last_lifetime ? later.lifetime : std::max(lifetime, later.lifetime);
    // Each started at 0 bytes: the later one's peak is what a single pass
    // would end with when it is at least ours.
    if (later.has_peak &&
        (!has_peak || (first_peak ? later.peak_bytes > peak_bytes : later.peak_bytes >= peak_bytes))) {
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
  // In time order, equal times in capture order (as a stable sort by time
  // leaves them): merged from the pieces' runs on threads into this,
  // sized before and left unwritten till then.
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
  // Calls read(place, deallocation, stats) with the event's place, kind
  // and stats: its record, or its stats in the line's pool gathered into
  // one.
  template <class ReadStats>
  void WithStats(const AllocatorEvent& r, ReadStats&& read) const {
    const Place at = PlaceOf(r);
    const Line& line = plane.lines[at.line];
    const bool deallocation = kind[line.events[at.event].metadata] != 0;
    if (at.record) {
      read(at, deallocation, *at.record);
    } else {
      read(at, deallocation, reader.Gather(line.EventStats(at.event)));
    }
  }
  // The snapshot with the capture's string ids, every field set but the
  // step: reads only, so any thread.
  MemorySnapshot Read(const AllocatorEvent& r) const {
    MemorySnapshot s;
    WithStats(r, [&](const Place&, bool deallocation, const AllocatorStats& a) {
      s.activity = deallocation ? MemoryActivity::kDeallocation : MemoryActivity::kAllocation;
      reader.Read(a, s, true);
    });
    s.time_ps = r.time_ps;
    return s;
  }
  // What the walk reads of the event (SnapshotReader::WalkFields).
  void ReadWalkInto(const AllocatorEvent& r, SnapshotReader::WalkFields& w) const {
    WithStats(r, [&](const Place& at, bool deallocation, const AllocatorStats& a) {
      w.deallocation = deallocation;
      reader.ReadWalk(a, w);
      w.group = GroupAt(at);
    });
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
  int64_t GroupOf(const AllocatorEvent& r) const { return GroupAt(PlaceOf(r)); }
  int64_t GroupAt(const Place& at) const { return groups.group.Find(plane_index, at.line, at.event); }
};

}  // namespace tfprof::memory_internal
