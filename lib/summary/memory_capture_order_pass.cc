#include "lib/summary/memory_capture_order_pass.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <span>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "lib/model/diagnostic_kinds.h"
#include "lib/summary/time_span.h"
#include "lib/util/parallel_for.h"

namespace tfprof::memory_internal {
namespace {

// One piece of the capture-order pass: a run of the plane's events (its
// lines one after another), the allocators its allocator events name in
// the order met, and what the pass met. Pieces are read on several threads
// and joined in order.
struct Piece {
  // Events, counted across the plane's lines; or blocks of complete
  // allocator records (CollectRecordsPiece).
  size_t begin = 0, end = 0;
  struct Allocator {
    std::string id;
    PeakTracker peaks;
    std::vector<AllocatorEvent> events;
    // Where the events' time went back (a line's events follow another
    // line's): the piece's events are sorted runs that start there.
    std::vector<uint32_t> run_starts;
  };
  std::vector<Allocator> allocators;
  Diagnostics diag;
};

// What every piece reads the same way.
struct PieceContext {
  const Host& host;
  const Plane& plane;
  const std::vector<size_t>& line_starts;  // Per line: its first event's place across the plane.
  const std::vector<int8_t>& kind;
  const SnapshotReader& reader;
  const MemoryProfileOptions& options;
  int64_t earliest_ps;  // The earliest start of a line with events, ps after the host's origin.
  // Per line: its blocks of Plane::allocator_records, [first, second).
  const std::vector<std::pair<size_t, size_t>>& line_records;
};

// What the capture-order pass does with each allocator event of a piece,
// whichever way the piece walks them.
class PieceCollector {
 public:
  PieceCollector(const PieceContext& ctx, Piece& piece, size_t most_events)
      : ctx_(ctx), piece_(piece), most_events_(most_events) {}

  // The event `event` of `line` (kind k), its stats, its place
  // (AllocatorEvent's line and event), its line's time zero.
  void Add(const Line& line, const Event& event, int8_t k, const AllocatorStats& stats, uint32_t line_place,
           uint32_t event_place, int64_t zero_ps) {
    const Host& host = ctx_.host;
    MemorySnapshot s;
    s.activity = k == 0 ? MemoryActivity::kAllocation : MemoryActivity::kDeallocation;
    const SnapshotReader::MemoryKey key = ctx_.reader.Read(stats, s, false);
    if (piece_.allocators.empty() || !(last_key_ == key)) {
      auto found = slot_of_.find(key);
      if (found == slot_of_.end()) {
        std::string id = ctx_.reader.IdOf(key);
        auto [at, added] = slot_of_id_.try_emplace(id, piece_.allocators.size());
        if (added) {
          piece_.allocators.push_back(Piece::Allocator{std::move(id), {}, {}});
          // The first few allocators (a capture has one or two per device)
          // get room for the piece's every event, so their lists never
          // move (pages past what is written are never touched); any more
          // grow as they fill.
          if (piece_.allocators.size() <= 4) piece_.allocators.back().events.reserve(most_events_);
        }
        found = slot_of_.emplace(key, at->second).first;
      }
      last_ = found->second;
      last_key_ = key;
    }
    Piece::Allocator& allocator = piece_.allocators[last_];
    s.time_ps = SaturatingSub(event.start_ps, zero_ps);
    if (stats.seen != AllocatorStats::kSeenAll)
      piece_.diag.AddWithMessage(
          diag_kind::kMemoryMissingStats,
          "allocator events without some of allocator_name, bytes_reserved, bytes_allocated, bytes_available "
          "or allocation_bytes (read as empty or 0)",
          fmt::format("{} on {} at {} ps", host.Str(ctx_.plane.event_metadata[event.metadata].name),
                      host.LineName(line), event.start_ps));
    if (s.stack_bytes < 0 || s.heap_bytes < 0 || s.free_bytes < 0 || s.requested_bytes < 0 || s.allocation_bytes < 0)
      piece_.diag.Add(diag_kind::kMemoryNegativeSize,
                      fmt::format("{} {} at {} ps", allocator.id,
                                  host.Str(ctx_.plane.event_metadata[event.metadata].name), event.start_ps));
    const AllocatorEvent r{s.time_ps, line_place, event_place};
    allocator.peaks.Add(s, r, ctx_.options.last_event_lifetime_peak, ctx_.options.first_peak);
    if (!allocator.events.empty() && r.time_ps < allocator.events.back().time_ps)
      allocator.run_starts.push_back(static_cast<uint32_t>(allocator.events.size()));
    allocator.events.push_back(r);
  }

