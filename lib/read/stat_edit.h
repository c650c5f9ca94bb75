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

// Makes room for `extra(i)` more stats after each event i's own, for a pass
// that appends stats to some events: event i's room is the extra(i) slots
// just before its new stats_end, left unwritten for the caller to fill.
// The stats move towards the end of the pool, from the last event back, each
// once, and those before the first event given room stay where they are.
// That is in place where the pool has the capacity (the Chrome trace reader
// leaves room for these passes), else after one reallocation: not into a
// second pool built beside the first, whose fresh pages cost more than the
// copy. `extra` is called twice per event. Returns the stats added.
template <typename ExtraOf>
size_t MakeRoomForStats(Line& line, ExtraOf extra) {
  size_t added = 0;
  for (size_t i = 0; i < line.events.size(); ++i) added += extra(i);
  if (added == 0) return 0;
  const size_t old_size = line.stats.size();
  line.stats.reserve(old_size + added);  // Exactly, where the capacity is short.
  line.stats.resize(old_size + added);   // DefaultInitAllocator: the room is left unwritten.
  Stat* stats = line.stats.data();
  // The stats in [.., pending_end) of the old pool move `shift` slots: the
  // room of the events they belong to and of those before. Moved a run at
  // a time, the run ending at an event given room.
  size_t shift = added, pending_end = old_size;
  for (size_t i = line.events.size(); i-- > 0 && shift > 0;) {
    const uint32_t end = line.events[i].stats_end;
    if (const size_t room = extra(i); room > 0) {
      std::memmove(stats + end + shift, stats + end, (pending_end - end) * sizeof(Stat));
      shift -= room;
      pending_end = end;
      line.events[i].stats_end = static_cast<uint32_t>(end + shift + room);
    } else {
      line.events[i].stats_end = static_cast<uint32_t>(end + shift);
    }
  }
  return added;
}

}  // namespace tfprof
