// A whole string read as a number, or nothing: std::from_chars with the
// check every caller needs (all of the text, no sign, space or suffix
// beyond what from_chars reads itself).
#pragma once

#include <charconv>
#include <string_view>

namespace tfprof {

// `out` is set only when all of `s` is the number (decimal; a '-' for a
// signed type).
template <typename T>
bool ParseWhole(std::string_view s, T* out) {
  T value;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), value);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return false;
  *out = value;
  return true;
}

}  // namespace tfprof
