// Lookups into a read model that the reader and conventions tests share.
#pragma once

#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

// The names of the host's planes, in the model's order.
inline std::vector<std::string> PlaneNames(const Host& h) {
  std::vector<std::string> names;
  for (const Plane& p : h.planes) names.emplace_back(h.PlaneName(p));
  return names;
}

// The names of the plane's lines, in the model's order.
inline std::vector<std::string> LineNames(const Host& h, const Plane& p) {
  std::vector<std::string> names;
  for (const Line& l : p.lines) names.emplace_back(h.LineName(l));
  return names;
}

// Stat `name` of event `event` of line `l` on plane `p`, if it has one.
inline std::optional<Stat> EventStat(const Host& h, const Plane& p, const Line& l, size_t event,
                                     std::string_view name) {
  return FindStatIn(l.EventStats(event), p.FindStatKey(h.strings, name));
}

}  // namespace tfprof::testing
