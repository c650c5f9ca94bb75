// Internal to the XPlane reader: the allocator events' records
// (lib/model/allocator_stats.h) from the decoded chunks into the plane:
// their spelled-out strings interned, the chunks' records kept in capture
// order, and a sorted line's records put in its new event order.
#pragma once

#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "lib/model/model.h"
#include "lib/read/xplane_event_decoder.h"

namespace tfprof::xplane_wire {

// Sets the record's string field that `entry` of its chunk's pending
// strings noted (a RecordStats slot) to `id`, unless a later stat of the
// same field replaced it.
void InternRecordString(ChunkJob& job, uint32_t slot, uint32_t entry, StringId id);

// The chunks' records into the plane, in chunk order (lines in order, each
// line's chunks in order): moved, not copied; and whether they are
// complete (Plane::allocator_records_complete).
void KeepAllocatorRecords(std::deque<ChunkJob>& chunks, Plane& plane);

// Puts lines' records in their new event order after Line::SortEvents.
// Each line's blocks (one run of the plane's) become one.
class RecordReorder {
 public:
  explicit RecordReorder(Plane& plane);
  // `line` was sorted; `old_index` is what SortEvents gave.
  void LineSorted(uint32_t line, const std::vector<uint32_t>& old_index);
  // The records' bytes of `line` (what reordering copies).
  uint64_t LineBytes(uint32_t line) const;
  // Drops the blocks emptied by the merges (once every line is sorted).
  void Finish();

 private:
  Plane& plane_;
  std::vector<std::pair<size_t, size_t>> blocks_of_line_;  // Plane::AllocatorRecordBlocksByLine.
  bool merged_ = false;
};

}  // namespace tfprof::xplane_wire
