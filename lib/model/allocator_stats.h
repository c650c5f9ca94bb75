// TensorFlow's allocator events (MemoryAllocation / MemoryDeallocation on
// the host-threads plane) carry a dozen stats each that only the memory
// profile reads: the allocator's state after the event and what was
// allocated. They are most of a TensorFlow GPU capture's stats (the 100 MB
// T4 capture: 405 k allocator events with 5.1 M of its 5.9 M stats), so a
// reader that knows the command builds a memory profile keeps them typed,
// one 104-byte record per event, instead of a dozen 12-byte generic stats
// (about 150 bytes): less memory, no copy into the line's pool, and the
// profile reads each event as one small record instead of switching over
// its stats twice (docs/performance-history.md, session 26).
//
// One set of rules turns stats into a record, whichever way they were
// kept: the reader's records (AllocatorRecordBlock) and the memory
// profile's reading of generic stats both go through AllocatorStats::Set.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "lib/model/stat.h"
#include "lib/model/string_pool.h"

namespace tfprof {

// The stats BFCAllocator writes on its events, by name.
enum class AllocatorField : uint8_t {
  kNone,
  kAllocatorName,
  kDeviceIndex,  // index_on_host / device_ordinal: the memory id on TPU.
  kBytesReserved,
  kBytesAllocated,
  kBytesAvailable,
  kFragmentation,
  kPeakBytesInUse,
  kRequestedBytes,
  kAllocationBytes,
  kAddress,
  kTfOp,
  kRegionType,
  kDataType,
  kShape,
};
AllocatorField AllocatorFieldOf(std::string_view stat_name);

// Where an int64 value of each field goes in the record (AllocatorStats), and what it
// marks seen (not `used`: the field takes other handling): the type nearly
// every stat of an allocator event has, stored with a table instead of a
// switch.
struct AllocatorIntSlot {
  bool used = false;
  uint8_t offset = 0;
  uint8_t seen = 0;
};

// What an allocator event's stats say, with the values as the lenient rule
// reads them (integers from any numeric type, a double truncated; the
// fragmentation from any numeric type). The reference reads integers only
// when stored as int64 and the fragmentation only as a double
// (MemoryProfileOptions::strict_stat_types): `odd_types` keeps, per field,
// whether its stat was of another type, so either rule reads the record.
struct AllocatorStats {
  // Which of the stats every allocator event should have were present.
  enum Seen : uint8_t {
    kSeenAllocator = 1,
    kSeenReserved = 2,
    kSeenAllocated = 4,
    kSeenAvailable = 8,
    kSeenAllocationBytes = 16,
    kSeenAll = 31,
  };

  int64_t bytes_reserved = 0;
  int64_t bytes_allocated = 0;
  int64_t bytes_available = 0;
  int64_t peak_bytes_in_use = 0;
  int64_t requested_bytes = 0;
  int64_t allocation_bytes = 0;
  uint64_t address = 0;
  double fragmentation = 0;
  int64_t data_type = 0;
  // The allocator: the last allocator_name (a StringId) or device index
  // (a number) in stored order.
  int64_t memory_value = StringPool::kEmpty;
  StringId tf_op = StringPool::kEmpty;
  StringId region_type = StringPool::kEmpty;
  StringId shape = StringPool::kEmpty;
  // The event's index in its line (records only; see AllocatorRecordBlock).
  uint32_t event = 0;
  uint16_t odd_types = 0;  // Bit (1 << field): not stored as int64 (a double for the fragmentation).
  uint8_t seen = 0;        // Seen bits.
  bool memory_is_index = false;

