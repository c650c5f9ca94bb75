#include "lib/read/xplane_reader.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <exception>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "lib/model/diagnostic_kinds.h"
#include "lib/model/errors.h"
#include "lib/model/tf1_timeline.h"
#include "lib/model/xplane_schema.h"
#include "lib/read/byte_source.h"
#include "lib/read/memory_budget.h"
#include "lib/read/wire_decoder.h"
#include "lib/read/xplane_allocator_records.h"
#include "lib/read/xplane_chunk_pipeline.h"
#include "lib/read/xplane_event_decoder.h"
#include "lib/read/xplane_wire.h"
#include "lib/util/parallel_for.h"
#include "lib/util/phase_times.h"

namespace tfprof {
namespace {
using namespace xplane_wire;

std::string HostNameFromPath(const std::string& path);

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
// and their group ids, a run of one id noted once.
struct LeftOutEvents {
  std::vector<size_t> kept;
  std::vector<uint64_t> marked;
  std::vector<int64_t> group_ids;
  // Charges the marks' and ids' growth (bytes; negative: gives it back): a
  // line of alternating group ids holds one per event until it ends.
  std::function<void(int64_t)> charge;
  uint64_t marked_charged = 0, ids_charged = 0;  // Capacities charged.

  LeftOutEvents() = default;
  LeftOutEvents(const LeftOutEvents&) = delete;
  LeftOutEvents& operator=(const LeftOutEvents&) = delete;
  ~LeftOutEvents() {
    if (charge) charge(-static_cast<int64_t>((marked_charged + ids_charged) * sizeof(uint64_t)));
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

class XSpaceReader {
 public:
  XSpaceReader(const std::string& path, Diagnostics& diag, const ReadOptions& options, ReleaseFn release,
               MemoryBudget& budget)
      : path_(path), diag_(diag), options_(options), release_(std::move(release)), budget_(budget) {}

  // Streams the events to `sink` instead of keeping them (StreamXSpaceFile).
  void StreamTo(XSpaceEventSink* sink) { sink_ = sink; }

  void Read(std::string_view bytes, Host& host) {
    host_ = &host;
    uint32_t field;
    WireType type;
    if (sink_) {
      // The sink is told the host's name before its first plane: the
      // hostnames, written after the planes, are read first.
      for (WireDecoder names(bytes); names.NextField(&field, &type);) {
        if (field == kSpaceHostnames && type == kLengthDelimited) host.hostnames.emplace_back(names.Bytes());
        else names.Skip(type);
      }
      host.name = host.hostnames.empty() ? HostNameFromPath(path_) : host.hostnames.front();
    }
    WireDecoder space(bytes);
    while (space.NextField(&field, &type)) {
      switch (field) {
        case kSpacePlanes:
          space.Expect(type, kLengthDelimited, "XSpace.planes");
          budget_.ChargeAppend(Growth::kPlanes, host.planes, planes_charged_);
          host.planes.emplace_back();
          ReadPlane(space.Message(), host.planes.back());
          break;
        case kSpaceErrors:
          space.Expect(type, kLengthDelimited, "XSpace.errors");
          AddUnique(host.errors, errors_seen_, space.Bytes());
          break;
        case kSpaceWarnings:
          space.Expect(type, kLengthDelimited, "XSpace.warnings");
          AddUnique(host.warnings, warnings_seen_, space.Bytes());
          break;
        case kSpaceHostnames:
          space.Expect(type, kLengthDelimited, "XSpace.hostnames");
          if (sink_) {  // Read before the planes.
            space.Bytes();
            break;
          }
          host.hostnames.emplace_back(space.Bytes());
          budget_.Charge(Growth::kText,
                         StringBytes(host.hostnames.back().size()) + sizeof(std::string));  // And growth slack.
          break;
        default: Unknown("XSpace", field); space.Skip(type);
      }
    }
    if (!host.hostnames.empty()) host.name = host.hostnames.front();
  }

 private:
  // Keeps the first of equal messages, in order. The set makes it linear: a
  // scan of the list per message took 20 s for 160k distinct errors. Its
  // views point into the capture's bytes, which outlive the read.
  static void AddUnique(std::vector<std::string>& list, absl::flat_hash_set<std::string_view>& seen,
                        std::string_view s) {
    if (seen.insert(s).second) list.emplace_back(s);
  }

  void Unknown(const char* message, uint32_t field) {
    diag_.Add(diag_kind::kXplaneUnknownField, std::string(message) + " field " + std::to_string(field));
  }

  void ReadPlane(WireDecoder plane_bytes, Plane& plane) {
    PhaseTimer metadata_phase("read plane: metadata");
    // Pass 1: metadata comes after the lines on the wire, but decoding events
    // needs it, so first note where the metadata is and count the lines
    // (pass 2 reads them). Everything is charged to the budget as it is
    // noted: a plane of millions of empty lines or metadata entries costs
    // far more memory than its bytes on the wire.
    const WireDecoder whole_plane = plane_bytes;
    std::vector<WireDecoder> event_metadata, stats;
    std::vector<int64_t> stat_ids;
    std::vector<std::string_view> stat_names;
    size_t line_count = 0;
    uint64_t event_metadata_charged = 0, stats_charged = 0, stat_ids_charged = 0, stat_names_charged = 0;
    uint32_t field;
    WireType type;
    while (plane_bytes.NextField(&field, &type)) {
      switch (field) {
        case kPlaneId:
          plane_bytes.Expect(type, kVarint, "XPlane.id");
          plane.id = plane_bytes.Int64();
          break;
        case kPlaneName:
          plane_bytes.Expect(type, kLengthDelimited, "XPlane.name");
          plane.name = host_->strings.Intern(plane_bytes.Bytes());
          break;
        case kPlaneLines:
          plane_bytes.Expect(type, kLengthDelimited, "XPlane.lines");
          plane_bytes.Bytes();
          ++line_count;
          budget_.Charge(Growth::kLines, sizeof(Line));  // plane.lines is sized exactly below.
          break;
        case kPlaneEventMetadata:
          plane_bytes.Expect(type, kLengthDelimited, "XPlane.event_metadata");
          // The model's entry and its id (both sized exactly below), and the
          // note of where it is.
          budget_.Charge(Growth::kEventNames, sizeof(EventMetadata) + sizeof(int64_t), 0);
          budget_.ChargeAppend(Growth::kEventNames, event_metadata, event_metadata_charged);
          event_metadata.push_back(plane_bytes.Message());
          break;
        case kPlaneStatMetadata: {
          plane_bytes.Expect(type, kLengthDelimited, "XPlane.stat_metadata");
          auto [id, name] = ReadStatMetadataEntry(plane_bytes.Message());
          budget_.Charge(Growth::kStatNames, sizeof(StatMetadata), 0);
          budget_.ChargeAppend(Growth::kStatNames, stat_ids, stat_ids_charged);
          budget_.ChargeAppend(Growth::kStatNames, stat_names, stat_names_charged, 0);
          stat_ids.push_back(id);
          stat_names.push_back(name);
          break;
        }
        case kPlaneStats:
          plane_bytes.Expect(type, kLengthDelimited, "XPlane.stats");
          budget_.ChargeAppend(Growth::kStats, stats, stats_charged, 0);
          stats.push_back(plane_bytes.Message());
          break;
        default: Unknown("XPlane", field); plane_bytes.Skip(type);
      }
    }

    PlaneContext ctx;
    ctx.path = &path_;
    ctx.plane = &plane;
    ctx.stat_map.Build(stat_ids);
    budget_.Charge(Growth::kStatNames, ctx.stat_map.MemoryBytes(), 0);
    plane.stat_metadata.resize(stat_ids.size());
    for (size_t i = 0; i < stat_ids.size(); ++i) plane.stat_metadata[i].name = host_->strings.Intern(stat_names[i]);
    // Which event stats to drop, decided once per stat name of the plane.
    if (!options_.event_stats.keep_all) {
      ctx.drop_event_stat.resize(stat_ids.size());
      budget_.Charge(Growth::kStatNames, ctx.drop_event_stat.capacity(), 0);
      for (size_t i = 0; i < stat_names.size(); ++i)
        ctx.drop_event_stat[i] = !options_.event_stats.Keeps(stat_names[i]);
    }
    ChargeStrings();

    EventDecoder serial(ctx, &host_->strings);
    serial.skip_stats_without_metadata = true;  // Reads only plane and event-metadata stats.
    std::vector<int64_t> event_ids;
    event_ids.reserve(event_metadata.size());
    plane.event_metadata.reserve(event_metadata.size());
    uint64_t metadata_stats_charged = 0, plane_stats_charged = 0;
    ChargedStats metadata_stats{plane.metadata_stats, budget_, metadata_stats_charged};
    for (WireDecoder& entry : event_metadata) {
      ReadEventMetadataEntry(entry, plane, serial, event_ids, metadata_stats);
      ChargeStrings();
    }
    ctx.event_map.Build(event_ids);
    budget_.Charge(Growth::kEventNames, ctx.event_map.MemoryBytes(), 0);
    MarkSkippedEvents(ctx, plane);
    MarkAllocatorEventStats(ctx, plane, stat_names);
    ChargedStats plane_stats{plane.plane_stats, budget_, plane_stats_charged};
    for (WireDecoder& s : stats) serial.ReadStat(s, plane_stats);
    ChargeStrings();
    diag_.Merge(serial.diag);
    ExtractDeviceProperties(plane);

    metadata_phase.Stop();
    if (sink_) {
      StreamLines(ctx, whole_plane, line_count);
    } else {
      DecodeLines(ctx, whole_plane, plane, line_count);
    }
    budget_.Release(Growth::kEventNames, event_metadata_charged * sizeof(WireDecoder) + ctx.event_map.MemoryBytes() +
                                             event_ids.capacity() * sizeof(int64_t));
    budget_.Release(Growth::kStatNames, stat_ids_charged * sizeof(int64_t) +
                                            stat_names_charged * sizeof(std::string_view) + ctx.stat_map.MemoryBytes() +
                                            ctx.drop_event_stat.capacity() + ctx.skip_event.capacity() +
                                            ctx.allocator_event.capacity() + ctx.drop_allocator_event_stat.capacity() +
                                            ctx.allocator_field.capacity() +
                                            ctx.record_int_lane.capacity() * sizeof(PlaneContext::RecordIntLane));
    budget_.Release(Growth::kStats, stats_charged * sizeof(WireDecoder));
  }

  // Per event metadata of the plane: 1 for an allocator event's name
  // (schema::IsAllocatorEvent); empty when there is none.
  std::vector<uint8_t> AllocatorEventNames(const Plane& plane) const {
    std::vector<uint8_t> allocator(plane.event_metadata.size());
    bool any = false;
    for (size_t m = 0; m < allocator.size(); ++m) {
      allocator[m] = schema::IsAllocatorEvent(host_->Str(plane.event_metadata[m].name));
      any = any || allocator[m];
    }
    if (!any) allocator.clear();
    return allocator;
  }

  // Which of the plane's event names the command leaves out of its lines
  // (ReadOptions::event_stats.keep_allocator_events): the host's allocator
  // events; or, for the memory profile alone, every other event
  // (MarkEventsLeftOutByGroups). None marked: every event is decoded (or,
  // for a command that reads no host-thread event, none: nothing to tell
  // apart).
  void MarkSkippedEvents(PlaneContext& ctx, const Plane& plane) {
    const EventStatFilter& kept = options_.event_stats;
    if (!kept.keep_host_thread_events || host_->PlaneName(plane) != schema::kHostThreadsPlane) return;
    if (kept.keep_allocator_events) {
      if (!kept.keep_all) MarkEventsLeftOutByGroups(ctx, plane);
      return;
    }
    std::vector<uint8_t> skip = AllocatorEventNames(plane);
    if (skip.empty()) return;
    ctx.skip_event = std::move(skip);
    budget_.Charge(Growth::kStatNames, ctx.skip_event.capacity(), 0);
  }

  // The same, the other way round, for the memory profile alone
  // (EventStatFilter::only_allocator_events_when_grouped): on a plane with
  // allocator events and a group_id stat, every other event may be left
  // out (PlaneContext::OnlyGroupLeft decides).
  void MarkEventsLeftOutByGroups(PlaneContext& ctx, const Plane& plane) {
    if (!options_.event_stats.only_allocator_events_when_grouped || options_.max_events != 0) return;
    const std::optional<StatKey> group_id = plane.FindStatKey(host_->strings, "group_id");
    if (!group_id || *group_id > kMaxStatKey) return;
    std::vector<uint8_t> skip = AllocatorEventNames(plane);
    if (skip.empty()) return;
    for (uint8_t& s : skip) s = !s;
    ctx.skip_event = std::move(skip);
    budget_.Charge(Growth::kStatNames, ctx.skip_event.capacity(), 0);
    ctx.leaves_out_by_groups = true;
    ctx.group_id_key = *group_id;
    if (const std::optional<StatKey> step_name = plane.FindStatKey(host_->strings, "step_name"))
      ctx.step_name_key = *step_name;
  }

  // Which stats the host's allocator events that are read leave out
  // besides those every event does (EventStatFilter::not_on_allocator_events),
  // and which they keep as records (EventStatFilter::allocator_records; not
  // when streaming: a sink sees lines' stats only).
  void MarkAllocatorEventStats(PlaneContext& ctx, Plane& plane, const std::vector<std::string_view>& stat_names) {
    const EventStatFilter& kept = options_.event_stats;
    const bool records = kept.allocator_records && !sink_;
    if (kept.keep_all || (kept.not_on_allocator_events.empty() && !records) ||
        (!ctx.skip_event.empty() && !ctx.leaves_out_by_groups) || host_->PlaneName(plane) != schema::kHostThreadsPlane)
      return;
    std::vector<uint8_t> allocator = AllocatorEventNames(plane);
    if (allocator.empty()) return;
    std::vector<uint8_t> drop(stat_names.size());
    for (size_t i = 0; i < stat_names.size(); ++i)
      drop[i] = (i < ctx.drop_event_stat.size() && ctx.drop_event_stat[i]) ||
                std::find(kept.not_on_allocator_events.begin(), kept.not_on_allocator_events.end(), stat_names[i]) !=
                    kept.not_on_allocator_events.end();
    ctx.allocator_event = std::move(allocator);
    ctx.drop_allocator_event_stat = std::move(drop);
    budget_.Charge(Growth::kStatNames, ctx.allocator_event.capacity() + ctx.drop_allocator_event_stat.capacity(), 0);
    if (!records) return;
    ctx.allocator_field.resize(stat_names.size());
    for (size_t i = 0; i < stat_names.size(); ++i)
      ctx.allocator_field[i] = static_cast<uint8_t>(AllocatorFieldOf(stat_names[i]));
    budget_.Charge(Growth::kStatNames, ctx.allocator_field.capacity(), 0);
    // The int64 lanes, by id: of a kept stat (a key the decoders take) whose
    // field has a slot.
    ctx.record_int_lane.resize(ctx.stat_map.dense_size());
    for (size_t id = 0; id < ctx.record_int_lane.size(); ++id) {
      const uint32_t key = ctx.stat_map.dense_data()[id];
      if (key == IdMap::kMissing || key > kMaxStatKey || ctx.drop_allocator_event_stat[key]) continue;
      const auto field = static_cast<AllocatorField>(ctx.allocator_field[key]);
      ctx.record_int_lane[id] = {kAllocatorIntSlots[static_cast<size_t>(field) & 15], field};
    }
    budget_.Charge(Growth::kStatNames, ctx.record_int_lane.capacity() * sizeof(PlaneContext::RecordIntLane), 0);
    plane.allocator_stats_as_records = true;
  }

  // Pass 2: the lines, in order, into the model: the pre-scan frames them
  // on this thread and hands their chunks over to the decoding threads as
  // it goes (ChunkPipeline).
  void DecodeLines(const PlaneContext& ctx, const WireDecoder& whole_plane, Plane& plane, size_t line_count) {
    PhaseTimer prescan_phase("read plane: line pre-scan");
    plane.lines.resize(line_count);
    uint64_t* const plane_unread = UnreadPlaneCount(plane);
    // On a small plane, starting threads costs more than they save.
    size_t threads = whole_plane.size() < (8u << 20) ? 1 : std::min<size_t>(HardwareThreads(), 8);
    if (options_.decode_threads) threads = options_.decode_threads;
    // While the decoding threads run, the reader charges through the lock.
    SharedBudget shared(budget_);
    struct SharedWhileDecoding {
      SharedBudget*& to;
      ~SharedWhileDecoding() { to = nullptr; }
    } reset{shared_};
    shared_ = &shared;
    ChunkPipeline pipeline(
        ctx, shared, release_, path_, threads,
        options_.decode_early_join_bytes ? options_.decode_early_join_bytes : ChunkPipeline::kEarlyJoinBytes,
        options_.decode_in_turn, options_.decode_lead_bytes);
    ForEachLine(whole_plane,
                [&](size_t l, WireDecoder line) { PrescanLine(ctx, line, plane.lines[l], pipeline, plane_unread); });
    prescan_phase.Stop();
    PhaseTimer decode_phase("read plane: decode events, join stats");
    pipeline.Finish(diag_);
    // What no chunk gave back: the pages at chunk ends, lines' own fields.
    if (release_) release_(whole_plane.offset(), whole_plane.offset() + whole_plane.size());
    decode_phase.Stop();
    PhaseTimer intern_phase("read plane: intern strings");
    InternPendingStrings(pipeline.chunks());
    intern_phase.Stop();
    KeepAllocatorRecords(pipeline.chunks(), plane);
    // The plane's left-out group ids (KeepGroupIdsOfLine) cut to size.
    const size_t ids_room = plane.left_out_group_ids.capacity();
    plane.left_out_group_ids.shrink_to_fit();
    Release(Growth::kEvents, (ids_room - plane.left_out_group_ids.capacity()) * sizeof(int64_t));
    SortUnsortedLines(pipeline.lines(), plane);
    Release(Growth::kEvents, pipeline.chunks().size() * sizeof(ChunkJob));
  }

  // Pass 2 of StreamXSpaceFile: the lines, in order, to the sink.
  void StreamLines(const PlaneContext& ctx, const WireDecoder& whole_plane, size_t line_count) {
    const size_t p = host_->planes.size() - 1;
    host_->planes[p].lines.resize(line_count);
    sink_->BeginPlane(*host_, p);
    ForEachLine(whole_plane, [&](size_t l, WireDecoder line) { StreamLine(ctx, line, p, l); });
  }

  // Calls fn(index, bytes) for each of the plane's lines, in order, and
  // charges what the line's names added to the string pool.
  template <class Fn>
  void ForEachLine(const WireDecoder& whole_plane, Fn&& fn) {
    size_t l = 0;
    uint32_t field;
    WireType type;
    for (WireDecoder again = whole_plane; again.NextField(&field, &type);) {
      if (field != kPlaneLines) {
        again.Skip(type);
        continue;
      }
      fn(l++, again.Message());
      ChargeStrings();
    }
  }

  // One line of StreamLines: its own fields, then its events a chunk at a
  // time, each decoded by DecodeChunk into one reused batch, handed to the
  // sink and dropped. The batch's string values are interned into a pool
  // of the batch's own: those the wire spells out (set aside by the
  // decoder) and those it gives as a reference to a stat name (in
  // host.strings), so that every string stat of the batch is an id in the
  // one pool.
  void StreamLine(const PlaneContext& ctx, const WireDecoder& line_bytes, size_t p, size_t l) {
    // What the stream holds at once.
    constexpr size_t kStreamChunkEvents = size_t{1} << 14;
    Line& line = host_->planes[p].lines[l];
    std::vector<uint64_t> cuts;
    size_t event_count = ScanLine(line_bytes, line, cuts, kStreamChunkEvents, /*release_every=*/1);
    const std::optional<int64_t> base_ps = PlanLine(line, event_count);
    sink_->BeginLine(*host_, p, l);
    if (!base_ps || event_count == 0) return;
    SharedBudget shared(budget_);
    EventDecoder decoder(ctx, nullptr);
    Line batch;
    const uint64_t batch_bytes = std::min(event_count, kStreamChunkEvents) * sizeof(Event);
    budget_.Charge(Growth::kEvents, batch_bytes, 0);
    const uint64_t line_end = line_bytes.offset() + line_bytes.size();
    // The model sorts a line out of order; a stream cannot, but says so.
    bool sorted = true;
    Event last{};
    for (size_t c = 0; c * kStreamChunkEvents < event_count; ++c) {
      ChunkJob job;
      job.line = &batch;
      job.event_count = std::min(kStreamChunkEvents, event_count - c * kStreamChunkEvents);
      job.kept_events = job.event_count;
      job.base_ps = *base_ps;
      job.bytes = line_bytes.Slice(cuts[c], c + 1 < cuts.size() ? cuts[c + 1] : line_end);
      batch.events.resize(job.event_count);
      job.out = batch.events.data();
      decoder.DecodeChunk(job, shared, release_);
      sorted = sorted && batch.IsSorted() && (c == 0 || !EventBefore(batch.events.front(), last));
      last = batch.events.back();
      StringPool strings;
      InternBatchStrings(job, strings);
      batch.stats = std::move(job.stats);
      sink_->Events(*host_, p, l, batch, strings);
      budget_.Release(Growth::kStats, job.stats_charged * sizeof(Stat));
    }
    budget_.Release(Growth::kEvents, batch_bytes);
    diag_.Merge(decoder.diag);
    if (!sorted) diag_.Add(diag_kind::kXplaneUnsortedLine, std::string(host_->LineName(line)));
  }

  // A streamed batch's string stats, as ids in `strings` (StreamLine).
  void InternBatchStrings(ChunkJob& job, StringPool& strings) const {
    size_t at = 0, next = 0;
    for (size_t i = 0; i < job.stats.size(); ++i) {
      Stat& stat = job.stats[i];
      if (stat.type() != StatType::kString) continue;
      if (next < job.pending_strings.size() && job.pending_strings[next].first == i) {
        const uint32_t length = job.pending_strings[next++].second;
        stat.bits = strings.Intern(std::string_view(job.pending_text).substr(at, length));
        at += length;
      } else {
        stat.bits = strings.Intern(host_->Str(stat.AsString()));
      }
    }
  }

  // Charges what the host's string pool grew by.
  void ChargeStrings() {
    uint64_t bytes = host_->strings.MemoryBytes(), count = host_->strings.size();
    if (bytes > strings_charged_) {
      Charge(Growth::kText, bytes - strings_charged_, count - strings_counted_);
      strings_charged_ = bytes;
      strings_counted_ = count;
    }
  }

  // An entry of a map<int64, message> (XPlane's event and stat metadata):
  // its key; its value's bytes go to `read_value`.
  template <class ReadValue>
  static int64_t ReadMapEntry(WireDecoder entry, ReadValue&& read_value) {
    int64_t key = 0;
    uint32_t field;
    WireType type;
    while (entry.NextField(&field, &type)) {
      if (field == kMapKey && type == kVarint) key = entry.Int64();
      else if (field == kMapValue && type == kLengthDelimited) read_value(entry.Message());
      else entry.Skip(type);
    }
    return key;
  }

  std::pair<int64_t, std::string_view> ReadStatMetadataEntry(WireDecoder entry) {
    std::string_view name;
    const int64_t key = ReadMapEntry(entry, [&](WireDecoder value) {
      uint32_t f;
      WireType t;
      while (value.NextField(&f, &t)) {
        if (f == kStatMetaName && t == kLengthDelimited) name = value.Bytes();
        else value.Skip(t);
      }
    });
    return {key, name};
  }

  void ReadEventMetadataEntry(WireDecoder entry, Plane& plane, EventDecoder& decoder, std::vector<int64_t>& ids,
                              ChargedStats& metadata_stats) {
    EventMetadata meta;
    const int64_t key = ReadMapEntry(entry, [&](WireDecoder value) {
      meta.stats_begin = static_cast<uint32_t>(plane.metadata_stats.size());
      uint32_t f;
      WireType t;
      while (value.NextField(&f, &t)) {
        if (f == kEventMetaName && t == kLengthDelimited) {
          meta.name = host_->strings.Intern(value.Bytes());
        } else if (f == kEventMetaDisplayName && t == kLengthDelimited) {
          meta.display_name = host_->strings.Intern(value.Bytes());
        } else if (f == kEventMetaStats && t == kLengthDelimited) {
          WireDecoder s = value.Message();
          decoder.ReadStat(s, metadata_stats);
        } else {
          value.Skip(t);  // The opaque `metadata` bytes and child ids are not needed.
        }
      }
      meta.stats_end = static_cast<uint32_t>(plane.metadata_stats.size());
    });
    ids.push_back(key);
    plane.event_metadata.push_back(meta);
  }

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
              if (leaving_out->LeavesOutByGroups(event, &has_group, &group))
                left_out->Mark(event_count, has_group, group);
              else ++left_out->kept.back();
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
    XSpaceReader& reader;
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

    EarlyHandOver(XSpaceReader& r, Line& l, ChunkPipeline& p, const WireDecoder& bytes, const std::vector<uint64_t>& c,
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
    if (leaves_out && !left_out.marked.empty())
      job.left_out_bits = left_out.MarkedIn(c * chunk_events_, job.event_count);
    first_kept += job.kept_events;
    job.base_ps = base_ps;
    const uint64_t line_end = line_bytes.offset() + line_bytes.size();
    job.bytes = line_bytes.Slice(cuts[c], c + 1 < cuts.size() ? cuts[c + 1] : line_end);
    job.last = (c + 1) * chunk_events_ >= event_count;
    return job;
  }

  // Reads a line's own fields, counts its events and cuts them into chunks
  // for the pipeline: each as soon as it is framed where the line allows
  // (MayHandOverEarly), else once the line is counted. `plane_unread`: the
  // line's plane's UnreadPlaneCount.
  void PrescanLine(const PlaneContext& ctx, WireDecoder line_bytes, Line& line, ChunkPipeline& pipeline,
                   uint64_t* plane_unread) {
    std::vector<uint64_t> cuts;  // Offset of every chunk_events_-th event.
    LeftOutEvents left_out;      // When the plane leaves events out.
    left_out.charge = [this](int64_t bytes) {
      if (bytes >= 0) Charge(Growth::kEvents, static_cast<uint64_t>(bytes), 0);
      else Release(Growth::kEvents, static_cast<uint64_t>(-bytes));
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
      if (ctx.leaves_out_by_groups) {
        KeepGroupIdsOfLine(left_out.group_ids, ctx.plane->left_out_group_ids);
      } else {
        host_->allocator_events_skipped += event_count - kept_count;
      }
    }
    // Sized first: the early array's chunks give back their charges as the
    // line's is taken, so they are not counted twice.
    pipeline.SizeLine(*join, kept_count);
    Charge(Growth::kEvents, kept_count * sizeof(Event), kept_count);
    for (size_t c = handed; c * chunk_events_ < event_count; ++c)
      pipeline.Hand(*join,
                    MakeChunk(line, line_bytes, cuts, left_out, c, event_count, leaves_out, first_kept, *planned));
    pipeline.CloseLine(*join);
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
      Charge(Growth::kEvents, (plane.capacity() - room) * sizeof(int64_t), 0);
    }
    plane.insert(plane.end(), ids.begin(), ids.end());
    std::inplace_merge(plane.begin(), plane.begin() + static_cast<std::ptrdiff_t>(had), plane.end());
    plane.erase(std::unique(plane.begin(), plane.end()), plane.end());
  }

  // The string values the decoding threads set aside, interned in chunk
  // order, so string ids do not depend on thread timing.
  void InternPendingStrings(std::deque<ChunkJob>& chunks) {
    uint64_t pending = 0;
    for (const ChunkJob& job : chunks) {
      if (job.dropped) continue;
      pending += job.pending_text.capacity() + job.pending_strings.capacity() * sizeof(job.pending_strings[0]);
      host_->event_stats_dropped += job.dropped_stats;
    }
    Charge(Growth::kText, pending, 0);
    for (ChunkJob& job : chunks) {
      if (job.dropped) continue;
      size_t at = 0;
      Stat* stats = job.line->stats.data() + job.first_stat;
      for (uint32_t entry = 0; entry < job.pending_strings.size(); ++entry) {
        const auto [slot, length] = job.pending_strings[entry];
        const StringId id = host_->strings.Intern(std::string_view(job.pending_text).substr(at, length));
        at += length;
        // Ids stay below the marks of strings not yet interned.
        if (id >= kPendingStringMark) throw InputError(path_, "more than 2 billion distinct strings; not supported");
        if (slot & RecordStats::kRecordSlot) InternRecordString(job, slot, entry, id);
        else stats[slot].bits = id;
      }
      ChargeStrings();
      uint64_t freed = job.pending_text.capacity() + job.pending_strings.capacity() * sizeof(job.pending_strings[0]);
      std::string().swap(job.pending_text);
      std::vector<std::pair<uint32_t, uint32_t>>().swap(job.pending_strings);
      Release(Growth::kText, freed);
    }
  }

  // Lines whose events were out of order, sorted (and said so); their
  // allocator records follow their events.
  void SortUnsortedLines(const std::deque<LineJoin>& joins, Plane& plane) {
    RecordReorder records(plane);
    for (const LineJoin& join : joins) {
      if (join.sorted || join.dropped) continue;
      Line& line = *join.line;
      const auto l = static_cast<uint32_t>(&line - plane.lines.data());
      diag_.Add(diag_kind::kXplaneUnsortedLine, std::string(host_->LineName(line)));
      // Sorting copies the line (and an index per event) beside itself, and
      // its records.
      uint64_t copy = line.events.size() * (sizeof(Event) + 2 * sizeof(uint32_t)) + line.stats.size() * sizeof(Stat) +
                      records.LineBytes(l);
      Charge(Growth::kEvents, copy, 0);
      std::vector<uint32_t> old_index;
      line.SortEvents(&old_index);
      records.LineSorted(l, old_index);
      Release(Growth::kEvents, copy);
    }
    records.Finish();
  }

  // The memory budget, through the lock while decoding threads run.
  void Charge(Growth what, uint64_t bytes, uint64_t count) {
    if (shared_) shared_->Charge(what, bytes, count);
    else budget_.Charge(what, bytes, count);
  }
  void Release(Growth what, uint64_t bytes) {
    if (shared_) shared_->Release(what, bytes);
    else budget_.Release(what, bytes);
  }

  void ExtractDeviceProperties(Plane& plane) {
    DeviceProperties& d = plane.device;
    for (const Stat& s : plane.plane_stats) {
      std::string_view name = host_->strings.Get(plane.stat_metadata[s.key()].name);
      if (name == "gpu_device_name" || name == "device_type_string")
        d.name = std::string(host_->strings.Get(s.AsString()));
      else if (name == "device_vendor") d.vendor = std::string(host_->strings.Get(s.AsString()));
      else if (name == "compute_cap_major") d.compute_cap_major = static_cast<int>(s.AsInt());
      else if (name == "compute_cap_minor") d.compute_cap_minor = static_cast<int>(s.AsInt());
      else if (name == "core_count") d.core_count = s.AsInt();
      else if (name == "memory_size") d.memory_bytes = s.AsInt();
      else if (name == "memory_bandwidth") d.memory_bandwidth = s.AsInt();
      else if (name == "clock_rate") d.clock_rate_khz = s.AsInt();
    }
  }

  const std::string& path_;
  Diagnostics& diag_;
  const ReadOptions& options_;
  ReleaseFn release_;
  MemoryBudget& budget_;
  uint64_t planes_charged_ = 0;     // host.planes' capacity charged.
  SharedBudget* shared_ = nullptr;  // The budget while decoding threads run (DecodeLines).
  const size_t chunk_events_ =
      options_.decode_chunk_events ? std::min(options_.decode_chunk_events, kMostChunkEvents) : kChunkEvents;
  uint64_t strings_charged_ = 0, strings_counted_ = 0;  // The string pool's memory and size charged.
  Host* host_ = nullptr;
  XSpaceEventSink* sink_ = nullptr;
  absl::flat_hash_set<std::string_view> errors_seen_, warnings_seen_;
  bool origin_set_ = false;
  uint64_t events_planned_ = 0;
};

std::string HostNameFromPath(const std::string& path) {
  std::string base = path.substr(path.find_last_of('/') + 1);
  for (const char* suffix : {".xplane.pb.gz", ".xplane.pb", ".pb.gz", ".pb"}) {
    std::string s(suffix);
    if (base.size() > s.size() && base.compare(base.size() - s.size(), s.size(), s) == 0)
      return base.substr(0, base.size() - s.size());
  }
  return base;
}

Host ReadOnce(std::string_view bytes, const std::string& path, Diagnostics& diagnostics, const ReadOptions& options,
              ReleaseFn release, MemoryBudget& budget, XSpaceEventSink* sink) {
  Host host;
  host.source_path = path;
  host.format = CaptureFormat::kXSpace;
  host.file_bytes = bytes.size();
  if (bytes.empty()) throw InputError(path, "file is empty (0 bytes), not an XSpace capture");
  XSpaceReader reader(path, diagnostics, options, std::move(release), budget);
  reader.StreamTo(sink);
  try {
    reader.Read(bytes, host);
  } catch (const WireError& e) {
    throw InputError(path, std::string("not a valid XSpace protobuf (truncated or corrupt): ") + e.what());
  }
  if (host.name.empty()) host.name = HostNameFromPath(path);
  return host;
}

// Whether the events left out by groups could have grouped the steps
// otherwise (EventStatFilter::only_allocator_events_when_grouped): when
// none of them had a group id, grouping may find no group in what was
// kept and build its forest instead; a TF1 session.run line makes the
// steps of its events (its id is a derived line's, which `memory` leaves
// unread either way; checked for a caller that reads derived lines).
bool LeftOutCouldRegroup(const Host& host) {
  bool left_out = false, ids = false;
  for (const Plane& p : host.planes) {
    left_out = left_out || p.EventsLeftOut() > 0;
    ids = ids || !p.left_out_group_ids.empty();
  }
  return left_out && (!ids || Tf1SessionRunLine(host) != nullptr);
}

Host ReadWithReader(std::string_view bytes, const std::string& path, Diagnostics& diagnostics,
                    const ReadOptions& options, const ReleaseFn& release, MemoryBudget& budget,
                    XSpaceEventSink* sink = nullptr) {
  if (!options.event_stats.only_allocator_events_when_grouped || sink)
    return ReadOnce(bytes, path, diagnostics, options, release, budget, sink);
  const MemoryBudget before = budget;
  Diagnostics first;
  Host host = ReadOnce(bytes, path, first, options, release, budget, sink);
  if (!LeftOutCouldRegroup(host)) {
    diagnostics.Merge(first);
    return host;
  }
  // Read again with every event (the file's pages come back from the page
  // cache). TensorFlow's captures never get here: their ops carry group
  // ids. Kept events with group ids could spare this read; it is rare.
  host = Host();
  budget = before;
  ReadOptions every = options;
  every.event_stats.only_allocator_events_when_grouped = false;
  return ReadOnce(bytes, path, diagnostics, every, release, budget, sink);
}

// A mapped file, its pages given back as they are decoded; a gzipped one is
// inflated whole first (the model path only: a stream refuses it).
Host ReadMappedOrInflated(const std::string& path, Diagnostics& diagnostics, const ReadOptions& options,
                          XSpaceEventSink* sink) {
  MemoryBudget budget(path, options, CaptureFormat::kXSpace);
  if (ChunkReader::Open(path)->gzipped()) {
    if (sink) throw InputError(path, "a gzipped XSpace is read whole, not streamed: gunzip it first", kExitUsage);
    std::string bytes = ReadWholeFile(path, options.max_inflated_bytes, nullptr, options.InflateLimitProblem());
    budget.Charge(Growth::kInflated, bytes.capacity(), 0);
    Host host = ReadWithReader(bytes, path, diagnostics, options, nullptr, budget);
    host.gzipped = true;
    return host;
  }
  auto file = MappedFile::Open(path);
  const MappedFile* mapped = file.get();
  std::optional<Host> host;
  try {
    host = ReadWithReader(
        file->bytes(), path, diagnostics, options,
        [mapped](uint64_t begin, uint64_t end) { mapped->Release(begin, end); }, budget, sink);
  } catch (const InputError&) {
    if (!file->Shrank()) throw;  // Else the error is what the zeros in place of the lost pages caused.
  }
  if (file->Shrank())
    throw InputError(path,
                     "the file shrank while it was being read (another process truncated or rewrote it); "
                     "read it again once it is complete");
  return std::move(*host);
}

}  // namespace

Host ReadXSpaceBytes(std::string_view bytes, const std::string& path, Diagnostics& diagnostics,
                     const ReadOptions& options) {
  MemoryBudget budget(path, options, CaptureFormat::kXSpace);
  return ReadWithReader(bytes, path, diagnostics, options, nullptr, budget);
}

Host ReadXSpaceBytesForTesting(std::string_view bytes, const std::string& path, Diagnostics& diagnostics,
                               const ReadOptions& options, std::function<void(uint64_t, uint64_t)> release) {
  MemoryBudget budget(path, options, CaptureFormat::kXSpace);
  return ReadWithReader(bytes, path, diagnostics, options, std::move(release), budget);
}

Host ReadXSpaceFile(const std::string& path, Diagnostics& diagnostics, const ReadOptions& options) {
  return ReadMappedOrInflated(path, diagnostics, options, nullptr);
}

Host StreamXSpaceFile(const std::string& path, XSpaceEventSink& sink, Diagnostics& diagnostics,
                      const ReadOptions& options) {
  ReadOptions all = options;
  all.event_stats = EventStatFilter();
  return ReadMappedOrInflated(path, diagnostics, all, &sink);
}

}  // namespace tfprof
