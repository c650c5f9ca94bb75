// Small helpers for the passes that rewrite a freshly read model (the
// Chrome trace conventions): finding a stat among an event's stats, and the
// key of a stat name, added to the plane when it is new.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "lib/model/model.h"

namespace tfprof {

// The key of stat `name` on `plane`, adding it to the plane's metadata when
// the plane has none yet.
inline StatKey StatKeyFor(Host& host, Plane& plane, std::string_view name) {
  if (auto k = plane.FindStatKey(host.strings, name)) return *k;
  plane.stat_metadata.push_back({host.strings.Intern(name)});
  return static_cast<StatKey>(plane.stat_metadata.size() - 1);
}

// The stat of `key` among `stats`, if any (no key: none).
inline std::optional<Stat> FindStatIn(std::span<const Stat> stats, std::optional<StatKey> key) {
  if (!key) return std::nullopt;
  for (const Stat& s : stats)
    if (s.key() == *key) return s;
  return std::nullopt;
}

}  // namespace tfprof