 private:
  const PieceContext& ctx_;
  Piece& piece_;
  const size_t most_events_;
  // Each event's allocator by its key, without making the id's text per
  // event, and by that text: keys of one id (a name "0" and index 0) share
  // an entry, so their events stay in capture order. The last event's
  // entry is tried first, as events of one allocator come in runs.
  absl::flat_hash_map<SnapshotReader::MemoryKey, size_t> slot_of_;
  absl::flat_hash_map<std::string, size_t> slot_of_id_;
  size_t last_ = 0;
  SnapshotReader::MemoryKey last_key_;
};

// Where the line's events start in the time the profile keeps: the
// reference's offset within the line, or since the earliest line start.
int64_t ZeroPs(const PieceContext& ctx, const Line& line) {
  return ctx.options.line_offsets ? (line.timestamp_ns - ctx.host.time_origin_ns) * 1000 : ctx.earliest_ps;
}

// A piece of the plane's events, [begin, end) counted across its lines:
// each allocator event's stats from its record or its line's pool.
void CollectPiece(const PieceContext& ctx, Piece& piece) {
  PieceCollector collect(ctx, piece, piece.end - piece.begin);
  // The line holding the piece's first event: the last one starting at or
  // before it (lines without events start where the next one does).
  size_t l = static_cast<size_t>(std::upper_bound(ctx.line_starts.begin(), ctx.line_starts.end(), piece.begin) -
                                 ctx.line_starts.begin()) -
             1;
  for (; l < ctx.plane.lines.size() && ctx.line_starts[l] < piece.end; ++l) {
    const Line& line = ctx.plane.lines[l];
    const size_t start = ctx.line_starts[l];
    const size_t first = std::max(piece.begin, start) - start;
    const size_t stop = std::min(piece.end - start, line.events.size());
    // A line without events may hold any timestamp (readers check only the
    // lines they place events on): its start below could overflow.
    if (first >= stop) continue;
    // Readers keep every event's time relative to the host's origin; the
    // line's own start is at this many ps after it.
    const int64_t zero_ps = ZeroPs(ctx, line);
    RecordCursor records;
    if (ctx.plane.allocator_stats_as_records)
      records = RecordCursor(ctx.plane.allocator_records, ctx.line_records[l].first, ctx.line_records[l].second,
                             static_cast<uint32_t>(first));
    for (size_t e = first; e < stop; ++e) {
      const Event& event = line.events[e];
      const int8_t k = event.metadata < ctx.kind.size() ? ctx.kind[event.metadata] : -1;
      if (k < 0) continue;
      uint32_t block, index;
      if (records.At(static_cast<uint32_t>(e), &block, &index))
        collect.Add(line, event, k, ctx.plane.allocator_records[block].records[index],
                    block | AllocatorEvent::kInRecords, index, zero_ps);
      else
        collect.Add(line, event, k, ctx.reader.Gather(line.EventStats(e)), static_cast<uint32_t>(l),
                    static_cast<uint32_t>(e), zero_ps);
    }
  }
}

// A piece of blocks of Plane::allocator_records, [begin, end), when they
// are complete: only the allocator events are walked.
void CollectRecordsPiece(const PieceContext& ctx, Piece& piece) {
  size_t most = 0;
  for (size_t b = piece.begin; b < piece.end; ++b) most += ctx.plane.allocator_records[b].records.size();
  PieceCollector collect(ctx, piece, most);
  for (size_t b = piece.begin; b < piece.end; ++b) {
    const AllocatorRecordBlock& block = ctx.plane.allocator_records[b];
    const Line& line = ctx.plane.lines[block.line];
    const int64_t zero_ps = ZeroPs(ctx, line);
    for (size_t i = 0; i < block.records.size(); ++i) {
      const AllocatorStats& record = block.records[i];
      const Event& event = line.events[record.event];
      const int8_t k = event.metadata < ctx.kind.size() ? ctx.kind[event.metadata] : -1;
      if (k < 0) continue;  // Never, when the records are complete.
      collect.Add(line, event, k, record, static_cast<uint32_t>(b) | AllocatorEvent::kInRecords,
                  static_cast<uint32_t>(i), zero_ps);
    }
  }
}

// An allocator's events in capture order whose times never go back, as
// spans of the pieces' arrays (a line's events, cut into pieces).
struct Run {
  std::vector<std::span<const AllocatorEvent>> spans;
  size_t size = 0;
  // How many of its events come before `time` (they are a prefix).
  size_t Before(int64_t time) const {
    size_t n = 0;
    for (const auto& span : spans) {
      const size_t in =
          static_cast<size_t>(std::lower_bound(span.begin(), span.end(), time,
                                               [](const AllocatorEvent& e, int64_t t) { return e.time_ps < t; }) -
                              span.begin());
      n += in;
      if (in < span.size()) break;
    }
    return n;
  }
};

// The runs of an allocator's events, whose parts in the pieces are
// `parts` (capture order).
std::vector<Run> RunsOf(const std::vector<Piece::Allocator*>& parts) {
  std::vector<Run> runs;
  const AllocatorEvent* last = nullptr;
  for (const Piece::Allocator* a : parts) {
    const std::vector<AllocatorEvent>& events = a->events;
    auto add = [&](size_t from, size_t to) {
      if (from == to) return;
      if (last == nullptr || events[from].time_ps < last->time_ps) runs.emplace_back();
      runs.back().spans.emplace_back(events.data() + from, to - from);
      runs.back().size += to - from;
      last = &events[to - 1];
    };
    size_t from = 0;
    for (const uint32_t start : a->run_starts) {
      add(from, start);
      from = start;
    }
    add(from, events.size());
  }
  return runs;
}

// Reads a run from one of its events on, hopping from span to span.
class RunCursor {
 public:
  RunCursor(const Run& run, size_t from, size_t count) : left_(count) {
    span_ = run.spans.data();
    while (left_ > 0 && from >= span_->size()) from -= (span_++)->size();
    if (left_ > 0) {
      p_ = span_->data() + from;
      end_ = span_->data() + span_->size();
    }
  }
  bool done() const { return left_ == 0; }
  const AllocatorEvent& front() const { return *p_; }
  void Next() {
    if (--left_ == 0) return;
    if (++p_ == end_) {
      ++span_;
      p_ = span_->data();
      end_ = p_ + span_->size();
    }
  }

