#include "lib/read/xplane_allocator_records.h"

#include <algorithm>

namespace tfprof::xplane_wire {

void InternRecordString(ChunkJob& job, uint32_t slot, uint32_t entry, StringId id) {
  const size_t index = (slot & ~RecordStats::kRecordSlot) >> 2;
  if (index >= job.records.size()) return;  // Never: slots name the chunk's own records.
  AllocatorStats& r = job.records[index];
  const StringId mark = kPendingStringMark | entry;
  switch (slot & 3) {
    case RecordStats::kRecordStringAllocator:
      if (!r.memory_is_index && r.memory_value == mark) r.memory_value = id;
      break;
    case RecordStats::kRecordStringTfOp:
      if (r.tf_op == mark) r.tf_op = id;
      break;
    case RecordStats::kRecordStringRegion:
      if (r.region_type == mark) r.region_type = id;
      break;
    case RecordStats::kRecordStringShape:
      if (r.shape == mark) r.shape = id;
      break;
  }
}

void KeepAllocatorRecords(std::deque<ChunkJob>& chunks, Plane& plane) {
  size_t irregular = 0;
  for (const ChunkJob& job : chunks)
    if (!job.dropped) irregular += job.irregular_records;
  plane.allocator_records_complete = plane.allocator_stats_as_records && irregular == 0;
  for (ChunkJob& job : chunks) {
    if (job.dropped || job.records.empty()) continue;
    const auto line = static_cast<uint32_t>(job.line - plane.lines.data());
    plane.allocator_records.push_back(AllocatorRecordBlock{line, std::move(job.records)});
  }
}

RecordReorder::RecordReorder(Plane& plane) : plane_(plane) {
  if (!plane.allocator_records.empty()) blocks_of_line_ = plane.AllocatorRecordBlocksByLine();
}

uint64_t RecordReorder::LineBytes(uint32_t line) const {
  if (line >= blocks_of_line_.size()) return 0;
  uint64_t n = 0;
  for (size_t b = blocks_of_line_[line].first; b < blocks_of_line_[line].second; ++b)
    n += plane_.allocator_records[b].records.size();
  return n * sizeof(AllocatorStats);
}

void RecordReorder::LineSorted(uint32_t line, const std::vector<uint32_t>& old_index) {
  if (line >= blocks_of_line_.size() || old_index.empty()) return;
  const auto [first, end] = blocks_of_line_[line];
  if (first == end) return;
  std::vector<uint32_t> new_index(old_index.size());
  for (uint32_t i = 0; i < old_index.size(); ++i) new_index[old_index[i]] = i;
  auto& blocks = plane_.allocator_records;
  size_t count = 0;
  for (size_t b = first; b < end; ++b) count += blocks[b].records.size();
  std::vector<AllocatorStats> merged;
  merged.reserve(count);
  for (size_t b = first; b < end; ++b) {
    for (AllocatorStats& r : blocks[b].records) {
      r.event = new_index[r.event];
      merged.push_back(r);
    }
    std::vector<AllocatorStats>().swap(blocks[b].records);
  }
  std::sort(merged.begin(), merged.end(), [](const auto& a, const auto& b) { return a.event < b.event; });
  blocks[first].records = std::move(merged);
  merged_ = merged_ || end - first > 1;
}

void RecordReorder::Finish() {
  if (!merged_) return;
  auto& blocks = plane_.allocator_records;
  blocks.erase(std::remove_if(blocks.begin(), blocks.end(), [](const auto& b) { return b.records.empty(); }),
               blocks.end());
}

}  // namespace tfprof::xplane_wire
