// Internal to the Chrome trace builder (chrome_trace_builder.cc and
// chrome_trace_finish.cc): its per-process and per-thread state.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lib/read/chrome_trace_builder.h"

namespace tfprof::chrome_trace {

inline constexpr int64_t kPsPerUs = 1'000'000;
// Every start and end is kept within 50 days of the trace's first event, so
// the difference of any two times in a trace (a line's span, a gap) fits
// in int64 picoseconds (2 x 4.32e18 < 9.22e18). A fuzzer found a span of a
// trace with events -11 and +100 days out overflowing.
inline constexpr int64_t kMaxTimeOffsetPs = int64_t{50} * 86'400 * 1'000'000'000'000;
// Marks a B or async b event whose end has not been seen yet.
inline constexpr int64_t kOpenDuration = -1;
// Ids given to string pids/tids ("Spans", "stream 7") and to the reader's own
// lines (counters, async): far above any real process or thread id.
inline constexpr int64_t kSyntheticIdBase = int64_t{1} << 48;

// A small direct-mapped cache in front of a hash map from names to ids:
// traces repeat the same few hundred names and arg keys millions of times,
// and a hit here costs a couple of loads and a memcmp instead of a full
// string hash. The views it keeps point into the host's string pool.
//
// It grows with the map it serves, about 4 slots per name, from 16 up to
// 2^kMaxBits: a trace may have tens of thousands of processes of a few
// names each, and a fixed 4096-slot cache per process (96 KiB) was most of
// the memory such a trace took.
template <typename Id, int kMaxBits = 10>
class NameCache {
 public:
  static constexpr int kMinBits = 4;

  const Id* Find(std::string_view s) const {
    if (!slots_) return nullptr;
    const Slot& slot = slots_[Index(s, bits_)];
    if (slot.name.data() && slot.name.size() == s.size() &&
        (s.empty() || std::memcmp(slot.name.data(), s.data(), s.size()) == 0))
      return &slot.id;
    return nullptr;
  }
  // `names`: how many names the map behind the cache holds now.
  void Put(std::string_view stored, Id id, size_t names) {
    int bits = kMinBits;
    while (bits < kMaxBits && (size_t{1} << bits) < 4 * names) ++bits;
    if (!slots_ || bits > bits_) {
      // Regrown empty: it is only a cache.
      slots_.reset(new Slot[size_t{1} << bits]());
      bits_ = bits;
    }
    slots_[Index(stored, bits_)] = Slot{stored, id};
  }
  // Memory the slots take.
  size_t bytes() const { return slots_ ? sizeof(Slot) << bits_ : 0; }

 private:
  struct Slot {
    std::string_view name;
    Id id{};
  };
  // Mixes the length with the first and last bytes: enough to tell apart
  // names like "aten::mm" and "aten::add", and cheap (fixed-size loads).
  static size_t Index(std::string_view s, int bits) {
    const size_t n = s.size();
    const char* p = s.data();
    uint64_t head = 0, tail = 0;
    if (n >= 8) {
      std::memcpy(&head, p, 8);
      std::memcpy(&tail, p + n - 8, 8);
    } else if (n >= 4) {
      uint32_t a, b;
      std::memcpy(&a, p, 4);
      std::memcpy(&b, p + n - 4, 4);
      head = a | (uint64_t{b} << 32);
    } else if (n > 0) {
      head = static_cast<unsigned char>(p[0]) | (static_cast<unsigned char>(p[n / 2]) << 8) |
             (static_cast<unsigned char>(p[n - 1]) << 16);
    }
    uint64_t h = (head ^ (tail * 0x9E3779B97F4A7C15ull) ^ n) * 0xFF51AFD7ED558CCDull;
    return static_cast<size_t>(h >> (64 - bits));
  }
  std::unique_ptr<Slot[]> slots_;
  int bits_ = 0;
};

// Append-only storage in blocks that never move, for a line's events and
// stats while the trace is read: no reallocation copies and no doubling
// slack (a 1 GB trace would otherwise peak at twice its model), and Finish
// hands the blocks back one by one as it moves their contents into the
// model's vectors. Blocks double from 16 elements up to 65536, so that
// short lines stay small (a trace may have tens of thousands of threads of
// one event). Large blocks are mapped directly, because memory
// freed to malloc stays in the process and the peak would not go down.
template <typename T>
class BlockVector {
 public:
  static constexpr int kFirstBits = 4, kMaxBits = 16;
  static constexpr size_t kMapBytes = size_t{64} << 10;

  BlockVector() = default;
  BlockVector(const BlockVector&) = delete;
  BlockVector& operator=(const BlockVector&) = delete;
  ~BlockVector() { clear(); }

  size_t size() const { return size_; }
  T& operator[](size_t i) {
    auto [b, o] = Locate(i);
    return blocks_[b][o];
  }
  [[gnu::always_inline]] void push_back(const T& v) {
    if (next_ == limit_) Grow();
    *next_++ = v;
    ++size_;
  }

