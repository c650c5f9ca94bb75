// For the passes that rewrite a freshly read model (the Chrome trace
// conventions): the key of a stat name, added to the plane when it is new.
// (Finding a stat among an event's stats: FindStatIn, stat_finder.h.)
#pragma once

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

}  // namespace tfprof
