// A stat is a typed value attached to an event, an event's metadata or a
// plane. Stats are stored in compact pools, 12 bytes each.
#pragma once

#include <cstdint>
#include <cstring>

#include "lib/model/string_pool.h"

namespace tfprof {

enum class StatType : uint8_t {
  kInt64 = 0,
  kUint64 = 1,
  kDouble = 2,
  kString = 3,  // str_value, or a resolved ref_value: an interned StringId.
  kBytes = 4,   // Raw bytes are not kept; the value is their length.
};

// Index into a plane's stat metadata table (the stat's name).
using StatKey = uint32_t;
constexpr StatKey kMaxStatKey = (1u << 24) - 1;

#pragma pack(push, 4)
struct Stat {
  uint32_t key_and_type;  // low 24 bits: StatKey, high 8 bits: StatType.
  uint64_t bits;

  static Stat Make(StatKey key, StatType type, uint64_t bits) {
    return Stat{(static_cast<uint32_t>(type) << 24) | (key & kMaxStatKey), bits};
  }
  static Stat Int(StatKey key, int64_t v) { return Make(key, StatType::kInt64, static_cast<uint64_t>(v)); }
  static Stat Uint(StatKey key, uint64_t v) { return Make(key, StatType::kUint64, v); }
  static Stat Double(StatKey key, double v) {
    uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    return Make(key, StatType::kDouble, b);
  }
  static Stat String(StatKey key, StringId s) { return Make(key, StatType::kString, s); }

  StatKey key() const { return key_and_type & kMaxStatKey; }
  StatType type() const { return static_cast<StatType>(key_and_type >> 24); }
  bool is_integer() const { return type() == StatType::kInt64 || type() == StatType::kUint64; }

  // The reference reads integers through an "int or uint" accessor: CUPTI
  // writes ids unsigned, grouping writes them signed. Doubles are truncated,
  // saturating out of range (NaN reads as 0): a corrupt capture's 1e300 must
  // not be undefined behaviour.
  int64_t AsInt() const {
    if (type() == StatType::kDouble) {
      double d = AsDouble();
      if (!(d == d)) return 0;
      if (d >= 9223372036854775807.0) return INT64_MAX;
      if (d <= -9223372036854775808.0) return INT64_MIN;
      return static_cast<int64_t>(d);
    }
    return static_cast<int64_t>(bits);
  }
  uint64_t AsUint() const {
    if (type() != StatType::kDouble) return bits;
    double d = AsDouble();
    if (!(d > 0)) return d <= -1.0 ? static_cast<uint64_t>(AsInt()) : 0;  // Negative: as the int, wrapped.
    if (d >= 18446744073709551615.0) return UINT64_MAX;
    return static_cast<uint64_t>(d);
  }
  double AsDouble() const {
    switch (type()) {
      case StatType::kDouble: {
        double d;
        std::memcpy(&d, &bits, sizeof d);
        return d;
      }
      case StatType::kInt64: return static_cast<double>(static_cast<int64_t>(bits));
      case StatType::kUint64: return static_cast<double>(bits);
      default: return 0.0;
    }
  }
  StringId AsString() const { return type() == StatType::kString ? static_cast<StringId>(bits) : StringPool::kEmpty; }
};
#pragma pack(pop)
static_assert(sizeof(Stat) == 12, "Stat must stay compact");

}  // namespace tfprof
