// A loop over independent items on a few threads, for the passes that work
// per line or per plane once a capture is read.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace tfprof {

// The machine's hardware threads, read once per process (the call reads
// /sys every time).
inline size_t HardwareThreads() {
  static const size_t n = std::max(1u, std::thread::hardware_concurrency());
  return n;
}

// How many threads a pass over `events` events takes: one for a small
// capture, where starting threads costs more than it saves, else up to 4.
inline size_t ThreadsForEvents(size_t events) {
  return events < (size_t{1} << 16) ? 1 : std::min<size_t>(HardwareThreads(), 4);
}

// The indices [0, n) by decreasing size_of(i), ties in index order: handed
// to ParallelFor in this order, the largest items start first and the
// threads' shares even out.
template <class SizeOf>
std::vector<size_t> LargestFirst(size_t n, SizeOf&& size_of) {
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return size_of(a) > size_of(b); });
  return order;
}

// Part [begin, end) of item `item`, for a pass that works on parts of
// items (the events of lines) rather than whole ones: one long line (a
// GPU stream holding most kernels) would else keep one thread busy while
// the others wait.
struct ItemPart {
  size_t item, begin, end;
};

// Items [0, n) of size_of(i) elements cut into parts of at most `most`
// elements (at least 1), in item order and within an item in element
// order, so that per-part results joined in this order are the results of
// one serial pass. Empty items have no part.
template <class SizeOf>
std::vector<ItemPart> CutIntoParts(size_t n, SizeOf&& size_of, size_t most) {
  most = std::max<size_t>(most, 1);
  std::vector<ItemPart> parts;
  for (size_t i = 0; i < n; ++i) {
    const size_t size = size_of(i);
    for (size_t b = 0; b < size; b += most) parts.push_back({i, b, std::min(size, b + most)});
  }
  return parts;
}

// Runs fn(i, worker) for every i in [0, n) on up to `threads` threads, the
// caller's among them, taking indices in order; `worker` < `threads` names
// the thread, for state kept per thread. Once one throws, no thread takes
// another index, and when every thread is done the exception of the
// lowest index is rethrown: the one a serial loop would have thrown (every
// index below it was taken before it, and ran).
template <class Fn>
void ParallelForWorkers(size_t n, size_t threads, Fn&& fn) {
  threads = std::min(threads, n);
  if (threads <= 1) {
    for (size_t i = 0; i < n; ++i) fn(i, size_t{0});
    return;
  }
  std::atomic<size_t> next{0};
  std::vector<std::exception_ptr> errors(n);
  auto work = [&](size_t worker) {
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) {
      try {
        fn(i, worker);
      } catch (...) {
        errors[i] = std::current_exception();
        next.store(n, std::memory_order_relaxed);  // Stop the others early.
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

// The same, fn(i) without the worker.
template <class Fn>
void ParallelFor(size_t n, size_t threads, Fn&& fn) {
  ParallelForWorkers(n, threads, [&](size_t i, size_t) { fn(i); });
}

}  // namespace tfprof
