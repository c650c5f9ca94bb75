// IdIndex: every id given gets one number below size(), distinct ids get
// distinct numbers, ids not given get none; the same whether the ids are
// dense enough for the bit table or scattered into the hash map, and at the
// ends of the int64 range.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <set>
#include <vector>

#include "lib/util/id_index.h"

using namespace tfprof;

namespace {

// Checks `index` against a plain reading of `ids`, and ids near each.
void CheckAgainstSet(const IdIndex& index, const std::vector<int64_t>& ids) {
  const std::set<int64_t> given(ids.begin(), ids.end());
  CHECK(index.size() == given.size());
  std::set<uint32_t> numbers;
  for (int64_t id : given) {
    const uint32_t n = index.Find(id);
    INFO("id " << id);
    REQUIRE(n != IdIndex::kNone);
    CHECK(n < index.size());
    numbers.insert(n);
  }
  CHECK(numbers.size() == given.size());  // One number per id.
  for (int64_t id : given)
    for (int64_t delta : {-64, -1, 1, 64}) {
      int64_t near;
      if (__builtin_add_overflow(id, delta, &near) || given.contains(near)) continue;
      INFO("absent id " << near);
      CHECK(index.Find(near) == IdIndex::kNone);
    }
}

}  // namespace

TEST_CASE("IdIndex over dense ids (CUPTI's correlation ids): bit table, repeats numbered once", "[util]") {
  std::vector<int64_t> ids;
  for (int64_t id = 815091; id < 815091 + 5000; id += 3) ids.push_back(id);
  ids.push_back(815091);  // Repeated.
  ids.push_back(900000);  // Past the others, still within the dense span.
  const IdIndex index(ids);
  CHECK(index.dense());
  CheckAgainstSet(index, ids);
  CHECK(index.Find(815090) == IdIndex::kNone);  // Below the lowest.
  CHECK(index.Find(900001) == IdIndex::kNone);  // Above the highest.
  CHECK(index.Find(std::numeric_limits<int64_t>::min()) == IdIndex::kNone);
  CHECK(index.Find(std::numeric_limits<int64_t>::max()) == IdIndex::kNone);
}

TEST_CASE("IdIndex over scattered ids: the hash map, the same answers", "[util]") {
  std::vector<int64_t> ids;
  for (int64_t k = 0; k < 1000; ++k) ids.push_back(k * 1000003 - 7);
  ids.push_back(-7);
  const IdIndex index(ids);
  CHECK_FALSE(index.dense());  // A span of 1,000 slots per id.
  CheckAgainstSet(index, ids);
}

TEST_CASE("IdIndex at the ends of int64 and with no ids", "[util]") {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
  const std::vector<int64_t> ends = {kMin, kMax, 0};
  const IdIndex scattered(ends);
  CHECK_FALSE(scattered.dense());
  CHECK(scattered.size() == 3);
  CHECK(scattered.Find(kMin) != IdIndex::kNone);
  CHECK(scattered.Find(kMax) != IdIndex::kNone);
  CHECK(scattered.Find(1) == IdIndex::kNone);

  const std::vector<int64_t> top = {kMax, kMax - 1, kMax - 100};
  const IdIndex high(top);
  CHECK(high.dense());
  CheckAgainstSet(high, top);
  // kMin - (kMax - 100) wraps to slot 101, past the highest id but in the
  // table's last word: its bit is never set.
  CHECK(high.Find(kMin) == IdIndex::kNone);

  const std::vector<int64_t> bottom = {kMin, kMin + 70, kMin + 1};
  const IdIndex low(bottom);
  CHECK(low.dense());
  CheckAgainstSet(low, bottom);
  CHECK(low.Find(kMax) == IdIndex::kNone);

  const IdIndex none{std::vector<int64_t>{}};
  CHECK(none.size() == 0);
  CHECK(none.Find(0) == IdIndex::kNone);
}

TEST_CASE("IdIndex: the bit table up to its bound, the hash map past it; all ids equal", "[util]") {
  // Two ids: dense while their span is below 256 * 2 + 65536 slots.
  const int64_t bound = static_cast<int64_t>(IdIndex::kDenseSlotsPerId * 2 + IdIndex::kDenseBase);
  const std::vector<int64_t> inside = {-1000, -1000 + bound - 1};
  const IdIndex dense(inside);
  CHECK(dense.dense());
  CheckAgainstSet(dense, inside);
  const std::vector<int64_t> past = {-1000, -1000 + bound};
  const IdIndex hashed(past);
  CHECK_FALSE(hashed.dense());
  CheckAgainstSet(hashed, past);

  const std::vector<int64_t> same = {42, 42, 42};
  const IdIndex one(same);
  CHECK(one.dense());
  CHECK(one.size() == 1);
  CHECK(one.Find(42) == 0);
  CHECK(one.Find(41) == IdIndex::kNone);
  CHECK(one.Find(43) == IdIndex::kNone);
}
