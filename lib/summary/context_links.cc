#include "lib/summary/context_links.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "lib/util/parallel_for.h"

namespace tfprof::grouping_internal {
namespace {

constexpr unsigned kBucketBits = 12;
constexpr size_t kBuckets = size_t{1} << kBucketBits;

// Fibonacci hashing: ids counted up one by one, as TensorFlow numbers its
// contexts, land in different buckets.
inline size_t BucketOf(int64_t id) {
  return static_cast<size_t>((static_cast<uint64_t>(id) * 0x9E3779B97F4A7C15ull) >> (64 - kBucketBits));
}

// Scopes are numbered below this so that a number shifted left once, with
// the side in bit 0, fits a ContextEntry's scope.
constexpr uint32_t kMaxScopes = uint32_t{1} << 31;

// Gathers a bucket's entries (in node order) by context: each context's
// producers, then its consumers, each side still in node order; contexts
// in the order their first entry comes (ForEachLink needs no other). A
// counting sort on each entry's context, numbered through a hash table:
// two passes over the bucket and one probe an entry, where std::sort
// compared each entry some log2(n) times on three keys (a 1 GB current-TF
// capture: 11.5 M entries, about 2,800 a bucket; the sorts took 8.0% of
// `overview`'s CPU samples, the gathering 2.4%). A bucket is sorted in
// place instead (ContextEntry's order also gathers a context's entries)
// when it holds more than kMostGathered entries (a capture naming few
// contexts by many events), so that the scratch stays a few MB whatever
// the capture, and when numbering it probes the table more than a few
// times an entry: the table's hash has no secret, so a capture could pick
// ids that all want one slot and make the probes grow as the square of
// the bucket (32 k such contexts: 0.7 s).
class BucketGrouper {
 public:
  static constexpr size_t kMostGathered = size_t{1} << 16;

  // Whether the bucket was sorted rather than gathered.
  bool Group(ContextEntry* entries, size_t n) {
    if (n < 2) return false;
    if (n > kMostGathered || !Number(entries, n)) {
      std::sort(entries, entries + n);
      return true;
    }
    // Where each context's sides start, contexts in the order first met.
    uint32_t at = 0;
    for (Context& c : contexts_) {
      const uint32_t producers = c.next[0], consumers = c.next[1];
      c.next[0] = at;
      c.next[1] = at + producers;
      at += producers + consumers;
    }
    moved_.resize(n);
    for (size_t i = 0; i < n; ++i) moved_[contexts_[context_of_[i]].next[entries[i].scope & 1]++] = entries[i];
    std::copy(moved_.begin(), moved_.begin() + static_cast<ptrdiff_t>(n), entries);
    return false;
  }

 private:
  struct Context {
    int64_t id;
    uint32_t scope;    // The pair's number, without the side.
    uint32_t next[2];  // Counts of producers and consumers, then where the next of each goes.
  };
  static constexpr uint32_t kEmpty = UINT32_MAX;

  // Each entry's context into context_of_, and the contexts' counts;
  // false when the probes pass kMostProbes an entry on average.
  static constexpr size_t kMostProbes = 8;
  bool Number(const ContextEntry* entries, size_t n) {
    contexts_.clear();
    context_of_.resize(n);
    // At most half full: the bucket cannot name more contexts than entries.
    const size_t slots = std::bit_ceil(std::max<size_t>(16, 2 * n));
    const uint64_t mask = slots - 1;
    table_.assign(slots, kEmpty);
    size_t probes = 0;
    const size_t most_probes = kMostProbes * n;
    for (size_t i = 0; i < n; ++i) {
      const ContextEntry& e = entries[i];
      const uint32_t scope = e.scope >> 1;
      uint64_t h = SlotHash(e.id, scope) & mask;
      uint32_t c;
      for (;; h = (h + 1) & mask) {
        if (++probes > most_probes) return false;
        c = table_[h];
        if (c == kEmpty) {
          c = static_cast<uint32_t>(contexts_.size());
          table_[h] = c;
          contexts_.push_back(Context{e.id, scope, {0, 0}});
          break;
        }
        if (contexts_[c].id == e.id && contexts_[c].scope == scope) break;
      }
      context_of_[i] = c;
      ++contexts_[c].next[e.scope & 1];
    }
    return true;
  }

  // A context's slot: not from the bits that chose its bucket (BucketOf:
  // the top 12 of id times the golden ratio), which a bucket's ids share.
  static uint64_t SlotHash(int64_t id, uint32_t scope) {
    uint64_t x = static_cast<uint64_t>(id) ^ (uint64_t{scope} << 32 | scope);
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
  }

