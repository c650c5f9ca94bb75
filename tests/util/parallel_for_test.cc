// ParallelFor: every index once, worker ids within the thread count, and a
// throw reported as a serial loop would report it (the lowest index's).
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

TEST_CASE("ParallelFor rethrows the lowest index's exception, after every thread is done", "[util]") {
  // Index 3 throws late, index 40 at once: the serial loop would have
  // thrown index 3's, and so must the parallel one; every other index
  // still runs (none is left half done when the call returns).
  std::atomic<int> finished{0};
  auto body = [&](size_t i) {
    if (i == 3) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      throw std::runtime_error("index 3");
    }
    if (i == 40) throw std::runtime_error("index 40");
    finished.fetch_add(1);
  };
  CHECK_THROWS_WITH(ParallelFor(100, 2, body), "index 3");
  CHECK(finished == 98);
  finished = 0;
  CHECK_THROWS_WITH(ParallelFor(100, 1, body), "index 3");  // Serial: stops at the first throw.
  CHECK(finished == 3);
}
