// Splitting strings into views (the Debian abseil's StrSplit does not take
// std::string_view).
#pragma once

#include <string_view>
#include <vector>

namespace tfprof {

// Every piece between separators (any character of `separators`), empty
// pieces included, as absl::StrSplit does.
inline std::vector<std::string_view> SplitAny(std::string_view s, std::string_view separators) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    size_t at = s.find_first_of(separators, start);
    if (at == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, at - start));
    start = at + 1;
  }
}

inline std::vector<std::string_view> Split(std::string_view s, std::string_view separator) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    size_t at = s.find(separator, start);
    if (at == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, at - start));
    start = at + separator.size();
  }
}

}  // namespace tfprof
