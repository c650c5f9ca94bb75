// Internal to the XPlane reader (xplane_reader.cc): the pre-scan of a
// plane's lines. On one thread, in line order, it reads each line's own
// fields, frames its events (a length each, one after another), cuts them
// into chunks for the decoding threads (ChunkPipeline) and hands each over
// as soon as it is framed where the line allows; it decides which events
// the command leaves out (PlaneContext's rules) and plans each line: its
// start from the host's time origin, what --max-events leaves of it, or
// that the command reads none of it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/model/diagnostic_kinds.h"
#include "lib/model/diagnostics.h"
#include "lib/model/model.h"
#include "lib/model/xplane_schema.h"
#include "lib/read/memory_budget.h"
#include "lib/read/read_options.h"
#include "lib/read/wire_decoder.h"
#include "lib/read/xplane_chunk_pipeline.h"
#include "lib/read/xplane_event_decoder.h"
#include "lib/read/xplane_wire.h"

namespace tfprof::xplane_wire {

// What the pre-scan of a line tells its caller as it goes (ScanLine).
class ScanHooks {
 public:
  // At the line's first event, with whether the line's id and timestamp
  // came before it.
  virtual void FirstEvent(bool id_seen, bool timestamp_seen) = 0;
  // Chunk c's events are all framed (the next chunk begins).
  virtual void ChunkFramed(size_t c) = 0;
  // Whether the chunks framed go to the decoders as they are framed: then
  // the decoders give their pages back, else the pre-scan does.
  virtual bool HandingOver() const = 0;

 protected:
  ~ScanHooks() = default;
};

// What a line's pre-scan says of the events the plane leaves out
// (PlaneContext::skip_event): per chunk, the events kept; leaving out by
// groups, a bit per event of the line (in wire order) for those left out,
// the kept events' offsets, and the left-out events' group ids, a run of
// one id noted once.
struct LeftOutEvents {
  std::vector<size_t> kept;
  std::vector<uint64_t> marked;
  std::vector<int64_t> group_ids;
  // Leaving out by groups: each kept event's offset from its chunk's first
  // event, so that the decoders go from one to the next without framing
  // those left out again (ChunkJob::kept_at); cleared, with
  // `kept_at_fit` false, when one lies 4 GiB or more past its chunk's
  // start (the decoders then frame the chunk, skipping the marked events).
  // Noted for every kept event, 4 bytes each until the line is handed
  // over, even where none ends up left out (the chunks then take none).
  std::vector<uint32_t> kept_at;
  bool kept_at_fit = true;
  // Charges the marks', ids' and offsets' growth (bytes; negative: gives it
  // back): a line of alternating group ids holds one per event until it
  // ends.
  std::function<void(int64_t)> charge;
  uint64_t marked_charged = 0, ids_charged = 0, at_charged = 0;  // Capacities charged.

  LeftOutEvents() = default;
  LeftOutEvents(const LeftOutEvents&) = delete;
  LeftOutEvents& operator=(const LeftOutEvents&) = delete;
  ~LeftOutEvents() {
    if (charge)
      charge(-static_cast<int64_t>((marked_charged + ids_charged) * sizeof(uint64_t) + at_charged * sizeof(uint32_t)));
  }

  // A kept event `offset` bytes past its chunk's first event: inline
  // while there is room (one per kept event of the memory profile's).
  inline __attribute__((always_inline)) void Kept(uint64_t offset) {
    if (kept_at_fit && offset <= UINT32_MAX && kept_at.size() < kept_at.capacity())
      kept_at.push_back(static_cast<uint32_t>(offset));
    else KeptGrowing(offset);
  }
  __attribute__((noinline)) void KeptGrowing(uint64_t offset) {
    if (!kept_at_fit) return;
    if (offset > UINT32_MAX) {
      kept_at_fit = false;
      std::vector<uint32_t>().swap(kept_at);
      if (charge) charge(-static_cast<int64_t>(at_charged * sizeof(uint32_t)));
      at_charged = 0;
      return;
    }
    kept_at.push_back(static_cast<uint32_t>(offset));
    Charged(kept_at, at_charged);
  }

