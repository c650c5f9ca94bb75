// ContextBuckets: each of a context's producers links to each of its
// consumers, a context being its (type, id, process), unless both sides
// have 64 or more events; every producer's consumers and every consumer's
// producers come in node order; the same links in the same order on one
// thread or two, however the pieces numbered their scopes. Checked by hand
// on small cases and against a plain map of contexts on 300 k random
// entries (the parallel path: more than 2^16, several chunks).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

#include "lib/summary/context_links.h"

using namespace tfprof::grouping_internal;

namespace {

using Links = std::vector<std::pair<uint32_t, uint32_t>>;

Links LinksOf(std::vector<ContextNotes> pieces, size_t threads, size_t* sorted = nullptr) {
  Links out;
  // Two threads spread and sort even a few entries in parallel.
  const ContextBuckets buckets(pieces, threads, /*min_parallel=*/1);
  buckets.ForEachLink([&](uint32_t p, uint32_t c) { out.emplace_back(p, c); });
  if (sorted) *sorted = buckets.buckets_sorted();
  return out;
}

// Each node's links on one side, in the order they were made.
std::map<uint32_t, std::vector<uint32_t>> BySide(const Links& links, bool by_producer) {
  std::map<uint32_t, std::vector<uint32_t>> out;
  for (const auto& [p, c] : links) {
    if (by_producer) out[p].push_back(c);
    else out[c].push_back(p);
  }
  return out;
}

struct Note {
  int64_t type, id, pid;
  uint32_t node;
  bool consumer;
};

}  // namespace

TEST_CASE("a context links its producers to its consumers, in node order, within its type, id and process",
          "[grouping]") {
  std::vector<ContextNotes> pieces(2);
  pieces[0].Add(1, 5, 0, 0, false);
  pieces[0].Add(1, 5, 0, 3, true);
  pieces[0].Add(2, 5, 0, 4, true);  // Another type: another context, with no producer.
  pieces[0].Add(1, 5, 7, 6, true);  // Another process: the same.
  pieces[1].Add(1, 5, 0, 10, false);
  pieces[1].Add(1, 5, 0, 11, true);
  pieces[1].Add(1, 6, 0, 12, false);  // Another id: no consumer.
  CHECK(LinksOf(std::move(pieces), 1) == Links{{0, 3}, {0, 11}, {10, 3}, {10, 11}});
}

TEST_CASE("contexts link alike whichever order each walk piece met their types and processes", "[grouping]") {
  // Piece 0 numbers (1, 0) before (2, 9); piece 1 the other way round.
  std::vector<ContextNotes> pieces(2);
  pieces[0].Add(1, 9, 0, 0, false);
  pieces[0].Add(2, 9, 9, 1, false);
  pieces[1].Add(2, 9, 9, 2, true);
  pieces[1].Add(1, 9, 0, 3, true);
  pieces[1].Add(2, 8, 9, 4, true);
  const Links links = LinksOf(std::move(pieces), 2);
  CHECK(std::map<uint32_t, uint32_t>(links.begin(), links.end()) == std::map<uint32_t, uint32_t>{{0, 3}, {1, 2}});
  CHECK(links.size() == 2);
}

TEST_CASE("a context with 64 or more events on both sides makes no links", "[grouping]") {
  for (const auto& [producers, consumers, expected] :
       {std::tuple{64u, 64u, 0u}, std::tuple{64u, 63u, 64u * 63u}, std::tuple{63u, 200u, 63u * 200u}}) {
    std::vector<ContextNotes> pieces(1);
    uint32_t node = 0;
    for (uint32_t i = 0; i < producers; ++i) pieces[0].Add(0, 77, 0, node++, false);
    for (uint32_t i = 0; i < consumers; ++i) pieces[0].Add(0, 77, 0, node++, true);
    INFO(producers << " producers, " << consumers << " consumers");
    CHECK(LinksOf(std::move(pieces), 1).size() == expected);
  }
}

TEST_CASE("300 k random context entries link as a plain map of contexts says, on one thread or two", "[grouping]") {
  std::mt19937_64 rng(37);
  std::vector<Note> notes;
  // Ids from a small range so that many contexts have several events on a
  // side (a few over 64 on both), types and processes from a few; each
  // node names at most one context on each side, as a TF event does.
  std::uniform_int_distribution<int64_t> id(-20000, 60000), type(0, 2), pid(0, 1);
  std::uniform_int_distribution<int> side(0, 3);
  for (uint32_t node = 0; notes.size() < 300000; ++node) {
    const int s = side(rng);  // 0: producer, 1: consumer, 2: both, 3: none.
    if (s == 0 || s == 2) notes.push_back({type(rng), id(rng), pid(rng), node, false});
    if (s == 1 || s == 2) notes.push_back({type(rng), id(rng), pid(rng), node, true});
  }
  for (uint32_t hot = 0; hot < 70; ++hot) {  // One context with 70 on each side, at the end.
    notes.push_back({1, 123456789, 0, 10000000 + 2 * hot, false});
    notes.push_back({1, 123456789, 0, 10000001 + 2 * hot, true});
  }
  // The expected links from a map of contexts.
  std::map<std::tuple<int64_t, int64_t, int64_t>, std::pair<std::vector<uint32_t>, std::vector<uint32_t>>> contexts;
  for (const Note& n : notes) {
    auto& sides = contexts[{n.type, n.id, n.pid}];
    (n.consumer ? sides.second : sides.first).push_back(n.node);
  }
  Links expected;
  size_t skipped = 0;
  for (const auto& [key, sides] : contexts) {
    if (sides.first.size() >= 64 && sides.second.size() >= 64) {
      ++skipped;
      continue;
    }
    for (uint32_t p : sides.first)
      for (uint32_t c : sides.second) expected.emplace_back(p, c);
  }
  REQUIRE(skipped == 1);

  // Three pieces, in node order.
  auto pieces_of = [&] {
    std::vector<ContextNotes> pieces(3);
    for (size_t i = 0; i < notes.size(); ++i)
      pieces[i * 3 / notes.size()].Add(notes[i].type, notes[i].id, notes[i].pid, notes[i].node, notes[i].consumer);
    return pieces;
  };
  size_t sorted = 1;
  const Links one = LinksOf(pieces_of(), 1, &sorted);
  CHECK(sorted == 0);  // Every bucket gathered through the table.
  const Links two = LinksOf(pieces_of(), 2);
  CHECK(one == two);
  CHECK(one.size() == expected.size());
  CHECK(BySide(one, true) == BySide(expected, true));
  CHECK(BySide(one, false) == BySide(expected, false));
}

