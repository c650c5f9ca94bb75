// A stable sort of (key, value) pairs of 32-bit unsigned keys by key, by
// the keys' digits 11 bits at a time from the lowest: as many passes over
// the pairs as the largest key has digits (two up to four million), each
// a count and a move, so the time does not depend on the order the pairs
// come in (std::stable_sort's merges run twice as long over pairs in no
// order as over nearly sorted ones). It takes a second array as large.
#pragma once

#include <algorithm>
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
  constexpr unsigned kDigitBits = 11;
  constexpr size_t kDigits = size_t{1} << kDigitBits;
  uint32_t largest = 0;
  for (const auto& p : pairs) largest = std::max(largest, p.first);
  if (largest == 0) return;
  // Every place of the spare array is written before it is read.
  const auto spare_array = std::make_unique_for_overwrite<std::pair<uint32_t, Value>[]>(pairs.size());
  const std::span<std::pair<uint32_t, Value>> spare(spare_array.get(), pairs.size());
  std::vector<size_t> at(kDigits);
  bool in_spare = false;  // Where the last pass left them.
  for (unsigned shift = 0; shift < 32 && (largest >> shift) != 0; shift += kDigitBits) {
    std::fill(at.begin(), at.end(), 0);
    auto pass = [&](const auto& from, auto& to) {
      auto digit = [shift](uint32_t key) { return (key >> shift) & (kDigits - 1); };
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
