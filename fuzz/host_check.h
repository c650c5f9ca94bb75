// Model invariants every reader promises, checked on whatever a fuzz input
// produced: a violation aborts (a finding), like a crash would.
#pragma once

#include <cstdlib>

#include "lib/model/model.h"
#include "lib/model/xplane_schema.h"

namespace tfprof::fuzz {

inline void CheckHost(const Host& host) {
  for (const Plane& plane : host.planes) {
    (void)host.PlaneName(plane);
    for (const Stat& s : plane.plane_stats)
      if (s.key() >= plane.stat_metadata.size()) std::abort();
    for (const EventMetadata& m : plane.event_metadata)
      if (m.stats_begin > m.stats_end || m.stats_end > plane.metadata_stats.size()) std::abort();
    for (const Line& line : plane.lines) {
      (void)host.LineName(line);
      uint32_t previous_end = 0;
      for (const Event& e : line.events) {
        if (e.metadata >= plane.event_metadata.size() || e.stats_end > line.stats.size() || e.duration_ps < 0 ||
            e.stats_end < previous_end)
          std::abort();
        previous_end = e.stats_end;
        (void)host.EventName(plane, e);
        (void)e.end_ps();
      }
      for (const Stat& s : line.stats) {
        if (s.key() >= plane.stat_metadata.size()) std::abort();
        (void)s.AsInt();
        (void)s.AsUint();
        (void)host.Str(s.AsString());
      }
    }
    // Allocator records: a line's blocks together, in line order, each
    // record at an event of its line, in event order, its strings interned.
    if (!plane.allocator_stats_as_records && !plane.allocator_records.empty()) std::abort();
    uint32_t last_line = 0, last_event = 0;
    bool any = false;
    size_t records = 0;
    for (const AllocatorRecordBlock& b : plane.allocator_records) {
      if (b.line >= plane.lines.size() || b.records.empty() || (any && b.line < last_line)) std::abort();
      const bool same_line = any && b.line == last_line;
      for (const AllocatorStats& r : b.records) {
        // One record per event: strictly in event order within a line.
        const bool first_of_line = !same_line && &r == &b.records.front();
        if (r.event >= plane.lines[b.line].events.size() || (!first_of_line && r.event <= last_event)) std::abort();
        // Complete: every record is an allocator event's (and, counted
        // below, every allocator event has one).
        const Event& e = plane.lines[b.line].events[r.event];
        if (plane.allocator_records_complete &&
            !schema::IsAllocatorEvent(host.Str(plane.event_metadata[e.metadata].name)))
          std::abort();
        if (r.tf_op >= host.strings.size() || r.region_type >= host.strings.size() || r.shape >= host.strings.size())
          std::abort();
        if (!r.memory_is_index && static_cast<uint64_t>(r.memory_value) >= host.strings.size()) std::abort();
        last_event = r.event;
        any = true;
        ++records;
      }
      last_line = b.line;
    }
    // Complete: exactly the plane's allocator events have records.
    if (plane.allocator_records_complete) {
      size_t allocator_events = 0;
      for (const Line& line : plane.lines)
        for (const Event& e : line.events)
          allocator_events += schema::IsAllocatorEvent(host.Str(plane.event_metadata[e.metadata].name));
      if (allocator_events != records) std::abort();
    }
  }
}

}  // namespace tfprof::fuzz
