// Internal to the XPlane reader: the XSpace schema's field numbers and the
// map from the capture's metadata ids to dense indexes.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace tfprof::xplane_wire {

// Field numbers (see proto/xplane.proto).
enum : uint32_t { kSpacePlanes = 1, kSpaceErrors = 2, kSpaceWarnings = 3, kSpaceHostnames = 4 };
// clang-format off
enum : uint32_t {
  kPlaneId = 1, kPlaneName = 2, kPlaneLines = 3, kPlaneEventMetadata = 4, kPlaneStatMetadata = 5, kPlaneStats = 6
};
enum : uint32_t {
  kLineId = 1, kLineName = 2, kLineTimestampNs = 3, kLineEvents = 4, kLineDurationPs = 9, kLineDisplayId = 10,
  kLineDisplayName = 11
};
enum : uint32_t {
  kEventMetadataId = 1, kEventOffsetPs = 2, kEventDurationPs = 3, kEventStats = 4, kEventNumOccurrences = 5
};
enum : uint32_t {
  kStatMetadataId = 1, kStatDouble = 2, kStatUint64 = 3, kStatInt64 = 4, kStatStr = 5, kStatBytes = 6, kStatRef = 7
};
// clang-format on
enum : uint32_t { kMapKey = 1, kMapValue = 2 };
enum : uint32_t { kEventMetaName = 2, kEventMetaDisplayName = 4, kEventMetaStats = 5 };
enum : uint32_t { kStatMetaName = 2 };

// Maps the capture's int64 metadata ids to dense indexes. Ids are usually
// small and dense (1..N), so a flat table serves them; anything else goes to
// a hash map. Read-only once built, so decoding threads share it.
class IdMap {
 public:
  static constexpr uint32_t kMissing = std::numeric_limits<uint32_t>::max();

  void Build(const std::vector<int64_t>& ids) {
    table_.clear();
    hash_.clear();
    int64_t max_id = -1;
    bool all_small = true;
    for (int64_t id : ids) {
      if (id < 0) all_small = false;
      max_id = std::max(max_id, id);
    }
    if (all_small && max_id < static_cast<int64_t>(4 * ids.size() + 1024)) {
      table_.assign(static_cast<size_t>(max_id + 1), kMissing);
      for (size_t i = 0; i < ids.size(); ++i) table_[static_cast<size_t>(ids[i])] = static_cast<uint32_t>(i);
    } else {
      for (size_t i = 0; i < ids.size(); ++i) hash_[ids[i]] = static_cast<uint32_t>(i);
    }
  }
  // Memory the map holds (for the reader's MemoryBudget).
  uint64_t MemoryBytes() const {
    return table_.capacity() * sizeof(uint32_t) + hash_.capacity() * (sizeof(std::pair<int64_t, uint32_t>) + 1);
  }
  // The flat table (empty when the ids are sparse), for a decoding loop to
  // keep in registers.
  const uint32_t* dense_data() const { return table_.data(); }
  size_t dense_size() const { return table_.size(); }
  // Runs for every event and stat: the flat table stays inline, the hash
  // map (sparse ids, rare) is out of line.
  inline __attribute__((always_inline)) uint32_t Find(int64_t id) const {
    if (__builtin_expect(static_cast<uint64_t>(id) < table_.size(), 1)) return table_[static_cast<size_t>(id)];
    return FindSparse(id);
  }

 private:
  __attribute__((noinline)) uint32_t FindSparse(int64_t id) const {
    if (hash_.empty()) return kMissing;
    auto it = hash_.find(id);
    return it == hash_.end() ? kMissing : it->second;
  }

  std::vector<uint32_t> table_;
  absl::flat_hash_map<int64_t, uint32_t> hash_;
};

}  // namespace tfprof::xplane_wire
