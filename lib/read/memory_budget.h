// Memory the readers account for while they build the model. A file's size
// says little about what it expands to: two bytes of XSpace are an empty
// plane of a few hundred bytes, a 30-byte JSON event can open a new process,
// and gzip multiplies both. So the readers charge what they allocate, object
// by object with realistic sizes (sizeof the model's records, hash-table
// slots, growth slack), and reading stops with one clear error (exit 3) when
// the total passes the limit, instead of the kernel killing the process
// half-way or the machine swapping.
//
// Not thread-safe: readers charge from their serial parts, or through a
// lock (the XSpace reader's decoding threads share it that way).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "lib/model/model.h"
#include "lib/read/read_options.h"

namespace tfprof {

// What grows; the error names the kind that holds the most memory.
enum class Growth : uint8_t {
  kPlanes,      // Planes (XSpace) or processes (JSON pids), with their per-plane state.
  kLines,       // Lines (XSpace) or threads (JSON), with their per-thread state.
  kEventNames,  // Event metadata: one per distinct event name of a plane.
  kStatNames,   // Stat metadata: one per distinct stat (arg) name of a plane.
  kEvents,
  kStats,     // Stats of events, of event metadata and of planes (JSON args).
  kText,      // The host's string pool: names and string values.
  kInflated,  // A gzip XSpace inflated into memory.
  kCount
};

class MemoryBudget {
 public:
  // Charges against options.memory_limit_bytes (0: counts, never stops).
  MemoryBudget(std::string path, const ReadOptions& options, CaptureFormat format);

  // `bytes` more held by `count` more objects of kind `what`. Throws
  // InputError (exit 3) naming the file, the limit and what grew once the
  // total passes the limit.
  void Charge(Growth what, uint64_t bytes, uint64_t count = 1) {
    const auto k = static_cast<size_t>(what);
    bytes_[k] += bytes;
    counts_[k] += count;
    used_ += bytes;
    if (used_ > limit_) Exceeded();
  }
  // Memory given back (scratch freed): lowers the total, not the counts.
  void Release(Growth what, uint64_t bytes);
  // Call before appending one element to `v`: charges the capacity it will
  // then have (libstdc++ doubles it when full; while the elements move,
  // both buffers exist, so the doubled capacity is about the peak).
  // `charged` keeps the capacity charged so far.
  template <class T, class A>
  void ChargeAppend(Growth what, const std::vector<T, A>& v, uint64_t& charged, uint64_t count = 1) {
    const uint64_t will_have = v.size() < v.capacity() ? v.capacity() : std::max<uint64_t>(1, 2 * v.capacity());
    if (will_have > charged) {
      const uint64_t grown = (will_have - charged) * sizeof(T);
      charged = will_have;
      Charge(what, grown, count);
    } else {
      counts_[static_cast<size_t>(what)] += count;
    }
  }

  uint64_t used() const { return used_; }
  // What may still be charged before the limit (UINT64_MAX without one).
  uint64_t room() const { return used_ < limit_ ? limit_ - used_ : 0; }
  uint64_t bytes(Growth what) const { return bytes_[static_cast<size_t>(what)]; }
  uint64_t count(Growth what) const { return counts_[static_cast<size_t>(what)]; }

 private:
  [[noreturn]] void Exceeded() const;

  std::string path_;
  CaptureFormat format_;
  uint64_t limit_;  // UINT64_MAX when there is none.
  bool limit_from_env_;
  uint64_t used_ = 0;
  uint64_t bytes_[static_cast<size_t>(Growth::kCount)] = {};
  uint64_t counts_[static_cast<size_t>(Growth::kCount)] = {};
};

// An amortised flat_hash_map entry of `slot_bytes`: absl keeps tables at
// most 7/8 full and doubles them, so between 7/16 and 7/8 (about 2/3 on
// average) of the slots are used; plus one control byte per slot.
constexpr uint64_t HashEntryBytes(uint64_t slot_bytes) { return (slot_bytes + 1) * 3 / 2; }

// What malloc adds to every heap block (header and rounding), on average.
inline constexpr uint64_t kMallocOverhead = 16;

// A std::string of `size` characters: its heap block beyond the inline
// 15-character buffer.
constexpr uint64_t StringBytes(uint64_t size) {
  return sizeof(std::string) + (size > 15 ? size + 1 + kMallocOverhead : 0);
}

// "1.5 GiB", "200 MiB", "96 KiB".
std::string MemorySize(uint64_t bytes);

}  // namespace tfprof