  void Mark(size_t event, bool has_group, int64_t group) {
    if (marked.size() <= event / 64) {
      marked.resize(event / 64 + 1);
      Charged(marked, marked_charged);
    }
    marked[event / 64] |= uint64_t{1} << (event % 64);
    if (has_group && (group_ids.empty() || group_ids.back() != group)) {
      group_ids.push_back(group);
      Charged(group_ids, ids_charged);
    }
  }
  template <class T>
  void Charged(const std::vector<T>& v, uint64_t& charged) {
    if (v.capacity() <= charged) return;
    charge(static_cast<int64_t>((v.capacity() - charged) * sizeof(T)));
    charged = v.capacity();
  }
  // The marks of events [first, first + count), from bit 0.
  std::vector<uint64_t> MarkedIn(size_t first, size_t count) const {
    std::vector<uint64_t> out((count + 63) / 64);
    if (first % 64 == 0) {  // Chunks of a multiple of 64 events: whole words.
      for (size_t w = 0; w < out.size() && first / 64 + w < marked.size(); ++w) out[w] = marked[first / 64 + w];
      if (count % 64 != 0) out.back() &= (uint64_t{1} << (count % 64)) - 1;
      return out;
    }
    for (size_t i = 0; i < count; ++i) {
      const size_t e = first + i;
      if (e / 64 < marked.size() && (marked[e / 64] >> (e % 64)) & 1) out[i / 64] |= uint64_t{1} << (i % 64);
    }
    return out;
  }
};

// The reader's memory budget: through the lock while decoding threads run
// (`shared` set), else directly.
struct ReaderBudget {
  MemoryBudget& budget;
  SharedBudget* shared = nullptr;
  void Charge(Growth what, uint64_t bytes, uint64_t count) {
    if (shared) shared->Charge(what, bytes, count);
    else budget.Charge(what, bytes, count);
  }
  void Release(Growth what, uint64_t bytes) {
    if (shared) shared->Release(what, bytes);
    else budget.Release(what, bytes);
  }
};

class LinePrescan {
 public:
  LinePrescan(const ReadOptions& options, Diagnostics& diag, const ReleaseFn& release, ReaderBudget& budget)
      : options_(options), diag_(diag), release_(release), budget_(budget) {}
  // The host the lines are read into (set before the first line).
  void Begin(Host& host) { host_ = &host; }

