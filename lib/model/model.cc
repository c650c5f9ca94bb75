#include "lib/model/model.h"

#include <algorithm>
#include <numeric>

namespace tfprof {

bool Line::IsSorted() const { return std::is_sorted(events.begin(), events.end(), EventBefore); }

void Line::SortEvents(std::vector<uint32_t>* old_index) {
  if (old_index) old_index->clear();
  if (IsSorted()) return;
  std::vector<uint32_t> order(events.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [this](uint32_t a, uint32_t b) { return EventBefore(events[a], events[b]); });
  decltype(events) sorted_events;
  StatPool sorted_stats;
  sorted_events.reserve(events.size());
  sorted_stats.reserve(stats.size());
  for (uint32_t i : order) {
    std::span<const Stat> s = EventStats(i);
    sorted_stats.insert(sorted_stats.end(), s.begin(), s.end());
    Event e = events[i];
    e.stats_end = static_cast<uint32_t>(sorted_stats.size());
    sorted_events.push_back(e);
  }
  events = std::move(sorted_events);
  stats = std::move(sorted_stats);
  if (old_index) *old_index = std::move(order);
}

std::vector<std::pair<size_t, size_t>> Plane::AllocatorRecordBlocksByLine() const {
  std::vector<std::pair<size_t, size_t>> out(lines.size());
  for (size_t b = 0; b < allocator_records.size(); ++b) {
    auto& [first, end] = out[allocator_records[b].line];
    if (first == end) first = b;
    end = b + 1;
  }
  return out;
}

uint64_t Plane::EventsLeftOut() const {
  uint64_t n = 0;
  for (const Line& l : lines) n += l.events_left_out;
  return n;
}

size_t Plane::EventCount() const {
  size_t n = 0;
  for (const Line& l : lines) n += l.events.size();
  return n;
}

std::optional<StatKey> Plane::FindStatKey(const StringPool& strings, std::string_view name) const {
  StringId id = strings.Find(name);
  if (id == StringPool::kNotFound) return std::nullopt;
  for (size_t k = 0; k < stat_metadata.size(); ++k)
    if (stat_metadata[k].name == id) return static_cast<StatKey>(k);
  return std::nullopt;
}

std::string_view CaptureFormatName(CaptureFormat format) {
  switch (format) {
    case CaptureFormat::kXSpace: return "xspace";
    case CaptureFormat::kChromeTrace: return "chrome-trace";
  }
  return "unknown";
}

const Plane* Host::FindPlane(std::string_view name) const {
  for (const Plane& p : planes)
    if (PlaneName(p) == name) return &p;
  return nullptr;
}

}  // namespace tfprof