  // Takes the stat's value into `field` (a repeated stat: the last wins).
  void Set(AllocatorField field, const Stat& stat);
  // What Set does with an int64 value of a field that has an
  // AllocatorIntSlot (`slot`), for a reader that found the slot itself.
  void SetInt64(AllocatorField field, AllocatorIntSlot slot, uint64_t bits);
  // What Set does with a string value (a StringId) of the allocator name,
  // op, region or shape (IsAllocatorStringField), and with a double of the
  // fragmentation: for a reader that read the value itself.
  void SetString(AllocatorField field, StringId id);
  void SetFragmentation(double value);
  // An integer field's value under the rule chosen (see above).
  int64_t Int(int64_t lenient, AllocatorField field, bool strict) const {
    return strict && (odd_types & Bit(field)) ? 0 : lenient;
  }
  static constexpr uint16_t Bit(AllocatorField f) { return static_cast<uint16_t>(1u << static_cast<unsigned>(f)); }
};

// The lenient rule: a string or bytes value reads 0, any number as an
// integer (a double truncated, saturating).
inline int64_t AllocatorLenientInt(const Stat& s) {
  return s.type() == StatType::kString || s.type() == StatType::kBytes ? 0 : s.AsInt();
}
inline StringId AllocatorCaptureString(const Stat& s) {
  return s.type() == StatType::kString ? s.AsString() : StringPool::kEmpty;
}

// Where an int64 value of each field goes in the record
// (kAllocatorIntSlots).
inline constexpr auto kAllocatorIntSlots = [] {
  std::array<AllocatorIntSlot, 16> t{};
  auto at = [&t](AllocatorField f, size_t offset, uint8_t seen) {
    t[static_cast<size_t>(f)] = {true, static_cast<uint8_t>(offset), seen};
  };
  at(AllocatorField::kBytesReserved, offsetof(AllocatorStats, bytes_reserved), AllocatorStats::kSeenReserved);
  at(AllocatorField::kBytesAllocated, offsetof(AllocatorStats, bytes_allocated), AllocatorStats::kSeenAllocated);
  at(AllocatorField::kBytesAvailable, offsetof(AllocatorStats, bytes_available), AllocatorStats::kSeenAvailable);
  at(AllocatorField::kPeakBytesInUse, offsetof(AllocatorStats, peak_bytes_in_use), 0);
  at(AllocatorField::kRequestedBytes, offsetof(AllocatorStats, requested_bytes), 0);
  at(AllocatorField::kAllocationBytes, offsetof(AllocatorStats, allocation_bytes),
     AllocatorStats::kSeenAllocationBytes);
  at(AllocatorField::kAddress, offsetof(AllocatorStats, address), 0);
  at(AllocatorField::kDataType, offsetof(AllocatorStats, data_type), 0);
  return t;
}();

inline __attribute__((always_inline)) void AllocatorStats::SetInt64(AllocatorField field, AllocatorIntSlot slot,
                                                                    uint64_t bits) {
  // The lenient and the strict rule agree on an int64.
  std::memcpy(reinterpret_cast<char*>(this) + slot.offset, &bits, sizeof(int64_t));
  odd_types &= static_cast<uint16_t>(~Bit(field));
  seen |= slot.seen;
}

// The fields a string stat fills (SetString).
constexpr bool IsAllocatorStringField(AllocatorField f) {
  return f == AllocatorField::kAllocatorName || f == AllocatorField::kTfOp || f == AllocatorField::kRegionType ||
         f == AllocatorField::kShape;
}

inline __attribute__((always_inline)) void AllocatorStats::SetString(AllocatorField field, StringId id) {
  switch (field) {
    case AllocatorField::kAllocatorName:
      memory_is_index = false;
      memory_value = static_cast<int64_t>(id);
      odd_types &= static_cast<uint16_t>(~Bit(AllocatorField::kDeviceIndex));
      seen |= kSeenAllocator;
      break;
    case AllocatorField::kTfOp: tf_op = id; break;
    case AllocatorField::kRegionType: region_type = id; break;
    case AllocatorField::kShape: shape = id; break;
    default: break;
  }
}

inline __attribute__((always_inline)) void AllocatorStats::SetFragmentation(double value) {
  fragmentation = value;
  odd_types &= static_cast<uint16_t>(~Bit(AllocatorField::kFragmentation));
}

// Inline: the reader calls it for every stat of an allocator event.
inline __attribute__((always_inline)) void AllocatorStats::Set(AllocatorField field, const Stat& stat) {
  if (stat.type() == StatType::kInt64) {
    const AllocatorIntSlot slot = kAllocatorIntSlots[static_cast<size_t>(field) & 15];
    if (slot.used) {
      SetInt64(field, slot, stat.bits);
      return;
    }
  }
  // Integers the reference reads only when stored as int64.
  auto integer = [&](int64_t& into) {
    into = AllocatorLenientInt(stat);
    if (stat.type() == StatType::kInt64) odd_types &= static_cast<uint16_t>(~Bit(field));
    else odd_types |= Bit(field);
  };
  switch (field) {
    case AllocatorField::kNone: break;
    case AllocatorField::kAllocatorName: SetString(field, stat.AsString()); break;
    case AllocatorField::kDeviceIndex:
      memory_is_index = true;
      integer(memory_value);
      seen |= kSeenAllocator;
      break;
    case AllocatorField::kBytesReserved: integer(bytes_reserved), seen |= kSeenReserved; break;
    case AllocatorField::kBytesAllocated: integer(bytes_allocated), seen |= kSeenAllocated; break;
    case AllocatorField::kBytesAvailable: integer(bytes_available), seen |= kSeenAvailable; break;
    case AllocatorField::kFragmentation:
      if (stat.type() == StatType::kDouble) {
        SetFragmentation(stat.AsDouble());
      } else {
        fragmentation = stat.AsDouble();
        odd_types |= Bit(field);
      }
      break;
    case AllocatorField::kPeakBytesInUse: integer(peak_bytes_in_use); break;
    case AllocatorField::kRequestedBytes: integer(requested_bytes); break;
    case AllocatorField::kAllocationBytes: integer(allocation_bytes), seen |= kSeenAllocationBytes; break;
    case AllocatorField::kAddress: {
      int64_t a = 0;
      integer(a);
      address = static_cast<uint64_t>(a);
      break;
    }
    case AllocatorField::kTfOp:
    case AllocatorField::kRegionType:
    case AllocatorField::kShape: SetString(field, AllocatorCaptureString(stat)); break;
    case AllocatorField::kDataType: integer(data_type); break;
  }
}

// A string value the reader has not interned yet holds this mark and the
// number of its pending entry; real ids stay below it (a pool of 2^31
// strings is far past any memory budget).
inline constexpr StringId kPendingStringMark = 0x80000000u;

// The records of a run of one line's allocator events, in line order;
// each record's `event` is its event's index in the line. A plane's
// blocks are in capture order: lines in order, and a line's blocks in
// order (Plane::allocator_records).
struct AllocatorRecordBlock {
  uint32_t line = 0;
  std::vector<AllocatorStats> records;
};

}  // namespace tfprof