 private:
  const std::span<const AllocatorEvent>* span_;
  const AllocatorEvent* p_ = nullptr;
  const AllocatorEvent* end_ = nullptr;
  size_t left_;
};

// Merges the runs' events [from[r], to[r]) into `out` in the order a
// stable sort by time gives: by time, equal times in capture order (the
// earlier run first).
void MergeRuns(const std::vector<Run>& runs, const std::vector<size_t>& from, const std::vector<size_t>& to,
               AllocatorEvent* out) {
  std::vector<RunCursor> cursors;
  for (size_t r = 0; r < runs.size(); ++r) cursors.emplace_back(runs[r], from[r], to[r] - from[r]);
  // (time, run) of each run's next event, the least first.
  using Head = std::pair<int64_t, uint32_t>;
  std::priority_queue<Head, std::vector<Head>, std::greater<Head>> heads;
  for (uint32_t r = 0; r < cursors.size(); ++r)
    if (!cursors[r].done()) heads.emplace(cursors[r].front().time_ps, r);
  while (!heads.empty()) {
    const uint32_t r = heads.top().second;
    heads.pop();
    RunCursor& c = cursors[r];
    // The run's events up to the next run's next one go out in a row.
    const bool alone = heads.empty();
    const Head next = alone ? Head{} : heads.top();
    do {
      *out++ = c.front();
      c.Next();
    } while (!c.done() && (alone || Head{c.front().time_ps, r} < next));
    if (!c.done()) heads.emplace(c.front().time_ps, r);
  }
}

// The allocator's events in time order into `events` (sized to all of
// them), merged from its runs in `parts` slices of time, one per thread
// (MergeRuns for each): slice i holds the events from the time where
// i/parts of them come before on.
void MergeByTime(const std::vector<Run>& runs, size_t parts, size_t threads, AllocatorEvents& events) {
  const size_t n = events.size();
  if (runs.empty()) return;
  int64_t least = std::numeric_limits<int64_t>::max(), most = std::numeric_limits<int64_t>::min();
  for (const Run& run : runs) {
    least = std::min(least, run.spans.front().front().time_ps);
    most = std::max(most, run.spans.back().back().time_ps);
  }
  auto before = [&](int64_t time) {
    size_t count = 0;
    for (const Run& run : runs) count += run.Before(time);
    return count;
  };
  // Each slice's start, per run: the events before the least time with at
  // least i * n / parts events before it (all of them past the last time).
  std::vector<std::vector<size_t>> starts(parts + 1, std::vector<size_t>(runs.size(), 0));
  for (size_t r = 0; r < runs.size(); ++r) starts[parts][r] = runs[r].size;
  for (size_t i = 1; i < parts; ++i) {
    const size_t rank = i * n / parts;
    // The least time in [least, most] with at least `rank` events before.
    int64_t lo = least, hi = most;
    if (before(most) < rank) {
      starts[i] = starts[parts];
      continue;
    }
    while (lo < hi) {
      const int64_t mid = lo + static_cast<int64_t>((static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo)) / 2);
      if (before(mid) >= rank) hi = mid;
      else lo = mid + 1;
    }
    for (size_t r = 0; r < runs.size(); ++r) starts[i][r] = runs[r].Before(lo);
  }
  ParallelFor(parts, threads, [&](size_t i) {
    size_t at = 0;
    for (size_t r = 0; r < runs.size(); ++r) at += starts[i][r];
    MergeRuns(runs, starts[i], starts[i + 1], events.data() + at);
  });
}

}  // namespace

