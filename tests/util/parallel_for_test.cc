// ParallelFor: every index once, worker ids within the thread count, and a
// throw reported as a serial loop would report it (the lowest index's),
// with no index taken after it; the largest-first order.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "lib/util/parallel_for.h"

using namespace tfprof;

TEST_CASE("ParallelFor runs every index once, on at most the threads asked for", "[util]") {
  for (size_t threads : {size_t{0}, size_t{1}, size_t{2}, size_t{4}, size_t{64}}) {
    INFO("threads " << threads);
    constexpr size_t kItems = 1000;
    std::vector<std::atomic<int>> runs(kItems);
    std::vector<size_t> worker_of(kItems, SIZE_MAX);
    ParallelForWorkers(kItems, threads, [&](size_t i, size_t worker) {
      runs[i].fetch_add(1);
      worker_of[i] = worker;
    });
    bool once = true, in_range = true;
    for (size_t i = 0; i < kItems; ++i) {
      once = once && runs[i] == 1;
      in_range = in_range && worker_of[i] < std::max<size_t>(threads, 1);
    }
    CHECK(once);
    CHECK(in_range);
  }
  size_t calls = 0;
  ParallelFor(0, 4, [&](size_t) { ++calls; });
  CHECK(calls == 0);
}

TEST_CASE("LargestFirst orders indices by decreasing size, ties in index order", "[util]") {
  const std::vector<size_t> sizes = {3, 9, 3, 0, 9, 5};
  CHECK(LargestFirst(sizes.size(), [&](size_t i) { return sizes[i]; }) == std::vector<size_t>{1, 4, 5, 0, 2, 3});
  CHECK(LargestFirst(0, [](size_t) { return 0; }).empty());
  CHECK(ThreadsForEvents(100) == 1);
  CHECK(ThreadsForEvents(size_t{1} << 20) == std::min<size_t>(HardwareThreads(), 4));
}

TEST_CASE("ParallelFor rethrows the lowest index's exception and stops taking indices", "[util]") {
  // On two threads, the one that takes index 3 sleeps, then throws; the
  // other runs on until index 40 throws at once. The serial loop would have
  // thrown index 3's, and so must the parallel one. Every index below 3
  // was taken before it and ran; once 40 has thrown (and the sleeper is
  // still on 3), no index above 40 is taken.
  std::vector<std::atomic<int>> ran(100);
  auto body = [&](size_t i) {
    if (i == 3) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      throw std::runtime_error("index 3");
    }
    if (i == 40) throw std::runtime_error("index 40");
    ran[i] = 1;
  };
  CHECK_THROWS_WITH(ParallelFor(100, 2, body), "index 3");
  CHECK((ran[0] == 1 && ran[1] == 1 && ran[2] == 1));
  int above = 0;
  for (size_t i = 41; i < 100; ++i) above += ran[i];
  CHECK(above == 0);
  for (auto& r : ran) r = 0;
  CHECK_THROWS_WITH(ParallelFor(100, 1, body), "index 3");  // Serial: stops at the first throw.
  int serial = 0;
  for (auto& r : ran) serial += r;
  CHECK(serial == 3);
}

TEST_CASE("CutIntoParts cuts each item into parts of at most `most`, in order, skipping empty items", "[util]") {
  const std::vector<size_t> sizes = {5, 0, 1, 8, 4};
  const auto parts = CutIntoParts(
      sizes.size(), [&](size_t i) { return sizes[i]; }, 4);
  struct Want {
    size_t item, begin, end;
  };
  const std::vector<Want> want = {{0, 0, 4}, {0, 4, 5}, {2, 0, 1}, {3, 0, 4}, {3, 4, 8}, {4, 0, 4}};
  REQUIRE(parts.size() == want.size());
  for (size_t k = 0; k < want.size(); ++k) {
    INFO("part " << k);
    CHECK(parts[k].item == want[k].item);
    CHECK(parts[k].begin == want[k].begin);
    CHECK(parts[k].end == want[k].end);
  }
  // `most` 0 is taken as 1: a part per element, never an endless loop.
  const auto ones = CutIntoParts(
      1, [](size_t) { return size_t{3}; }, 0);
  REQUIRE(ones.size() == 3);
  CHECK(ones[2].begin == 2);
  CHECK(ones[2].end == 3);
  CHECK(CutIntoParts(
            0, [](size_t) { return size_t{9}; }, 4)
            .empty());
}
