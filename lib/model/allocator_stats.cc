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

}  // namespace tfprof
