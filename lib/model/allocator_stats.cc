#include "lib/model/allocator_stats.h"

#include <map>

namespace tfprof {

AllocatorField AllocatorFieldOf(std::string_view name) {
  static const std::map<std::string_view, AllocatorField> kFields = {
      {"allocator_name", AllocatorField::kAllocatorName},
      {"index_on_host", AllocatorField::kDeviceIndex},
      {"device_ordinal", AllocatorField::kDeviceIndex},
      {"bytes_reserved", AllocatorField::kBytesReserved},
      {"bytes_allocated", AllocatorField::kBytesAllocated},
      {"bytes_available", AllocatorField::kBytesAvailable},
      {"fragmentation", AllocatorField::kFragmentation},
      {"peak_bytes_in_use", AllocatorField::kPeakBytesInUse},
      {"requested_bytes", AllocatorField::kRequestedBytes},
      {"allocation_bytes", AllocatorField::kAllocationBytes},
      {"addr", AllocatorField::kAddress},
      {"tf_op", AllocatorField::kTfOp},
      {"region_type", AllocatorField::kRegionType},
      {"data_type", AllocatorField::kDataType},
      {"shape", AllocatorField::kShape},
  };
  auto it = kFields.find(name);
  return it == kFields.end() ? AllocatorField::kNone : it->second;
}

namespace {

// The lenient rule: a string or bytes value reads 0, any number as an
// integer (a double truncated, saturating).
int64_t LenientInt(const Stat& s) {
  return s.type() == StatType::kString || s.type() == StatType::kBytes ? 0 : s.AsInt();
}
StringId CaptureString(const Stat& s) { return s.type() == StatType::kString ? s.AsString() : StringPool::kEmpty; }

}  // namespace

void AllocatorStats::Set(AllocatorField field, const Stat& stat) {
  // Integers the reference reads only when stored as int64.
  auto integer = [&](int64_t& into) {
    into = LenientInt(stat);
    if (stat.type() == StatType::kInt64) odd_types &= static_cast<uint16_t>(~Bit(field));
    else odd_types |= Bit(field);
  };
  switch (field) {
    case AllocatorField::kNone: break;
    case AllocatorField::kAllocatorName:
      memory_is_index = false;
      memory_value = static_cast<int64_t>(stat.AsString());
      odd_types &= static_cast<uint16_t>(~Bit(AllocatorField::kDeviceIndex));
      seen |= kSeenAllocator;
      break;
    case AllocatorField::kDeviceIndex:
      memory_is_index = true;
      integer(memory_value);
      seen |= kSeenAllocator;
      break;
    case AllocatorField::kBytesReserved: integer(bytes_reserved), seen |= kSeenReserved; break;
    case AllocatorField::kBytesAllocated: integer(bytes_allocated), seen |= kSeenAllocated; break;
    case AllocatorField::kBytesAvailable: integer(bytes_available), seen |= kSeenAvailable; break;
    case AllocatorField::kFragmentation:
      fragmentation = stat.AsDouble();
      if (stat.type() == StatType::kDouble) odd_types &= static_cast<uint16_t>(~Bit(field));
      else odd_types |= Bit(field);
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
    case AllocatorField::kTfOp: tf_op = CaptureString(stat); break;
    case AllocatorField::kRegionType: region_type = CaptureString(stat); break;
    case AllocatorField::kDataType: integer(data_type); break;
    case AllocatorField::kShape: shape = CaptureString(stat); break;
  }
}

}  // namespace tfprof
