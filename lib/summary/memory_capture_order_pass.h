// Internal to the memory profile: the pass over a host plane's allocator
// events in capture order (lines one after another, as the reference reads
// them), in pieces on several threads. Per allocator (memory id) it gives
// the peaks as the reference tracks them in that order, and the events
// merged into time order for the time-order pass
// (memory_time_order_pass.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "lib/model/diagnostics.h"
#include "lib/model/model.h"
#include "lib/summary/memory_events_to_profile.h"
#include "lib/summary/memory_snapshot_source.h"

namespace tfprof::memory_internal {

// The allocator events of `plane` (host's), by memory id in byte order
// (the reference's order of memory ids). `kind`: per event metadata, 0 an
// allocation, 1 a free, -1 neither. `time_zero_ps`: the earliest start of
// a line with events (HostMemoryProfile::time_zero_ps). Diagnostics of
// odd events go to `diag`, in capture order.
std::map<std::string, Collecting> CollectInCaptureOrder(const Host& host, const Plane& plane,
                                                        const std::vector<int8_t>& kind, const SnapshotReader& reader,
                                                        const MemoryProfileOptions& options, int64_t time_zero_ps,
                                                        Diagnostics& diag);

}  // namespace tfprof::memory_internal
