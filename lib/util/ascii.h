// ASCII case-insensitive matching on std::string_view (the Debian abseil's
// StartsWithIgnoreCase takes its own string_view, not std's).
#pragma once

#include <cctype>
#include <string_view>

namespace tfprof {

inline bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != std::tolower(static_cast<unsigned char>(prefix[i])))
      return false;
  return true;
}

}  // namespace tfprof