  // Reads a line's own fields, counts its events and notes the offset of
  // every `chunk_events`-th event in `cuts`. The pages it has read are
  // given back every `release_every` chunks and at the line's end, unless
  // `hooks` hands the chunks over as they are framed (their decoders give
  // them back once decoded).
  // With `leaving_out`, also counts in `left_out->kept` the events of each
  // chunk that it does not leave out (PlaneContext::LeavesOut, or, leaving
  // out by groups, LeavesOutByGroups, marking those it leaves out and
  // noting their group ids).
  // With `unread` (the model reader's pre-scan), a line whose events the
  // command does not read is not framed: at its first event the scan jumps
  // to the line's end, and sets *unread (UnreadLine; `plane_unread`: the
  // line's plane's UnreadPlaneCount).
  size_t ScanLine(WireDecoder line_bytes, Line& line, std::vector<uint64_t>& cuts, size_t chunk_events,
                  size_t release_every, const PlaneContext* leaving_out = nullptr, LeftOutEvents* left_out = nullptr,
                  bool* unread = nullptr, uint64_t* plane_unread = nullptr, ScanHooks* hooks = nullptr) {
    size_t event_count = 0;
    bool id_seen = false, timestamp_seen = false;
    size_t until_cut = 0;  // Events left before the next chunk starts.
    WireDecoder scan = line_bytes;
    uint64_t released = scan.offset();
    uint32_t field;
    WireType type;
    for (uint64_t at = scan.offset(); scan.NextField(&field, &type); at = scan.offset()) {
      switch (field) {
        case kLineId:
          scan.Expect(type, kVarint, "XLine.id");
          line.id = scan.Int64();
          id_seen = true;
          break;
        case kLineDisplayId:
          scan.Expect(type, kVarint, "XLine.display_id");
          line.display_id = scan.Int64();
          break;
        case kLineName:
          scan.Expect(type, kLengthDelimited, "XLine.name");
          line.name = host_->strings.Intern(scan.Bytes());
          break;
        case kLineDisplayName:
          scan.Expect(type, kLengthDelimited, "XLine.display_name");
          line.display_name = host_->strings.Intern(scan.Bytes());
          break;
        case kLineTimestampNs:
          scan.Expect(type, kVarint, "XLine.timestamp_ns");
          line.timestamp_ns = scan.Int64();
          timestamp_seen = true;
          break;
        case kLineDurationPs:
          scan.Expect(type, kVarint, "XLine.duration_ps");
          line.duration_ps = scan.Int64();
          break;
        case kLineEvents:
          scan.Expect(type, kLengthDelimited, "XLine.events");
          if (unread && event_count == 0 && id_seen && timestamp_seen && UnreadLine(line, plane_unread)) {
            // Not framed, not touched: the line's fields after its events
            // (duration, display id and name) go unread with them.
            *unread = true;
            const uint64_t end = line_bytes.offset() + line_bytes.size();
            scan = line_bytes.Slice(end, end);
            break;
          }
          if (hooks && event_count == 0) hooks->FirstEvent(id_seen, timestamp_seen);
          // A line is mostly one run of events: framed in a loop of its own,
          // each next tag a byte compared, not a field dispatched.
          for (;;) {
            if (until_cut == 0) {
              until_cut = chunk_events;
              cuts.push_back(at);
              if (hooks && cuts.size() > 1) hooks->ChunkFramed(cuts.size() - 2);
              if (leaving_out) left_out->kept.push_back(0);
              if (release_ && cuts.size() % release_every == 0 && !(hooks && hooks->HandingOver())) {
                release_(released, at);
                released = at;
              }
            }
            --until_cut;
            // Framing is one dependent length after another: the bytes a few
            // events on are fetched meanwhile.
            scan.PrefetchAhead(1024);
            if (leaving_out && leaving_out->leaves_out_by_groups) {
              const WireDecoder event = scan.Message();
              bool has_group;
              int64_t group;
              if (leaving_out->LeavesOutByGroups(event, &has_group, &group)) {
                left_out->Mark(event_count, has_group, group);
              } else {
                ++left_out->kept.back();
                left_out->Kept(at - cuts.back());
              }
            } else if (leaving_out) {
              const WireDecoder event = scan.Message();
              if (!leaving_out->LeavesOut(event)) ++left_out->kept.back();
            } else {
              scan.Bytes();
            }
            ++event_count;
            at = scan.offset();
            if (scan.PeekByte() != ((kLineEvents << 3) | kLengthDelimited)) break;
            scan.Varint();
          }
          break;
        default: Unknown("XLine", field); scan.Skip(type);
      }
    }
    if (release_ && !(hooks && hooks->HandingOver())) release_(released, scan.offset());
    return event_count;
  }

  // The line's start from the host's time origin (set by the first line
  // with events), with `event_count` cut to what --max-events leaves; none
  // when there is nothing to decode.
  std::optional<int64_t> PlanLine(const Line& line, size_t& event_count) {
    if (event_count == 0) return std::nullopt;
    SetOriginFrom(line);
    int64_t base_ps;
    if (!LineStartPs(line, &base_ps)) {
      diag_.Add(diag_kind::kXplaneLineTimeOutOfRange, std::string(host_->LineName(line)), event_count);
      return std::nullopt;
    }
    if (options_.max_events) {
      uint64_t room = options_.max_events > events_planned_ ? options_.max_events - events_planned_ : 0;
      if (event_count > room) {
        diag_.Add(diag_kind::kReadMaxEventsReached, "", event_count - room);
        event_count = room;
      }
    }
    events_planned_ += event_count;
    return base_ps;
  }

