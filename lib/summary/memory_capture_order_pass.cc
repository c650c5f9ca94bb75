#include "lib/summary/memory_capture_order_pass.h"

#include <algorithm>
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
    allocator.peaks.Add(s, r, ctx_.options.last_event_lifetime_peak);
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
  // share its entry. Byte order, as the reference lists memory ids. The
  // pieces' events are copied in on threads, which fault in the fresh
  // pages side by side (1 GB: 4.5 M events, 72 MB).
  std::map<std::string, Collecting> by_id;
  struct Move {
    Piece::Allocator* from;
    Collecting* to;
    size_t at;
  };
  std::vector<Move> moves;
  for (Piece& piece : pieces)
    for (Piece::Allocator& a : piece.allocators) {
      Collecting& c = by_id[a.id];
      moves.push_back({&a, &c, c.expected});
      c.expected += a.events.size();
    }
  for (auto& [id, c] : by_id) c.events.resize(c.expected);
  ParallelFor(moves.size(), threads, [&](size_t i) {
    std::vector<AllocatorEvent>& from = moves[i].from->events;
    std::copy(from.begin(), from.end(), moves[i].to->events.begin() + static_cast<ptrdiff_t>(moves[i].at));
    // Given back once copied, so most of the pieces' events are gone by
    // the time the joined ones are all written.
    std::vector<AllocatorEvent>().swap(from);
  });
  for (Piece& piece : pieces) {
    diag.Merge(piece.diag);
    for (Piece::Allocator& a : piece.allocators) by_id[a.id].peaks.Join(a.peaks, options.last_event_lifetime_peak);
  }
  return by_id;
}

}  // namespace tfprof::memory_internal
