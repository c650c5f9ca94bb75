// Internal to event grouping (event_forest.cc): TensorFlow's producer /
// consumer contexts into links between events. An event names a context
// on either side with a type, an id and a process (_pt/_p, _ct/_c, _pid);
// each of a context's producers is a parent of each of its consumers,
// unless both sides have 64 or more events (the reference's bound on the
// links). A current TF capture names a context on about one event in
// three, most contexts with one producer and one consumer.
//
// How, and why so: the walk's pieces note their events in 16-byte entries
// (ContextNotes); once every piece is walked the entries are spread by a
// hash of the context's id over a few thousand buckets, in parallel and
// in order (ContextBuckets), and each bucket, small enough to stay in
// the cache, has its entries gathered by context on its own (a counting
// sort on a number per context; std::sort there took 3.4x the CPU,
// session 39). One std::sort of a piece's million
// 32-byte entries took 110 ms on one thread while the other piece's took
// 15 (tfcpu_100); a hash map of lists per context, 0.9 s and 220 MB for
// 0.6 M contexts; spreading the entries in place, swap by swap, 100 ms
// (each swap waits for the one before). docs/performance-history.md,
// sessions 36 and 37.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lib/model/default_init_allocator.h"

namespace tfprof::grouping_internal {

// One event naming a context on one side. `scope` is the context's
// (type, process) pair's number, shifted left once, with bit 0 set for a
// consumer: ordering by (id, scope, node) puts a context's events
// together, producers first, each side in node order.
struct ContextEntry {
  int64_t id;
  uint32_t scope;
  uint32_t node;
  bool operator<(const ContextEntry& o) const {
    if (id != o.id) return id < o.id;
    if (scope != o.scope) return scope < o.scope;
    return node < o.node;
  }
};

// The events of one walk piece that name a context, in node order, and
// the (type, process) pairs their scopes number (in this piece's own
// numbering until ContextBuckets). The entries are kept in blocks of
// 1 MB that never move: a growing array copied itself into fresh pages
// at each doubling (a 1 GB current-TF capture: 11.5 M entries, 184 MB
// copied and as much faulted in and given back).
class ContextNotes {
 public:
  void Add(int64_t type, int64_t id, int64_t pid, uint32_t node, bool consumer);
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  // Calls visit(entry) for entries [from, to), in order.
  template <typename Visit>
  void ForEach(size_t from, size_t to, Visit visit) const {
    while (from < to) {
      const ContextEntry* block = blocks_[from >> kBlockBits].get();
      const size_t end = std::min(to, ((from >> kBlockBits) + 1) << kBlockBits);
      for (size_t i = from & kBlockMask, n = i + (end - from); i < n; ++i) visit(block[i]);
      from = end;
    }
  }

 private:
  friend class ContextBuckets;
  static constexpr unsigned kBlockBits = 16;
  static constexpr size_t kBlockMask = (size_t{1} << kBlockBits) - 1;
  std::vector<std::unique_ptr<ContextEntry[]>> blocks_;
  size_t size_ = 0;
  std::vector<std::pair<int64_t, int64_t>> scopes_;
  absl::flat_hash_map<std::pair<int64_t, int64_t>, uint32_t> scope_number_;
  // The last pair numbered: nearly every event of a capture names the
  // same one.
  std::pair<int64_t, int64_t> last_scope_{};
  uint32_t last_number_ = UINT32_MAX;
};

// Every piece's entries, in buckets by a hash of the id, each bucket's
// gathered by context (producers first, each side in node order), with
// one numbering of the scopes.
class ContextBuckets {
 public:
  // `pieces` in node order; emptied. Runs on up to `threads` threads, on
  // one for fewer entries than `min_parallel`.
  ContextBuckets(std::vector<ContextNotes>& pieces, size_t threads, size_t min_parallel);

  // Calls link(producer, consumer) for every link the contexts make:
  // context by context, a context's producers in node order, each with
  // its consumers in node order. Contexts come in bucket order, which
  // changes no node's links: an event names at most one context on each
  // side, so all its parents through contexts come from one context, in
  // node order, and all its children go to one.
  template <typename Link>
  void ForEachLink(Link link) const;

  // How many buckets were sorted rather than gathered (too large, or too
  // many probes of the gathering's table).
  size_t buckets_sorted() const { return buckets_sorted_; }

 private:
  size_t buckets_sorted_ = 0;
  std::vector<ContextEntry, DefaultInitAllocator<ContextEntry>> entries_;  // Every place written once.
};

template <typename Link>
void ContextBuckets::ForEachLink(Link link) const {
  // Bounded so that a context named by many events on both sides does
  // not make their product in links (the reference's rule).
  constexpr size_t kMaxBothSides = 64;
  const size_t n = entries_.size();
  for (size_t i = 0; i < n;) {
    const int64_t id = entries_[i].id;
    const uint32_t scope = entries_[i].scope >> 1;
    size_t consumers = i;
    while (consumers < n && entries_[consumers].id == id && entries_[consumers].scope == scope << 1) ++consumers;
    size_t end = consumers;
    while (end < n && entries_[end].id == id && entries_[end].scope == ((scope << 1) | 1)) ++end;
    if (consumers - i < kMaxBothSides || end - consumers < kMaxBothSides)
      for (size_t p = i; p < consumers; ++p)
        for (size_t c = consumers; c < end; ++c) link(entries_[p].node, entries_[c].node);
    i = end;
  }
}

}  // namespace tfprof::grouping_internal