TEST_CASE("context notes keep their entries in order across their 1 MB blocks", "[grouping]") {
  // 65,536 entries a block: ranges within one block, across one boundary
  // and across two, and the whole.
  ContextNotes notes;
  constexpr uint32_t kEntries = 200000;
  for (uint32_t node = 0; node < kEntries; ++node) notes.Add(1, node * 3, 0, node, node % 2 == 1);
  REQUIRE(notes.size() == kEntries);
  for (const auto& [from, to] : std::vector<std::pair<size_t, size_t>>{
           {0, 10}, {65530, 65540}, {65536, 65537}, {70000, 140000}, {1, kEntries}, {0, kEntries}, {5, 5}}) {
    INFO("entries " << from << " to " << to);
    size_t visited = 0, wrong = 0;
    notes.ForEach(from, to, [&](const ContextEntry& e) {
      const bool right =
          e.node == from + visited && e.id == static_cast<int64_t>(e.node) * 3 && (e.scope & 1) == e.node % 2;
      wrong += right ? 0 : 1;
      ++visited;
    });
    CHECK(visited == to - from);
    CHECK(wrong == 0);
  }
}

TEST_CASE("a bucket of more entries than are gathered by number links as a small one", "[grouping]") {
  // Every entry names id 5, so all 70,040 fall in one bucket, past the
  // 65,536 gathered through the table: that bucket is sorted instead.
  // Two contexts share the id (types 1 and 2), their entries interleaved.
  std::vector<ContextNotes> pieces(1);
  uint32_t node = 0;
  pieces[0].Add(1, 5, 0, node++, false);  // Type 1: one producer...
  for (uint32_t i = 0; i < 70000; ++i) {
    pieces[0].Add(1, 5, 0, node++, true);                              // ... and 70,000 consumers.
    if (i % 3500 == 0) pieces[0].Add(2, 5, 0, node++, i % 7000 == 0);  // Type 2: 10 producers, 10 consumers.
  }
  for (uint32_t i = 0; i < 19; ++i) pieces[0].Add(3, 5, 0, node++, false);  // Type 3: producers only.
  size_t sorted = 0;
  const Links links = LinksOf(std::move(pieces), 1, &sorted);
  CHECK(sorted == 1);
  // Type 1: node 0 to each consumer, in node order.
  const auto by_producer = BySide(links, true);
  REQUIRE(by_producer.count(0) == 1);
  const std::vector<uint32_t>& from_first = by_producer.at(0);
  CHECK(from_first.size() == 70000);
  CHECK(std::is_sorted(from_first.begin(), from_first.end()));
  // Type 2: each of its 10 producers to each of its 10 consumers.
  size_t type2 = 0;
  for (const auto& [p, consumers] : by_producer)
    if (p != 0) {
      CHECK(consumers.size() == 10);
      type2 += consumers.size();
    }
  CHECK(type2 == 100);
  CHECK(links.size() == 70100);
}

TEST_CASE("ids chosen to collide in the gathering's table are sorted instead, and link alike", "[grouping]") {
  // The table's slot is a fixed mix of the id (murmur's finaliser), which
  // can be undone: 2,000 ids that share a bucket and whose slots' low 17
  // bits are all 0, so that every one probes from the same slot. Each is
  // a context with one producer and one consumer. Without the bound on the
  // probes, numbering them took time growing as the square of the bucket.
  auto inverse = [](uint64_t a) {  // Of an odd multiplier, mod 2^64 (Newton).
    uint64_t x = a;
    for (int i = 0; i < 6; ++i) x *= 2 - a * x;
    return x;
  };
  const uint64_t undo = inverse(0xff51afd7ed558ccdull);
  auto bucket = [](int64_t id) { return (static_cast<uint64_t>(id) * 0x9E3779B97F4A7C15ull) >> 52; };
  std::vector<int64_t> ids;
  for (uint64_t k = 1; ids.size() < 2000; ++k) {
    uint64_t x = k << 17;  // The slot's hash wanted.
    x ^= x >> 33;
    x *= undo;
    x ^= x >> 33;
    if (bucket(static_cast<int64_t>(x)) == 5) ids.push_back(static_cast<int64_t>(x));
  }
  std::vector<ContextNotes> pieces(1);
  Links expected;
  uint32_t node = 0;
  for (const int64_t id : ids) {
    pieces[0].Add(0, id, 0, node, false);
    pieces[0].Add(0, id, 0, node + 1, true);
    expected.emplace_back(node, node + 1);
    node += 2;
  }
  size_t sorted = 0;
  Links links = LinksOf(std::move(pieces), 1, &sorted);
  CHECK(sorted == 1);
  std::sort(links.begin(), links.end());
  CHECK(links == expected);
}
