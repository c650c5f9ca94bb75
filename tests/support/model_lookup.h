// Lookups into a read model that the reader and conventions tests share.
#pragma once

#include <catch2/catch.hpp>

#include <optional>
#include <string_view>

#include "lib/model/model.h"
#include "lib/model/stat_finder.h"

namespace tfprof::testing {

// The plane named `name`; fails the test when there is none.
inline const Plane& PlaneNamed(const Host& h, std::string_view name) {
  const Plane* p = h.FindPlane(name);
  INFO("plane " << name);
  REQUIRE(p);
  return *p;
}

// Stat `name` of event `event` of line `l` on plane `p`, if it has one.
inline std::optional<Stat> EventStat(const Host& h, const Plane& p, const Line& l, size_t event,
                                     std::string_view name) {
  return FindStatIn(l.EventStats(event), p.FindStatKey(h.strings, name));
}

}  // namespace tfprof::testing
