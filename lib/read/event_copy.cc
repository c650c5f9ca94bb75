#include "lib/read/event_copy.h"

#include <algorithm>
#include <climits>

#include "lib/read/stat_edit.h"

namespace tfprof {

EventCopier::EventCopier(const Host& from_host, const Plane& from, Host& to_host, Plane& to)
    : from_host_(from_host),
      from_(from),
      to_host_(to_host),
      to_(to),
      same_pool_(&from_host == &to_host),
      keys_(from.stat_metadata.size(), -1) {
  for (size_t m = 0; m < to.event_metadata.size(); ++m)
    metadata_.try_emplace({to.event_metadata[m].name, to.event_metadata[m].display_name},
                          static_cast<EventMetadataId>(m));
}

void EventCopier::RenameStat(std::string_view from, std::string_view to) {
  renames_[from] = to;
  for (size_t k = 0; k < from_.stat_metadata.size(); ++k)
    if (from_host_.Str(from_.stat_metadata[k].name) == from) keys_[k] = -1;
}

StringId EventCopier::ToDest(StringId source) {
  if (same_pool_ || source == StringPool::kEmpty) return source;
  auto [it, fresh] = strings_.try_emplace(source, StringPool::kEmpty);
  if (fresh) it->second = to_host_.strings.Intern(from_host_.Str(source));
  return it->second;
}

StatKey EventCopier::Key(StatKey source) {
  if (keys_[source] < 0) {
    std::string_view name = from_host_.Str(from_.stat_metadata[source].name);
    if (auto r = renames_.find(name); r != renames_.end()) name = r->second;
    keys_[source] = StatKeyFor(to_host_, to_, name);
  }
  return static_cast<StatKey>(keys_[source]);
}

EventMetadataId EventCopier::Metadata(EventMetadataId source, StringId name, StringId display_name) {
  const EventMetadata& sm = from_.event_metadata[source];
  if (name == StringPool::kEmpty) name = ToDest(sm.name);
  if (display_name == StringPool::kEmpty) display_name = ToDest(sm.display_name);
  auto [it, fresh] = metadata_.try_emplace({name, display_name}, 0);
  if (fresh) {
    EventMetadata m;
    m.name = name;
    m.display_name = display_name;
    m.stats_begin = static_cast<uint32_t>(to_.metadata_stats.size());
    for (uint32_t s = sm.stats_begin; s < sm.stats_end; ++s) {
      const Stat& st = from_.metadata_stats[s];
      to_.metadata_stats.push_back(
          Stat::Make(Key(st.key()), st.type(), st.type() == StatType::kString ? ToDest(st.AsString()) : st.bits));
    }
    m.stats_end = static_cast<uint32_t>(to_.metadata_stats.size());
    to_.event_metadata.push_back(m);
    it->second = static_cast<EventMetadataId>(to_.event_metadata.size() - 1);
  }
  return it->second;
}

void EventCopier::Copy(const Line& line, size_t index, Line& out, int64_t shift_ps, StringId name,
                       StringId display_name) {
  Event e = line.events[index];
  for (const Stat& s : line.EventStats(index))
    out.stats.push_back(
        Stat::Make(Key(s.key()), s.type(), s.type() == StatType::kString ? ToDest(s.AsString()) : s.bits));
  e.start_ps += shift_ps;
  e.metadata = Metadata(e.metadata, name, display_name);
  e.stats_end = static_cast<uint32_t>(out.stats.size());
  out.events.push_back(e);
}

void SetLineSpans(const Host& host, Plane& plane, bool shared_start) {
  int64_t first_ps = INT64_MAX;
  for (const Line& l : plane.lines)
    if (!l.events.empty()) first_ps = std::min(first_ps, l.events.front().start_ps);
  for (Line& l : plane.lines) {
    if (l.events.empty()) continue;
    int64_t last = l.events.front().end_ps();
    for (const Event& e : l.events) last = std::max(last, e.end_ps());
    const int64_t start_ps = shared_start ? first_ps : l.events.front().start_ps;
    // Whole nanoseconds, as the XPlane has them; the span reaches the last end.
    l.timestamp_ns = host.time_origin_ns + start_ps / 1000;
    l.duration_ps = last - (l.timestamp_ns - host.time_origin_ns) * 1000;
  }
}

}  // namespace tfprof
