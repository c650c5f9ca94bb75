// StableRadixSortByFirst gives std::stable_sort's order: by key, equal keys
// in the order they came; for keys of one, two and three digits (of up to
// 13 bits: one pass to 8,192, two to 2^26, three beyond) and the largest key.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "lib/util/radix_sort.h"

using namespace tfprof;

namespace {

// Pairs of random keys below `bound`, each value its position, so that a
// reordering of equal keys shows.
std::vector<std::pair<uint32_t, uint32_t>> Numbered(size_t n, uint64_t bound, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<uint64_t> key(0, bound - 1);
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  for (size_t i = 0; i < n; ++i) pairs.emplace_back(static_cast<uint32_t>(key(rng)), static_cast<uint32_t>(i));
  return pairs;
}

std::vector<std::pair<uint32_t, uint32_t>> Expected(std::vector<std::pair<uint32_t, uint32_t>> pairs) {
  std::stable_sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return pairs;
}

}  // namespace

TEST_CASE("a radix sort by first keeps equal firsts in their order, whatever the keys' width", "[util]") {
  // Bounds: keys of one bit; one digit with many repeats (an odd number
  // of passes ends in the spare array), one of 13 bits, two digits of 11
  // and of 13 bits, three of 9 bits, and the whole 32 bits.
  for (const uint64_t bound :
       {uint64_t{2}, uint64_t{100}, uint64_t{1} << 11, uint64_t{5000}, uint64_t{1} << 13, uint64_t{1} << 22,
        uint64_t{3000000}, uint64_t{1} << 26, uint64_t{1} << 27, uint64_t{1} << 32}) {
    INFO("keys below " << bound);
    auto pairs = Numbered(20000, bound, static_cast<uint32_t>(bound % 1000003));
    const auto expected = Expected(pairs);
    StableRadixSortByFirst(pairs);
    CHECK(pairs == expected);
  }
}

TEST_CASE("a radix sort by first takes the largest key and all-zero keys", "[util]") {
  constexpr uint32_t kMax = std::numeric_limits<uint32_t>::max();
  std::vector<std::pair<uint32_t, uint32_t>> pairs{{kMax, 0}, {0, 1}, {kMax, 2}, {2048, 3}, {0, 4}, {2047, 5}};
  StableRadixSortByFirst(pairs);
  CHECK(pairs ==
        std::vector<std::pair<uint32_t, uint32_t>>{{0, 1}, {0, 4}, {2047, 5}, {2048, 3}, {kMax, 0}, {kMax, 2}});

  std::vector<std::pair<uint32_t, uint32_t>> zeros{{0, 3}, {0, 1}, {0, 2}};
  StableRadixSortByFirst(zeros);
  CHECK(zeros == std::vector<std::pair<uint32_t, uint32_t>>{{0, 3}, {0, 1}, {0, 2}});

  std::vector<std::pair<uint32_t, uint32_t>> none;
  StableRadixSortByFirst(none);
  CHECK(none.empty());
}