std::map<std::string, Collecting> CollectInCaptureOrder(const Host& host, const Plane& plane,
                                                        const std::vector<int8_t>& kind, const SnapshotReader& reader,
                                                        const MemoryProfileOptions& options, int64_t time_zero_ps,
                                                        Diagnostics& diag) {
  // The capture-order pass in pieces of the plane's events, at most
  // collect_piece_events each whatever the lines (1 GB: 9.7 M events, 4.5 M
  // of them allocator events with 60 M stats), on a few threads.
  std::vector<size_t> line_starts;
  line_starts.reserve(plane.lines.size());
  size_t plane_events = 0;
  for (const Line& line : plane.lines) {
    line_starts.push_back(plane_events);
    plane_events += line.events.size();
  }
  const size_t piece_events = std::max<size_t>(options.collect_piece_events, 1);
  // With complete records, pieces of whole blocks of about as many records
  // (each block one chunk of a line); else pieces of the plane's events.
  const bool by_records = plane.allocator_records_complete;
  std::vector<Piece> pieces;
  if (by_records) {
    size_t in_piece = 0;
    for (size_t b = 0; b < plane.allocator_records.size(); ++b) {
      if (pieces.empty() || in_piece >= piece_events) {
        pieces.emplace_back().begin = b;
        in_piece = 0;
      }
      pieces.back().end = b + 1;
      in_piece += plane.allocator_records[b].records.size();
    }
  } else {
    pieces.resize(plane_events == 0 ? 0 : (plane_events - 1) / piece_events + 1);
    for (size_t i = 0; i < pieces.size(); ++i) {
      pieces[i].begin = i * piece_events;
      pieces[i].end = pieces[i].begin + std::min(piece_events, plane_events - pieces[i].begin);
    }
  }
  const std::vector<std::pair<size_t, size_t>> line_records = plane.AllocatorRecordBlocksByLine();
  const PieceContext context{host, plane, line_starts, kind, reader, options, time_zero_ps, line_records};
  const size_t threads = options.collect_threads ? options.collect_threads : ThreadsForEvents(plane_events);
  ParallelFor(pieces.size(), threads, [&](size_t i) {
    if (by_records) CollectRecordsPiece(context, pieces[i]);
    else CollectPiece(context, pieces[i]);
  });

  // Joined by the memory id's text: keys of one id (a name "0" and index 0)
  // share its entry. Byte order, as the reference lists memory ids. Each
  // allocator's events are merged from the pieces straight into time
  // order: a line's events are in time order, so the pieces hold a few
  // sorted runs (one per line that allocates, cut where the pieces cut
  // it). A large allocator's merge is cut into slices of time, merged on
  // threads side by side, which also fault in the fresh pages side by side
  // (1 GB: 4.5 M events, 72 MB). Before, the pieces were copied out in
  // capture order and the runs merged in place, on one thread.
  std::map<std::string, Collecting> by_id;
  std::map<std::string, std::vector<Piece::Allocator*>> parts_of;
  for (Piece& piece : pieces)
    for (Piece::Allocator& a : piece.allocators) {
      by_id[a.id].expected += a.events.size();
      parts_of[a.id].push_back(&a);
    }
  for (auto& [id, c] : by_id) {
    c.events.resize(c.expected);
    const std::vector<Run> runs = RunsOf(parts_of[id]);
    if (runs.size() > 16 + c.expected / 64) {
      // Runs far shorter than any line's (no reader leaves a line out of
      // time order): a stable sort of the capture order costs less than a
      // merge of so many. The same order either way.
      size_t at = 0;
      for (Piece::Allocator* a : parts_of[id]) {
        std::copy(a->events.begin(), a->events.end(), c.events.begin() + static_cast<ptrdiff_t>(at));
        at += a->events.size();
      }
      std::stable_sort(c.events.begin(), c.events.end(),
                       [](const AllocatorEvent& x, const AllocatorEvent& y) { return x.time_ps < y.time_ps; });
    } else {
      // Slices of merge_slice_events (64 Ki): a thread is not worth less.
      const size_t parts = std::clamp<size_t>(c.expected / std::max<size_t>(options.merge_slice_events, 1), 1, threads);
      MergeByTime(runs, parts, threads, c.events);
    }
    // Given back once merged.
    for (Piece::Allocator* a : parts_of[id]) {
      std::vector<AllocatorEvent>().swap(a->events);
      std::vector<uint32_t>().swap(a->run_starts);
    }
  }
  for (Piece& piece : pieces) {
    diag.Merge(piece.diag);
    for (Piece::Allocator& a : piece.allocators)
      by_id[a.id].peaks.Join(a.peaks, options.last_event_lifetime_peak, options.first_peak);
  }
  return by_id;
}

}  // namespace tfprof::memory_internal