  // Reads a line's own fields, counts its events and cuts them into chunks
  // for the pipeline: each as soon as it is framed where the line allows
  // (MayHandOverEarly), else once the line is counted. `plane_unread`: the
  // line's plane's UnreadPlaneCount.
  void PrescanLine(const PlaneContext& ctx, WireDecoder line_bytes, Line& line, ChunkPipeline& pipeline,
                   uint64_t* plane_unread) {
    std::vector<uint64_t> cuts;  // Offset of every chunk_events_-th event.
    LeftOutEvents left_out;      // When the plane leaves events out.
    left_out.kept_at_fit = options_.decode_kept_by_offsets;
    left_out.charge = [this](int64_t bytes) {
      if (bytes >= 0) budget_.Charge(Growth::kEvents, static_cast<uint64_t>(bytes), 0);
      else budget_.Release(Growth::kEvents, static_cast<uint64_t>(-bytes));
    };
    const bool leaving_out = !ctx.skip_event.empty();
    EarlyHandOver early(*this, line, pipeline, line_bytes, cuts, left_out, leaving_out, plane_unread);
    // The pre-scan maps the line's pages. Chunks handed over as they are
    // framed have their decoders give them back (ChunkPipeline); else the
    // pre-scan gives them back behind it, and the decoders map them again
    // (--max-events, a line's id or timestamp after its events).
    bool unread = false;
    size_t event_count = ScanLine(line_bytes, line, cuts, chunk_events_, /*release_every=*/16,
                                  leaving_out ? &ctx : nullptr, &left_out, &unread, plane_unread, &early);
    LineJoin* join = early.join;
    if (unread) {
      pipeline.CloseLine(*join);
      return;
    }
    // Planned as the line ended: the origin its first event set is set
    // again from it (the same, unless its timestamp came again later).
    if (early.set_origin) origin_set_ = false;
    const size_t framed = event_count;
    const std::optional<int64_t> planned = PlanLine(line, event_count);
    uint64_t* skipped = planned ? SkippedLinesCount(line, plane_unread) : nullptr;
    size_t handed = early.handed, first_kept = early.first_kept;
    if (early.on && (!planned || *planned != early.base_ps || skipped)) {
      // The line's id or timestamp came again after its first events: the
      // chunks handed over are dropped, and the line handed over as it is.
      pipeline.DropLine(*join);
      join = &pipeline.OpenLine(line, line_bytes.size());
      handed = first_kept = 0;
    }
    // Planned first, so the time origin and --max-events come out as when
    // the line is read.
    if (planned && skipped) ++*skipped;
    if (!planned || skipped) {
      pipeline.CloseLine(*join);
      if (release_) release_(line_bytes.offset(), line_bytes.offset() + line_bytes.size());
      return;
    }
    // A line --max-events cut keeps every event it reads (the counts are
    // per chunk of the whole line).
    const bool leaves_out = leaving_out && event_count == framed;
    size_t kept_count = event_count;
    if (leaves_out) {
      kept_count = 0;
      for (size_t k : left_out.kept) kept_count += k;
      line.events_left_out = event_count - kept_count;
      if (ctx.without_steps) {
        host_->events_left_out_without_steps += line.events_left_out;
      } else if (ctx.leaves_out_by_groups) {
        KeepGroupIdsOfLine(left_out.group_ids, ctx.plane->left_out_group_ids);
      } else {
        host_->allocator_events_skipped += event_count - kept_count;
      }
    }
    // Sized first: the early array's chunks give back their charges as the
    // line's is taken, so they are not counted twice.
    pipeline.SizeLine(*join, kept_count);
    budget_.Charge(Growth::kEvents, kept_count * sizeof(Event), kept_count);
    for (size_t c = handed; c * chunk_events_ < event_count; ++c)
      pipeline.Hand(*join,
                    MakeChunk(line, line_bytes, cuts, left_out, c, event_count, leaves_out, first_kept, *planned));
    pipeline.CloseLine(*join);
  }

  // Where the lines of a plane whose events the command reads none of are
  // counted (ReadOptions::event_stats: the host threads' for kernel-stats,
  // the devices' for memory); null when it reads them.
  uint64_t* UnreadPlaneCount(const Plane& plane) const {
    const EventStatFilter& kept = options_.event_stats;
    const std::string_view name = host_->PlaneName(plane);
    if (!kept.keep_host_thread_events && name == schema::kHostThreadsPlane) return &host_->host_thread_lines_skipped;
    if (!kept.keep_device_events && schema::IsDevicePlane(name)) return &host_->device_lines_skipped;
    return nullptr;
  }

