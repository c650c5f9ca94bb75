// Finding a named stat on events of one plane without string compares per
// event: the name is resolved to the plane's StatKey once.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "lib/model/model.h"

namespace tfprof {

// The stat of `key` among `stats`, if any (no key: none).
inline std::optional<Stat> FindStatIn(std::span<const Stat> stats, std::optional<StatKey> key) {
  if (!key) return std::nullopt;
  for (const Stat& s : stats)
    if (s.key() == *key) return s;
  return std::nullopt;
}

class StatFinder {
 public:
  StatFinder(const Host& host, const Plane& plane, std::string_view name)
      : key_(plane.FindStatKey(host.strings, name)) {}

  bool exists() const { return key_.has_value(); }

  std::optional<Stat> In(std::span<const Stat> stats) const { return FindStatIn(stats, key_); }
  // The event's own stats first, then its metadata's (as the reference's
  // derived-line code reads them).
  std::optional<Stat> InEventOrMetadata(const Plane& plane, const Line& line, size_t event) const {
    if (auto s = In(line.EventStats(event))) return s;
    const EventMetadata& m = plane.event_metadata[line.events[event].metadata];
    return In(std::span<const Stat>(plane.metadata_stats).subspan(m.stats_begin, m.stats_end - m.stats_begin));
  }

 private:
  std::optional<StatKey> key_;
};

}  // namespace tfprof
