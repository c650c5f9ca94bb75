// ChromeTraceBuilder::Finish: closing what is still open, sorting, naming
// and ordering planes and lines, and reporting the diagnostics.

#include <algorithm>
#include <atomic>
#include <tuple>

#include "lib/model/diagnostic_kinds.h"
#include "lib/read/chrome_trace_builder.h"
#include "lib/read/chrome_trace_builder_state.h"
#include "lib/read/chrome_trace_tf1_timeline.h"
#include "lib/read/stat_edit.h"
#include "lib/util/parallel_for.h"

namespace tfprof {
namespace {

using chrome_trace::kOpenDuration;
using chrome_trace::kSyntheticIdBase;

// The catalogue's kind of each TraceDiag, indexed by it: the reader counts
// into a plain array on its hot path and reports once, at Finish().
constexpr const DiagnosticKind* kTraceDiagKinds[] = {
    &diag_kind::kJsonUnmatchedEnd,
    &diag_kind::kJsonUnclosedBegin,
    &diag_kind::kJsonEndArgsIgnored,
    &diag_kind::kJsonMissingTs,
    &diag_kind::kJsonBadFieldType,
    &diag_kind::kJsonMissingDuration,
    &diag_kind::kJsonNegativeDuration,
    &diag_kind::kJsonMissingPhase,
    &diag_kind::kJsonUnknownPhase,
    &diag_kind::kJsonUnsupportedPhase,
    &diag_kind::kJsonNonObjectEvent,
    &diag_kind::kJsonFlowEvents,
    &diag_kind::kJsonObjectEvents,
    &diag_kind::kJsonAsyncUnmatchedEnd,
    &diag_kind::kJsonAsyncUnclosedBegin,
    &diag_kind::kJsonOtherMetadata,
    &diag_kind::kJsonTimeOutOfRange,
    &diag_kind::kJsonMissingPid,
    &diag_kind::kJsonMissingTid,
    &diag_kind::kJsonNullArg,
    &diag_kind::kJsonTooDeep,
    &diag_kind::kJsonInvalidUtf8,
    &diag_kind::kJsonUnterminatedArray,
    &diag_kind::kJsonUnsortedLine,
    &diag_kind::kJsonTooManyStatNames,
    &diag_kind::kJsonLineTooLarge,
    &diag_kind::kReadMaxEventsReached,
    &diag_kind::kJsonNumberOutOfRange,
    &diag_kind::kJsonKinetoHostPidShared,
};
static_assert(std::size(kTraceDiagKinds) == static_cast<size_t>(TraceDiag::kCount));

}  // namespace

bool ChromeTraceBuilder::Materialize(LineState& state) const {
  chrome_trace::BlockVector<Event>& events = state.events;
  chrome_trace::BlockVector<Stat>& stats = state.stats;
  const size_t n = events.size();

  // Which events stay (not the B/b still open), how many stats they hold,
  // and whether they are already in order.
  size_t kept = 0, kept_stats = 0;
  bool sorted = true;
  const Event* previous = nullptr;
  uint32_t begin = 0;
  for (size_t i = 0; i < n; ++i) {
    const Event& e = events[i];
    if (e.duration_ps != kOpenDuration) {
      ++kept;
      kept_stats += e.stats_end - begin;
      if (previous && (e.start_ps < previous->start_ps ||
                       (e.start_ps == previous->start_ps && e.duration_ps > previous->duration_ps)))
        sorted = false;
      previous = &e;
    }
    begin = e.stats_end;
  }

  // The order to copy them in: as they are, or sorted by (start ascending,
  // duration descending), ties in file order, as Line::SortEvents does.
  std::vector<uint32_t> order;
  std::vector<uint32_t> begins;  // Stats begin of each event, when out of order.
  if (!sorted) {
    struct Key {
      int64_t start;
      uint32_t index;
    };
    std::vector<Key> keys;
    keys.reserve(kept);
    begins.resize(n);
    begin = 0;
    for (size_t i = 0; i < n; ++i) {
      const Event& e = events[i];
      begins[i] = begin;
      begin = e.stats_end;
      if (e.duration_ps != kOpenDuration) keys.push_back(Key{e.start_ps, static_cast<uint32_t>(i)});
    }
    // Stable: equal (start, duration) keep their order in the file.
    std::stable_sort(keys.begin(), keys.end(), [&](const Key& a, const Key& b) {
      if (a.start != b.start) return a.start < b.start;
      return events[a.index].duration_ps > events[b.index].duration_ps;
    });
    order.reserve(kept);
    for (const Key& k : keys) order.push_back(k.index);
  }

  // Copy into vectors of the exact size (the stats' with room for what the
  // conventions add to some events after: kStatRoomPerEvent), freeing each
  // block as soon as all it holds has been copied, so that the peak stays
  // near the model's size (events sorted by start were mostly read close
  // together). Not advised into huge pages: on these machines a huge page's
  // fault may wait for the kernel to compact memory, and finishing the 1 GB
  // Kineto trace's lines took 395-587 ms with the advice against 261-325 ms
  // without (docs/performance.md).
  std::vector<size_t> events_left(events.block_count()), stats_left(stats.block_count());
  for (size_t b = 0; b < events_left.size(); ++b) events_left[b] = events.used(b);
  for (size_t b = 0; b < stats_left.size(); ++b) stats_left[b] = stats.used(b);
  Line& line = state.line;
  line.events.reserve(kept);
  line.stats.reserve(kept_stats + kStatRoomPerEvent * kept);
  auto consume_stats = [&](size_t from, size_t to, bool copy) {
    while (from < to) {
      auto [b, offset] = chrome_trace::BlockVector<Stat>::Locate(from);
      size_t take = std::min(to - from, stats.BlockSize(b) - offset);
      if (copy) line.stats.insert(line.stats.end(), stats.block(b) + offset, stats.block(b) + offset + take);
      if ((stats_left[b] -= take) == 0) stats.ReleaseBlock(b);
      from += take;
    }
  };
  auto consume_event = [&](size_t i, uint32_t stats_begin) {
    auto [b, offset] = chrome_trace::BlockVector<Event>::Locate(i);
    Event e = events.block(b)[offset];
    bool copy = e.duration_ps != kOpenDuration;
    consume_stats(stats_begin, e.stats_end, copy);
    if (copy) {
      e.stats_end = static_cast<uint32_t>(line.stats.size());
      line.events.push_back(e);
    }
    if (--events_left[b] == 0) events.ReleaseBlock(b);
  };
  if (sorted) {
    uint32_t stats_begin = 0;
    for (size_t i = 0; i < n; ++i) {
      uint32_t stats_end = events[i].stats_end;
      consume_event(i, stats_begin);
      stats_begin = stats_end;
    }
  } else {
    for (uint32_t i : order) consume_event(i, begins[i]);
  }
  events.clear();
  stats.clear();
  state.open_count = 0;
  return !sorted;
}

void ChromeTraceBuilder::MatchDevices() {
  for (auto& [device_id, props] : devices_) {
    auto it = plane_index_.find(device_id);
    if (it == plane_index_.end()) continue;
    PlaneState& plane = *planes_[it->second];
    if (plane.synthetic) continue;
    // Kineto gives GPU processes pid = device id and labels "GPU <id>"; a
    // process labelled otherwise ("CPU") is a host process that happens to
    // share the number.
    std::string_view labels = host_.strings.Get(plane.labels);
    if (!labels.empty() && labels.substr(0, 3) != "GPU") continue;
    plane.plane.device = props;
  }
}

void ChromeTraceBuilder::Finish() {
  ChargeStrings();
  std::vector<LineState*> lines;
  for (auto& plane : planes_) {
    for (auto& [key, open] : plane->open_async)
      Count(TraceDiag::kAsyncUnclosedBegin, key.substr(key.rfind('\x1f') + 1), open.size());
    plane->open_async.clear();
    for (auto& line : plane->lines) {
      if (!line->open_begins.empty()) {
        Count(TraceDiag::kUnclosedBegin, host_.EventName(plane->plane, line->events[line->open_begins.back()]),
              line->open_begins.size());
        line->open_begins.clear();
      }
      lines.push_back(line.get());
    }
  }
  // Lines are independent: each is sorted and copied out of its blocks on
  // one of a few threads, the longest first. What each does touches only
  // its line (and the allocator), and the count of unsorted lines does not
  // depend on the order.
  const std::vector<size_t> order = LargestFirst(lines.size(), [&](size_t i) { return lines[i]->events.size(); });
  size_t events = 0;
  for (const LineState* line : lines) events += line->events.size();
  std::atomic<uint64_t> unsorted{0};
  ParallelFor(order.size(), ThreadsForEvents(events), [&](size_t i) {
    LineState& line = *lines[order[i]];
    // TF1's tensor objects come out of time order (deletions last): no
    // line of the trace, so not counted.
    if (Materialize(line) && !IsTensorObjectLine(host_.strings.Get(line.line.name)))
      unsorted.fetch_add(1, std::memory_order_relaxed);
    Line& l = line.line;
    if (!l.events.empty()) {
      int64_t first = l.events.front().start_ps, last = first;
      for (const Event& e : l.events) last = std::max(last, e.end_ps());
      l.timestamp_ns = origin_us_ * 1000 + first / 1000;
      l.duration_ps = last - first;
    }
  });
  if (unsorted > 0) Count(TraceDiag::kUnsortedLine, "", unsorted);
  for (auto& plane : planes_) {
    // A line whose only events were dropped (a B never ended, a time out of
    // range; all counted) is not kept.
    plane->thread_lines.clear();
    plane->special_lines.clear();
    std::erase_if(plane->lines, [](const auto& line) { return line->line.events.empty(); });
  }
  last_plane_ = nullptr;
  last_line_ = nullptr;

  // Names: metadata first, else the id as the trace wrote it.
  for (auto& plane : planes_) {
    Plane& p = plane->plane;
    if (plane->has_process_name) {
      p.name = plane->process_name;
    } else if (auto it = synthetic_names_.find(p.id); plane->synthetic && it != synthetic_names_.end()) {
      std::string_view original = host_.strings.Get(it->second);
      p.name = original.empty() ? host_.strings.Intern("pid \"\"") : it->second;
    } else {
      p.name = host_.strings.Intern("pid " + std::to_string(p.id));
    }
    for (auto& line : plane->lines) {
      if (line->kind != LineState::kThread) continue;
      Line& l = line->line;
      auto meta = plane->thread_meta.find(l.id);
      if (meta != plane->thread_meta.end() && meta->second.has_name) {
        l.name = meta->second.name;
      } else if (auto it = synthetic_names_.find(l.id); l.id >= kSyntheticIdBase && it != synthetic_names_.end()) {
        std::string_view original = host_.strings.Get(it->second);
        l.name = original.empty() ? host_.strings.Intern("tid \"\"") : it->second;
      } else {
        l.name = host_.strings.Intern("tid " + std::to_string(l.id));
      }
    }
  }

  // Order: by sort index where the trace gives one, the rest after them in
  // order of first appearance.
  auto line_key = [](PlaneState& plane, LineState& line) {
    auto meta = plane.thread_meta.find(line.line.id);
    bool sorted = line.kind == LineState::kThread && meta != plane.thread_meta.end() && meta->second.has_sort;
    return std::tuple(!sorted, sorted ? meta->second.sort_index : 0, line.first_seen);
  };
  MatchDevices();  // Before sorting: it finds planes through plane_index_.
  std::stable_sort(planes_.begin(), planes_.end(), [](const auto& a, const auto& b) {
    return std::tuple(!a->has_sort, a->has_sort ? a->sort_index : 0, a->first_seen) <
           std::tuple(!b->has_sort, b->has_sort ? b->sort_index : 0, b->first_seen);
  });
  host_.planes.reserve(host_.planes.size() + planes_.size());
  for (auto& plane : planes_) {
    std::stable_sort(plane->lines.begin(), plane->lines.end(),
                     [&](const auto& a, const auto& b) { return line_key(*plane, *a) < line_key(*plane, *b); });
    Plane& p = plane->plane;
    p.lines.reserve(plane->lines.size());
    for (auto& line : plane->lines) p.lines.push_back(std::move(line->line));
    host_.planes.push_back(std::move(p));
  }
  planes_.clear();
  plane_index_.clear();
  cached_plane_ = nullptr;
  last_plane_ = nullptr;
  last_line_ = nullptr;
  host_.time_origin_ns = origin_set_ ? origin_us_ * 1000 : 0;
  ChargeStrings();  // The "pid N" and "tid N" names.

  for (size_t k = 0; k < static_cast<size_t>(TraceDiag::kCount); ++k) {
    const DiagCount& c = diag_counts_[k];
    if (c.count == 0) continue;
    diagnostics_.Add(*kTraceDiagKinds[k], c.example, c.count);
  }
}

}  // namespace tfprof