 private:
  // The first line with events sets the host's time origin.
  void SetOriginFrom(const Line& line) {
    if (origin_set_) return;
    host_->time_origin_ns = line.timestamp_ns;
    origin_set_ = true;
  }
  // The line's start from the time origin, in ps; false when it does not
  // fit in 64 bits.
  bool LineStartPs(const Line& line, int64_t* base_ps) const {
    return !__builtin_sub_overflow(line.timestamp_ns, host_->time_origin_ns, base_ps) &&
           !__builtin_mul_overflow(*base_ps, int64_t{1000}, base_ps);
  }

  // Where a line is counted when the command reads none of its events
  // (ReadOptions::event_stats); null when they are decoded. `plane_unread`:
  // its plane's UnreadPlaneCount.
  uint64_t* SkippedLinesCount(const Line& line, uint64_t* plane_unread) const {
    // A device's Steps line is read whatever else is left out: in captures
    // grouped when taken it may be all that names the steps (step_name),
    // and it holds one event per step.
    if (schema::IsDerivedStepsLineId(line.id)) return nullptr;
    const EventStatFilter& kept = options_.event_stats;
    if (!kept.keep_derived_line_events && schema::IsDerivedLineId(line.id)) return &host_->derived_lines_skipped;
    return plane_unread;
  }

  // Whether the pre-scan may leave a line's events unread without framing
  // them: the command reads none of them (SkippedLinesCount), and what
  // PlanLine would do with them needs no count. It sets the time origin
  // from the first line with events, so it is set here as there, and
  // --max-events counts skipped events, so with it every line is framed.
  // Counts the line as skipped. Bytes left unread are not checked: a
  // command that reads only the devices does not see a host line's
  // corruption (docs/robustness.md).
  bool UnreadLine(const Line& line, uint64_t* plane_unread) {
    if (options_.max_events) return false;
    uint64_t* skipped = SkippedLinesCount(line, plane_unread);
    if (!skipped) return false;
    int64_t base_ps;
    if (origin_set_ && !LineStartPs(line, &base_ps)) return false;  // Framed, for PlanLine's warning with the count.
    SetOriginFrom(line);
    ++*skipped;
    return true;
  }

  // Hands a line's chunks to the pipeline as the pre-scan frames them
  // (ScanLine's hooks), when MayHandOverEarly allows.
  struct EarlyHandOver final : ScanHooks {
    LinePrescan& reader;
    Line& line;
    ChunkPipeline& pipeline;
    const WireDecoder& line_bytes;
    const std::vector<uint64_t>& cuts;
    const LeftOutEvents& left_out;
    const bool leaving_out;
    uint64_t* const plane_unread;
    LineJoin* join;
    bool on = false, set_origin = false;
    int64_t base_ps = 0;
    size_t handed = 0, first_kept = 0;

    EarlyHandOver(LinePrescan& r, Line& l, ChunkPipeline& p, const WireDecoder& bytes, const std::vector<uint64_t>& c,
                  const LeftOutEvents& k, bool leaving, uint64_t* unread)
        : reader(r),
          line(l),
          pipeline(p),
          line_bytes(bytes),
          cuts(c),
          left_out(k),
          leaving_out(leaving),
          plane_unread(unread),
          join(&p.OpenLine(l, bytes.size())) {}
    bool HandingOver() const override { return on; }
    void FirstEvent(bool id_seen, bool timestamp_seen) override {
      on = reader.MayHandOverEarly(line, id_seen, timestamp_seen, plane_unread, &base_ps, &set_origin);
    }
    void ChunkFramed(size_t c) override {
      if (!on) return;
      // The first chunk foretells the line's count: an array for the
      // chunks to decode in place, the line's if the count fits.
      if (handed == 0)
        pipeline.SizeEarly(*join, leaving_out ? left_out.kept[c] : reader.chunk_events_, cuts[c + 1] - cuts[c]);
      // Framed up to the next cut: a whole chunk, whatever the line's count.
      pipeline.Hand(*join,
                    reader.MakeChunk(line, line_bytes, cuts, left_out, c, SIZE_MAX, leaving_out, first_kept, base_ps));
      ++handed;
    }
  };