  std::vector<Context> contexts_;
  std::vector<uint32_t> context_of_, table_;
  std::vector<ContextEntry> moved_;
};

}  // namespace

void ContextNotes::Add(int64_t type, int64_t id, int64_t pid, uint32_t node, bool consumer) {
  const std::pair<int64_t, int64_t> scope{type, pid};
  if (last_number_ == UINT32_MAX || scope != last_scope_) {
    auto [it, added] = scope_number_.try_emplace(scope, static_cast<uint32_t>(scopes_.size()));
    if (added) {
      // More pairs than events can hold: not reached by any capture the
      // model's memory budget admits (2^31 events naming contexts).
      if (scopes_.size() >= kMaxScopes) throw std::length_error("too many producer/consumer context scopes");
      scopes_.push_back(scope);
    }
    last_scope_ = scope;
    last_number_ = it->second;
  }
  if ((size_ & kBlockMask) == 0) blocks_.push_back(std::make_unique_for_overwrite<ContextEntry[]>(kBlockMask + 1));
  blocks_.back()[size_ & kBlockMask] = {id, (last_number_ << 1) | (consumer ? 1u : 0u), node};
  ++size_;
}

ContextBuckets::ContextBuckets(std::vector<ContextNotes>& pieces, size_t threads, size_t min_parallel) {
  size_t total = 0;
  for (const ContextNotes& p : pieces) total += p.size();
  if (total == 0) {
    pieces.clear();
    return;
  }
  if (total < min_parallel) threads = 1;  // Starting a thread costs more.

  // One numbering of the scopes: each piece's own numbers mapped to it.
  absl::flat_hash_map<std::pair<int64_t, int64_t>, uint32_t> number;
  std::vector<std::vector<uint32_t>> renumber(pieces.size());
  for (size_t p = 0; p < pieces.size(); ++p)
    for (const auto& scope : pieces[p].scopes_) {
      if (number.size() >= kMaxScopes) throw std::length_error("too many producer/consumer context scopes");
      renumber[p].push_back(number.try_emplace(scope, static_cast<uint32_t>(number.size())).first->second);
    }

  // The pieces cut into chunks of about equal size, in node order; each
  // chunk's entries go to its own places in each bucket, after those of
  // the chunks before it, so that a bucket holds its entries in node
  // order whichever thread spread them.
  struct Chunk {
    size_t piece, from, to;
    std::vector<size_t> at;  // Per bucket: where its next entry goes.
  };
  const size_t chunk_len = std::max(std::min(min_parallel, size_t{1} << 16), (total + threads * 4 - 1) / (threads * 4));
  std::vector<Chunk> chunks;
  for (size_t p = 0; p < pieces.size(); ++p)
    for (size_t from = 0; from < pieces[p].size(); from += chunk_len)
      chunks.push_back({p, from, std::min(from + chunk_len, pieces[p].size()), {}});
  ParallelFor(chunks.size(), threads, [&](size_t c) {
    Chunk& chunk = chunks[c];
    chunk.at.assign(kBuckets, 0);
    pieces[chunk.piece].ForEach(chunk.from, chunk.to, [&](const ContextEntry& e) { ++chunk.at[BucketOf(e.id)]; });
  });
  std::vector<size_t> bucket_start(kBuckets + 1, 0);
  size_t place = 0;
  for (size_t b = 0; b < kBuckets; ++b) {
    bucket_start[b] = place;
    for (Chunk& chunk : chunks) {
      const size_t count = chunk.at[b];
      chunk.at[b] = place;
      place += count;
    }
  }
  bucket_start[kBuckets] = place;
  entries_.resize(total);
  ParallelFor(chunks.size(), threads, [&](size_t c) {
    Chunk& chunk = chunks[c];
    const std::vector<uint32_t>& to_number = renumber[chunk.piece];
    pieces[chunk.piece].ForEach(chunk.from, chunk.to, [&](ContextEntry e) {
      e.scope = (to_number[e.scope >> 1] << 1) | (e.scope & 1);
      entries_[chunk.at[BucketOf(e.id)]++] = e;
    });
  });
  pieces.clear();
  chunks.clear();

  // Then each bucket's entries gathered by context, in slices of about
  // equal entries.
  const size_t slices = threads == 1 ? 1 : threads * 8;
  const size_t per_slice = (total + slices - 1) / slices;
  std::vector<size_t> slice_start{0};  // Buckets.
  for (size_t b = 1; b < kBuckets; ++b)
    if (bucket_start[b] - bucket_start[slice_start.back()] >= per_slice) slice_start.push_back(b);
  slice_start.push_back(kBuckets);
  std::vector<size_t> sorted(slice_start.size() - 1, 0);
  ParallelFor(slice_start.size() - 1, threads, [&](size_t s) {
    BucketGrouper grouper;
    for (size_t b = slice_start[s]; b < slice_start[s + 1]; ++b)
      sorted[s] += grouper.Group(entries_.data() + bucket_start[b], bucket_start[b + 1] - bucket_start[b]) ? 1 : 0;
  });
  for (size_t n : sorted) buckets_sorted_ += n;
}

}  // namespace tfprof::grouping_internal
