// Numbers a set of 64-bit ids 0, 1, 2, ..., for tables keyed by ids a
// profiler hands out in sequence (CUPTI's correlation ids, one per runtime
// call, of which a trace keeps a part: a real Kineto trace's GPU
// activities hold one id in 16 of the span theirs cover). Where the ids'
// span is at most kDenseSlotsPerId slots per id, a bit per slot marks the
// ids and an id's number is the count of ids below it (a count per 64
// slots plus one popcount): a lookup reads two words, where a hash probe
// of a table this size misses the cache. Otherwise (sparse, hostile or
// scattered ids) a hash map.
#pragma once

#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace tfprof {

class IdIndex {
 public:
  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  // A slot costs 1.5 bits (its bit and its share of the counts): at most
  // 48 bytes per id given (repeats count: memory linear in the input, as
  // a hash map's), plus kDenseBase slots.
  static constexpr uint64_t kDenseSlotsPerId = 256;
  static constexpr uint64_t kDenseBase = uint64_t{1} << 16;

  IdIndex() = default;
  // `ids` may repeat. Fewer than kNone distinct ids (a trace has far fewer
  // events). Which number an id gets is the index's choice.
  explicit IdIndex(std::span<const int64_t> ids) {
    if (ids.empty()) return;
    int64_t lo = ids[0], hi = ids[0];
    for (int64_t id : ids) {
      lo = id < lo ? id : lo;
      hi = id > hi ? id : hi;
    }
    // hi - lo as unsigned: no overflow for any two int64 values.
    const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    if (span < kDenseSlotsPerId * ids.size() + kDenseBase) {
      lo_ = lo;
      bits_.assign(span / 64 + 1, 0);
      for (int64_t id : ids) {
        const uint64_t at = Offset(id);
        bits_[at / 64] |= uint64_t{1} << (at % 64);
      }
      below_.resize(bits_.size());
      uint32_t count = 0;
      for (size_t w = 0; w < bits_.size(); ++w) {
        below_[w] = count;
        count += static_cast<uint32_t>(std::popcount(bits_[w]));
      }
      size_ = count;
      assert(size_ < kNone);
      return;
    }
    hashed_.reserve(ids.size());
    for (int64_t id : ids)
      if (hashed_.try_emplace(id, size_).second) ++size_;
    assert(size_ < kNone);
  }

  // The id's number, or kNone.
  uint32_t Find(int64_t id) const {
    if (!bits_.empty()) {
      const uint64_t at = Offset(id);
      if (at / 64 >= bits_.size()) return kNone;
      const uint64_t word = bits_[at / 64], bit = uint64_t{1} << (at % 64);
      if ((word & bit) == 0) return kNone;
      return below_[at / 64] + static_cast<uint32_t>(std::popcount(word & (bit - 1)));
    }
    const auto it = hashed_.find(id);
    return it == hashed_.end() ? kNone : it->second;
  }
  // How many distinct ids were given.
  size_t size() const { return size_; }
  // Whether lookups read the bits (for tests).
  bool dense() const { return !bits_.empty(); }

 private:
  uint64_t Offset(int64_t id) const { return static_cast<uint64_t>(id) - static_cast<uint64_t>(lo_); }

  int64_t lo_ = 0;
  uint32_t size_ = 0;
  std::vector<uint64_t> bits_;   // Bit (id - lo_) set for each id.
  std::vector<uint32_t> below_;  // Per word of bits_: the ids in the words before it.
  absl::flat_hash_map<int64_t, uint32_t> hashed_;
};

}  // namespace tfprof
