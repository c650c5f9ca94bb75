// Internal to the memory profile: an allocator's events in time order,
// after the capture-order pass (memory_capture_order_pass.h): each
// event's step, what each free releases, the timeline (every snapshot or
// the sampled points), and the breakdown of what was alive at the peak.
#pragma once

#include "lib/model/diagnostics.h"
#include "lib/summary/memory_events_to_profile.h"
#include "lib/summary/memory_snapshot_source.h"

namespace tfprof::memory_internal {

// Completes c.profile from c's events (in time order) and peaks.
// Interns strings into `host` (one thread at a time).
void FinishInTimeOrder(Collecting& c, const SnapshotSource& snapshot_of, const MemoryProfileOptions& options,
                       HostMemoryProfile& host, Diagnostics& diag);

}  // namespace tfprof::memory_internal
