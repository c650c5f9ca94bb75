// The in-memory model every reader fills and every analysis reads:
//   Host -> planes (host threads, devices) -> lines (threads, streams) -> events.
// Events are plain 24-byte records in one array per line; their stats live in
// one pool per line; names are interned in the host's StringPool. There is no
// per-event heap object, so a capture of N events costs about 24*N bytes plus
// 12 bytes per stat.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/model/allocator_stats.h"
#include "lib/model/default_init_allocator.h"
#include "lib/model/stat.h"
#include "lib/model/string_pool.h"

namespace tfprof {

// Index into a plane's event metadata table (the event's name).
using EventMetadataId = uint32_t;

// A line's stats, one run per event. Sized by a reader before its
// decoding threads fill it: resize() leaves the stats unwritten
// (DefaultInitAllocator) rather than zeroing them first.
using StatPool = std::vector<Stat, DefaultInitAllocator<Stat>>;

struct Event {
  int64_t start_ps;     // Absolute start time in picoseconds.
  int64_t duration_ps;  // Never negative (readers clamp and count).
  EventMetadataId metadata;
  // This event's stats are line.stats[previous event's stats_end, stats_end).
  uint32_t stats_end;

  int64_t end_ps() const { return start_ps + duration_ps; }
};
static_assert(sizeof(Event) == 24, "Event must stay compact");

// The order of a line's events: by start, the longer first where two start
// together (so a parent precedes the children it contains).
inline bool EventBefore(const Event& a, const Event& b) {
  return a.start_ps != b.start_ps ? a.start_ps < b.start_ps : a.duration_ps > b.duration_ps;
}

struct EventMetadata {
  StringId name = StringPool::kEmpty;
  StringId display_name = StringPool::kEmpty;
  // Stats shared by every event of this metadata: plane.metadata_stats[begin, end).
  uint32_t stats_begin = 0;
  uint32_t stats_end = 0;
};

struct StatMetadata {
  StringId name = StringPool::kEmpty;
};

struct Line {
  int64_t id = 0;
  int64_t display_id = 0;  // 0 means "use id".
  StringId name = StringPool::kEmpty;
  StringId display_name = StringPool::kEmpty;
  int64_t timestamp_ns = 0;
  int64_t duration_ps = 0;
  // Readers fill events they sized beforehand: resize() leaves them
  // unwritten (DefaultInitAllocator) rather than zeroing them first.
  std::vector<Event, DefaultInitAllocator<Event>> events;
  StatPool stats;
  // Events the XSpace reader framed but left out of `events` for the
  // command (ReadOptions::event_stats: keep_allocator_events,
  // only_allocator_events_when_steps_allow).
  uint64_t events_left_out = 0;

  // Whether the capture holds events on this line, read or left out.
  bool HadEvents() const { return !events.empty() || events_left_out > 0; }
  std::span<const Stat> EventStats(size_t index) const {
    uint32_t begin = index == 0 ? 0 : events[index - 1].stats_end;
    return {stats.data() + begin, events[index].stats_end - begin};
  }
  // Sorts events by (start ascending, duration descending), the order the
  // reference relies on so that parents precede their children, keeping each
  // event's stats with it. With `old_index`, each event's index before the
  // sort, by its place after (empty when the line was already sorted).
  void SortEvents(std::vector<uint32_t>* old_index = nullptr);
  bool IsSorted() const;
};

// What the capture says about a device (all optional: older captures and
// Chrome traces often lack them).
struct DeviceProperties {
  std::string name;    // e.g. "Tesla T4"
  std::string vendor;  // e.g. "Nvidia"
  int compute_cap_major = 0;
  int compute_cap_minor = 0;
  int64_t core_count = 0;  // SMs / CUs
  int64_t memory_bytes = 0;
  int64_t memory_bandwidth = 0;  // bytes per second
  int64_t clock_rate_khz = 0;
  bool empty() const {
    return name.empty() && vendor.empty() && compute_cap_major == 0 && core_count == 0 && memory_bytes == 0;
  }
};

struct Plane {
  int64_t id = 0;
  StringId name = StringPool::kEmpty;
  std::vector<Line> lines;
  std::vector<EventMetadata> event_metadata;
  std::vector<StatMetadata> stat_metadata;
  std::vector<Stat> metadata_stats;  // Pool for EventMetadata stats.
  std::vector<Stat> plane_stats;
  DeviceProperties device;
  // True when the reader kept the allocator events' own stats (every
  // AllocatorFieldOf name) typed here instead of in their lines' pools,
  // in capture order; their other stats stay in the pools. Only the XSpace
  // reader does, for commands that build a memory profile
  // (ReadOptions::event_stats.allocator_records).
  bool allocator_stats_as_records = false;
  std::vector<AllocatorRecordBlock> allocator_records;
  // With allocator_stats_as_records: every allocator event has a record,
  // and every record is an allocator event's, so the records alone say
  // every allocator event's stats, in capture order. False when some
  // event's metadata id did not come first, or came again naming another
  // event.
  bool allocator_records_complete = false;
  // The group ids (Stat::AsInt) of the events the XSpace reader left out of
  // this plane's lines because the command reads nothing else of them
  // (ReadOptions::event_stats.only_allocator_events_when_steps_allow), sorted,
  // each once.
  std::vector<int64_t> left_out_group_ids;
  // Per line: [first, end) of its blocks in allocator_records (a line's
  // blocks are together), empty for a line without records.
  std::vector<std::pair<size_t, size_t>> AllocatorRecordBlocksByLine() const;

