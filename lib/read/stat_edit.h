// For the passes that rewrite a freshly read model (the Chrome trace
// conventions): the key of a stat name, added to the plane when it is new,
// and room for stats added to a line's events.
// (Finding a stat among an event's stats: FindStatIn, stat_finder.h.)
#pragma once

#include <cstring>
#include <string_view>

#include "lib/model/model.h"
#include "lib/model/stat_finder.h"

namespace tfprof {

// The key of stat `name` on `plane`, adding it to the plane's metadata when
// the plane has none yet.
inline StatKey StatKeyFor(Host& host, Plane& plane, std::string_view name) {
  if (auto k = plane.FindStatKey(host.strings, name)) return *k;
  plane.stat_metadata.push_back({host.strings.Intern(name)});
  return static_cast<StatKey>(plane.stat_metadata.size() - 1);
}

// The plane stat `name`'s string value (empty when absent or not a string).
inline std::string_view PlaneStatString(const Host& host, const Plane& plane, std::string_view name) {
  auto s = StatFinder(host, plane, name).In(plane.plane_stats);
  return s && s->type() == StatType::kString ? host.Str(s->AsString()) : std::string_view();
}

// Sets (adds or replaces) the plane stat `name` to the string `value`.
inline void SetPlaneStatString(Host& host, Plane& plane, std::string_view name, std::string_view value) {
  const StatKey key = StatKeyFor(host, plane, name);
  const Stat stat = Stat::String(key, host.strings.Intern(value));
  for (Stat& s : plane.plane_stats)
    if (s.key() == key) {
      s = stat;
      return;
    }
  plane.plane_stats.push_back(stat);
}

// The most stats the Chrome trace conventions add to one event once the
// lines are finished: on a kernel its launch's grid and block and its op's
// name, type and input types (a host op gets its name and type, a
// TensorFlow GPU event its level 0). The reader leaves this much room per
// event in each line's stat pool (capacity only: a large pool's pages that
// no event takes are never touched), and keeps lines small enough that the
// room cannot take stats_end past 32 bits.
inline constexpr size_t kStatRoomPerEvent = 5;

// Makes room for `extra(i)` more stats after each event i's own, for a pass
// that appends stats to some events: event i's room is the extra(i) slots
// just before its new stats_end, left unwritten for the caller to fill.
// The stats move towards the end of the pool, from the last event back, a
// run of events at a time, each stat once, and those before the first
// event given room stay where they are. That is in place where the pool has
// the capacity (the Chrome trace reader leaves room for these passes), else
// into a pool of the new size, each run copied straight to its place.
// `extra` is called at most twice per event. Returns the stats added.
template <typename ExtraOf>
size_t MakeRoomForStats(Line& line, ExtraOf extra) {
  size_t added = 0;
  for (size_t i = 0; i < line.events.size(); ++i) added += extra(i);
  if (added == 0) return 0;
  const size_t old_size = line.stats.size(), new_size = old_size + added;
  StatPool grown;
  const Stat* from = line.stats.data();
  Stat* to;
  if (line.stats.capacity() >= new_size) {
    line.stats.resize(new_size);  // DefaultInitAllocator: the room is left unwritten.
    to = line.stats.data();
  } else {
    grown.resize(new_size);  // Exactly, unwritten.
    to = grown.data();
  }
  // The stats in [.., pending_end) of the old pool move `shift` slots: the
  // room of the events they belong to and of those before.
  size_t shift = added, pending_end = old_size;
  for (size_t i = line.events.size(); i-- > 0 && shift > 0;) {
    const uint32_t end = line.events[i].stats_end;
    if (const size_t room = extra(i); room > 0) {
      std::memmove(to + end + shift, from + end, (pending_end - end) * sizeof(Stat));
      shift -= room;
      pending_end = end;
      line.events[i].stats_end = static_cast<uint32_t>(end + shift + room);
    } else {
      line.events[i].stats_end = static_cast<uint32_t>(end + shift);
    }
  }
  if (to != from) {
    std::memcpy(to, from, pending_end * sizeof(Stat));  // The stats that stay where they were.
    line.stats = std::move(grown);
  }
  return added;
}

}  // namespace tfprof