  size_t block_count() const { return blocks_.size(); }
  T* block(size_t b) { return blocks_[b]; }
  // Elements held in block b.
  size_t used(size_t b) const { return std::min(BlockSize(b), size_ - std::min(size_, BlockStart(b))); }
  void ReleaseBlock(size_t b) {
    Free(b, blocks_[b]);
    blocks_[b] = nullptr;
  }
  void clear() {
    for (size_t b = 0; b < blocks_.size(); ++b) Free(b, blocks_[b]);
    blocks_.clear();
    size_ = 0;
    next_ = limit_ = nullptr;
  }

  static constexpr size_t BlockSize(size_t b) { return size_t{1} << std::min<size_t>(kFirstBits + b, kMaxBits); }
  static size_t BlockStart(size_t b) {
    constexpr size_t kGrowing = kMaxBits - kFirstBits;
    return b < kGrowing ? ((size_t{1} << b) - 1) << kFirstBits
                        : ((size_t{1} << kMaxBits) - (size_t{1} << kFirstBits)) + ((b - kGrowing) << kMaxBits);
  }
  // Block and offset of element i.
  static std::pair<size_t, size_t> Locate(size_t i) {
    constexpr size_t kGrowing = kMaxBits - kFirstBits;  // Blocks before the size stops doubling.
    constexpr size_t kGrowingTotal = (size_t{1} << kMaxBits) - (size_t{1} << kFirstBits);
    if (i < kGrowingTotal) {
      size_t b = static_cast<size_t>(63 - __builtin_clzll((i >> kFirstBits) + 1));
      return {b, i - (((size_t{1} << b) - 1) << kFirstBits)};
    }
    size_t j = i - kGrowingTotal;
    return {kGrowing + (j >> kMaxBits), j & ((size_t{1} << kMaxBits) - 1)};
  }

 private:
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
  static T* Allocate(size_t b) {
    size_t bytes = BlockSize(b) * sizeof(T);
    if (bytes < kMapBytes) return static_cast<T*>(::operator new(bytes));
    // Populated at once: the block will be filled, and one call is cheaper
    // than a page fault per 4 KB.
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  static void Free(size_t b, T* p) {
    if (!p) return;
    size_t bytes = BlockSize(b) * sizeof(T);
    if (bytes < kMapBytes) ::operator delete(p);
    else ::munmap(p, bytes);
  }

  [[gnu::noinline]] void Grow() {
    size_t b = blocks_.size();
    blocks_.push_back(Allocate(b));
    next_ = blocks_.back();
    limit_ = next_ + BlockSize(b);
  }

  std::vector<T*> blocks_;
  size_t size_ = 0;
  T* next_ = nullptr;   // Where the next element goes, in the last block.
  T* limit_ = nullptr;  // The end of the last block.
};

}  // namespace tfprof::chrome_trace

namespace tfprof {

struct ChromeTraceBuilder::RecentStrings : chrome_trace::NameCache<StringId, 12> {};

struct ChromeTraceBuilder::LineState {
  enum Kind { kThread, kCounters, kAsync };
  Kind kind = kThread;
  Line line;  // Its events and stats are filled from the blocks below at Finish.
  chrome_trace::BlockVector<Event> events;
  chrome_trace::BlockVector<Stat> stats;
  uint64_t first_seen = 0;
  std::vector<uint32_t> open_begins;  // B events awaiting their E, innermost last.
  uint64_t open_count = 0;            // Events still marked kOpenDuration (B and async b).
};

struct ChromeTraceBuilder::PlaneState {
  Plane plane;
  bool synthetic = false;  // A string pid.
  StringId process_name = StringPool::kEmpty;
  bool has_process_name = false;
  StringId labels = StringPool::kEmpty;
  bool has_sort = false;
  int64_t sort_index = 0;
  uint64_t first_seen = 0;
  absl::flat_hash_map<std::string_view, EventMetadataId> metadata_index;  // Views into the host's pool.
  absl::flat_hash_map<std::string_view, StatKey> stat_index;
  chrome_trace::NameCache<EventMetadataId, 12> recent_metadata;
  chrome_trace::NameCache<StatKey, 8> recent_keys;
  // The key of "cat", which nearly every event has: looked up once.
  std::optional<StatKey> cat_key;
  std::vector<std::unique_ptr<LineState>> lines;
  absl::flat_hash_map<int64_t, LineState*> thread_lines;
  absl::flat_hash_map<std::string_view, LineState*> special_lines;  // Views into the host's pool.
  struct ThreadMeta {
    StringId name = StringPool::kEmpty;
    bool has_name = false, has_sort = false;
    int64_t sort_index = 0;
  };
  absl::flat_hash_map<int64_t, ThreadMeta> thread_meta;
  // Async b events awaiting their e, by "cat \x1f id \x1f name".
  absl::flat_hash_map<std::string, std::vector<std::pair<LineState*, uint32_t>>> open_async;
};

}  // namespace tfprof
