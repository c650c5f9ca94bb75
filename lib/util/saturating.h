// Integer sums and differences stuck at the type's bounds instead of
// overflowing (undefined behaviour for signed values): sizes and times read
// from a hostile capture can be anything, and the readers and analyses add
// many of them.
#pragma once

#include <cstdint>
#include <limits>

namespace tfprof {

// a + b, stuck at the type's bound instead of wrapping round: a sum of many
// (cut spans, one per thread; a timeline's tensor sizes) stays ordered and
// never falls back to small.
inline uint64_t SaturatingAdd(uint64_t a, uint64_t b) {
  uint64_t sum;
  return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<uint64_t>::max() : sum;
}
inline int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t sum;
  if (!__builtin_add_overflow(a, b, &sum)) return sum;
  return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

inline int64_t SaturatingSub(int64_t a, int64_t b) {
  int64_t diff;
  if (!__builtin_sub_overflow(a, b, &diff)) return diff;
  return b < 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

}  // namespace tfprof