  // Whether a line's chunks may be handed over as they are framed, before
  // the line is counted: its id and timestamp came before its first event
  // (so whether the command reads the line, and the decoders' time base,
  // are known), and --max-events, which needs every line's count first, is
  // off. The line sets the time origin if it is the first with events, as
  // PlanLine would (*set_origin says so).
  bool MayHandOverEarly(const Line& line, bool id_seen, bool timestamp_seen, uint64_t* plane_unread, int64_t* base_ps,
                        bool* set_origin) {
    *set_origin = false;
    if (options_.max_events || !id_seen || !timestamp_seen || SkippedLinesCount(line, plane_unread)) return false;
    const bool had_origin = origin_set_;
    SetOriginFrom(line);
    if (LineStartPs(line, base_ps)) {
      *set_origin = !had_origin;
      return true;
    }
    origin_set_ = had_origin;
    return false;
  }

  // Chunk c of a line whose pre-scan cut it at `cuts`; `first_kept` is
  // where its kept events start in the line, and moves past them.
  ChunkJob MakeChunk(Line& line, const WireDecoder& line_bytes, const std::vector<uint64_t>& cuts,
                     const LeftOutEvents& left_out, size_t c, size_t event_count, bool leaves_out, size_t& first_kept,
                     int64_t base_ps) const {
    ChunkJob job;
    job.line = &line;
    job.event_count = std::min(chunk_events_, event_count - c * chunk_events_);
    job.first_event = first_kept;
    job.leaves_out = leaves_out;
    job.kept_events = leaves_out ? left_out.kept[c] : job.event_count;
    if (leaves_out && !left_out.marked.empty()) {
      job.by_offsets = left_out.kept_at_fit;
      if (left_out.kept_at_fit)
        job.kept_at.assign(left_out.kept_at.begin() + static_cast<std::ptrdiff_t>(first_kept),
                           left_out.kept_at.begin() + static_cast<std::ptrdiff_t>(first_kept + job.kept_events));
      else job.left_out_bits = left_out.MarkedIn(c * chunk_events_, job.event_count);
    }
    first_kept += job.kept_events;
    job.base_ps = base_ps;
    const uint64_t line_end = line_bytes.offset() + line_bytes.size();
    job.bytes = line_bytes.Slice(cuts[c], c + 1 < cuts.size() ? cuts[c + 1] : line_end);
    job.last = (c + 1) * chunk_events_ >= event_count;
    return job;
  }

  // A line's left-out group ids into the plane's, each once: sorted and
  // made unique as they come, so they take room by distinct id.
  void KeepGroupIdsOfLine(std::vector<int64_t>& ids, std::vector<int64_t>& plane) {
    if (ids.empty()) return;
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    const size_t had = plane.size(), room = plane.capacity();
    if (room < had + ids.size()) {
      plane.reserve(std::max(had + ids.size(), 2 * room));
      budget_.Charge(Growth::kEvents, (plane.capacity() - room) * sizeof(int64_t), 0);
    }
    plane.insert(plane.end(), ids.begin(), ids.end());
    std::inplace_merge(plane.begin(), plane.begin() + static_cast<std::ptrdiff_t>(had), plane.end());
    plane.erase(std::unique(plane.begin(), plane.end()), plane.end());
  }

  void Unknown(const char* message, uint32_t field) {
    diag_.Add(diag_kind::kXplaneUnknownField, std::string(message) + " field " + std::to_string(field));
  }

  const ReadOptions& options_;
  Diagnostics& diag_;
  const ReleaseFn& release_;
  ReaderBudget& budget_;
  Host* host_ = nullptr;
  const size_t chunk_events_ =
      options_.decode_chunk_events ? std::min(options_.decode_chunk_events, kMostChunkEvents) : kChunkEvents;
  bool origin_set_ = false;
  uint64_t events_planned_ = 0;
};

}  // namespace tfprof::xplane_wire