  size_t EventCount() const;
  // Events the reader framed but left out of the lines (Line::events_left_out).
  uint64_t EventsLeftOut() const;
  // The StatKey whose name is `name`, if this plane has such a stat.
  std::optional<StatKey> FindStatKey(const StringPool& strings, std::string_view name) const;
};

enum class CaptureFormat { kXSpace, kChromeTrace };

// The line a Chrome trace's counter samples (ph C) are read onto, one
// event per sample, on their process's plane.
inline constexpr std::string_view kChromeTraceCountersLine = "_counters_";
std::string_view CaptureFormatName(CaptureFormat format);

// The framework that wrote the capture, where the reader can tell; analyses
// word their advice after it (no tf.data advice for a PyTorch run).
// kUnknown reads as TensorFlow's, the profiler this tool mirrors.
enum class Framework { kUnknown, kPyTorch };

struct Host {
  std::string name;         // Host name (from the XSpace, or the file name).
  std::string source_path;  // The file it was read from.
  CaptureFormat format = CaptureFormat::kXSpace;
  bool gzipped = false;
  uint64_t file_bytes = 0;
  // Event times are picoseconds after this instant (the capture's own clock,
  // usually ns since the epoch or since the profile started). Keeping times
  // relative avoids int64 overflow: epoch-ns * 1000 does not fit.
  int64_t time_origin_ns = 0;
  StringPool strings;
  std::vector<Plane> planes;
  std::vector<std::string> hostnames;  // As the capture names its host (XSpace.hostnames).
  // Chrome traces: the GPUs the trace lists (Kineto's deviceProperties),
  // traced or not (the reports say so when none was traced).
  int listed_gpus = 0;
  std::optional<int64_t> rank;      // PyTorch traces: the rank of a distributed job (distributedInfo.rank).
  std::vector<std::string> errors;  // Reported by the profiler in the capture.
  std::vector<std::string> warnings;
  Framework framework = Framework::kUnknown;
  // Event stats the reader left out because the command reading the
  // capture does not look at them (ReadOptions::event_stats); 0 when all
  // were kept.
  uint64_t event_stats_dropped = 0;
  // Derived lines whose events the reader left unread (the same option's
  // keep_derived_line_events); 0 when all were read.
  uint64_t derived_lines_skipped = 0;
  // And lines of the host-threads plane (keep_host_thread_events).
  uint64_t host_thread_lines_skipped = 0;
  // And lines of device planes (keep_device_events).
  uint64_t device_lines_skipped = 0;
  // Allocator events (MemoryAllocation/MemoryDeallocation) the reader
  // framed but left out of their lines (keep_allocator_events).
  uint64_t allocator_events_skipped = 0;
  // Events of a host-threads plane whose names give the host no step (or of
  // any, for a command that groups nothing) that the reader framed but
  // left out because no analysis of the command reads them
  // (ReadOptions::event_stats.use_without_steps), allocator events among
  // them (then not in allocator_events_skipped).
  uint64_t events_left_out_without_steps = 0;

  std::string_view Str(StringId id) const { return strings.Get(id); }
  std::string_view PlaneName(const Plane& p) const { return strings.Get(p.name); }
  std::string_view LineName(const Line& l) const {
    return l.display_name != StringPool::kEmpty ? strings.Get(l.display_name) : strings.Get(l.name);
  }
  // The event's display name when set, otherwise its name.
  std::string_view EventName(const Plane& p, const Event& e) const {
    const EventMetadata& m = p.event_metadata[e.metadata];
    return m.display_name != StringPool::kEmpty ? strings.Get(m.display_name) : strings.Get(m.name);
  }
  const Plane* FindPlane(std::string_view name) const;
};

}  // namespace tfprof
