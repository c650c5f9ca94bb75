// A stable sort of (key, value) pairs of 32-bit unsigned keys by key, by
// the keys' digits from the lowest: as few passes over the pairs as digits
// of at most 13 bits allow (two up to 64 million, three beyond), each a
// count and a move, so the time does not depend on the order the pairs
// come in (std::stable_sort's merges run twice as long over pairs in no
// order as over nearly sorted ones). It takes a second array as large.
// Digits of 11 bits at most took three passes from four million keys on:
// a 1 GB capture's 37 M nodes (its links' sorts, tfcpu: 5.5% of `overview`).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

namespace tfprof {

// Sorts `pairs` by .first, pairs with equal firsts in the order they came:
// std::stable_sort's result.
template <class Value>
void StableRadixSortByFirst(std::vector<std::pair<uint32_t, Value>>& pairs) {
  constexpr unsigned kMostDigitBits = 13;  // A count array of 64 KB, in the cache.
  uint32_t largest = 0;
  for (const auto& p : pairs) largest = std::max(largest, p.first);
  if (largest == 0) return;
  const auto key_bits = static_cast<unsigned>(std::bit_width(largest));
  const unsigned passes = (key_bits + kMostDigitBits - 1) / kMostDigitBits;
  const unsigned digit_bits = (key_bits + passes - 1) / passes;
  const size_t digits = size_t{1} << digit_bits;
  // Every place of the spare array is written before it is read.
  const auto spare_array = std::make_unique_for_overwrite<std::pair<uint32_t, Value>[]>(pairs.size());
  const std::span<std::pair<uint32_t, Value>> spare(spare_array.get(), pairs.size());
  std::vector<size_t> at(digits);
  bool in_spare = false;  // Where the last pass left them.
  for (unsigned shift = 0; shift < key_bits; shift += digit_bits) {
    std::fill(at.begin(), at.end(), 0);
    auto pass = [&](const auto& from, auto& to) {
      auto digit = [shift, digits](uint32_t key) { return (key >> shift) & (digits - 1); };
      for (const auto& p : from) ++at[digit(p.first)];
      size_t place = 0;
      for (size_t& a : at) place += std::exchange(a, place);
      for (const auto& p : from) to[at[digit(p.first)]++] = p;
    };
    if (in_spare) pass(spare, pairs);
    else pass(pairs, spare);
    in_spare = !in_spare;
  }
  if (in_spare) std::copy(spare.begin(), spare.end(), pairs.begin());
}

}  // namespace tfprof
