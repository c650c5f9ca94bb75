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
#include "lib/model/step_markers.h"
#include "lib/model/tf1_timeline.h"
#include "lib/model/xplane_schema.h"
#include "lib/read/byte_source.h"
#include "lib/read/memory_budget.h"
#include "lib/read/wire_decoder.h"
#include "lib/read/xplane_allocator_records.h"
#include "lib/read/xplane_chunk_pipeline.h"
#include "lib/read/xplane_event_decoder.h"
#include "lib/read/xplane_line_prescan.h"
#include "lib/read/xplane_wire.h"
#include "lib/util/parallel_for.h"
#include "lib/util/phase_times.h"

namespace tfprof {
namespace {
using namespace xplane_wire;

std::string HostNameFromPath(const std::string& path);

class XSpaceReader {
 public:
  XSpaceReader(const std::string& path, Diagnostics& diag, const ReadOptions& options, ReleaseFn release,
               MemoryBudget& budget)
      : path_(path), diag_(diag), options_(options), release_(std::move(release)), budget_(budget) {}
  // prescan_ holds references to the members.
  XSpaceReader(const XSpaceReader&) = delete;
  XSpaceReader& operator=(const XSpaceReader&) = delete;

  // Streams the events to `sink` instead of keeping them (StreamXSpaceFile).
  void StreamTo(XSpaceEventSink* sink) { sink_ = sink; }

  void Read(std::string_view bytes, Host& host) {
    host_ = &host;
    prescan_.Begin(host);
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
                                            ctx.reads_event_with_stat.capacity() + ctx.allocator_event.capacity() +
                                            ctx.drop_allocator_event_stat.capacity() + ctx.allocator_field.capacity() +
                                            ctx.record_lane.capacity() * sizeof(PlaneContext::RecordLane));
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
  // (ReadOptions::event_stats): on a plane whose names give its host no
  // step, or on any for a command that groups nothing, those no analysis
  // reads (MarkEventsLeftOutWithoutSteps); else the host's allocator events
  // (keep_allocator_events), or, for the memory profile alone, every other
  // event (MarkEventsLeftOutByGroups). None
  // marked: every event is decoded (or, for a command that reads no
  // host-thread event, none: nothing to tell apart).
  void MarkSkippedEvents(PlaneContext& ctx, const Plane& plane) {
    const EventStatFilter& kept = options_.event_stats;
    if (!kept.keep_host_thread_events || host_->PlaneName(plane) != schema::kHostThreadsPlane) return;
    if (!kept.keep_all && MarkEventsLeftOutWithoutSteps(ctx, plane)) return;
    if (kept.keep_allocator_events) {
      if (!kept.keep_all) MarkEventsLeftOutByGroups(ctx, plane);
      return;
    }
    std::vector<uint8_t> skip = AllocatorEventNames(plane);
    if (skip.empty()) return;
    ctx.skip_event = std::move(skip);
    budget_.Charge(Growth::kStatNames, ctx.skip_event.capacity(), 0);
  }

  // For the memory profile alone (EventStatFilter::
  // only_allocator_events_when_steps_allow): on a plane with allocator
  // events and a group_id stat, every other event may be left out
  // (PlaneContext::OnlyGroupLeft decides), its group id kept aside.
  void MarkEventsLeftOutByGroups(PlaneContext& ctx, const Plane& plane) {
    if (!options_.event_stats.only_allocator_events_when_steps_allow || options_.max_events != 0) return;
    const std::optional<StatKey> group_id = plane.FindStatKey(host_->strings, "group_id");
    if (!group_id || *group_id > kMaxStatKey) return;
    std::vector<uint8_t> skip = AllocatorEventNames(plane);
    if (skip.empty()) return;
    for (uint8_t& s : skip) s = !s;
    ctx.skip_event = std::move(skip);
    budget_.Charge(Growth::kStatNames, ctx.skip_event.capacity(), 0);
    ctx.leaves_out_by_groups = true;
    ctx.group_id_key = *group_id;
    ctx.reads_event_with_stat.assign(plane.stat_metadata.size(), 0);
    if (const std::optional<StatKey> step_name = plane.FindStatKey(host_->strings, "step_name"))
      ctx.RefuseEventsWith(*step_name, plane.stat_metadata.size());
    budget_.Charge(Growth::kStatNames, ctx.reads_event_with_stat.capacity(), 0);
  }

  // A host-threads plane whose names give its host no step
  // (schema::PlaneMayHaveSteps), as a JAX capture's, or any host-threads
  // plane for a command none of whose analyses groups (EventStatFilter::
  // analyses_group false: placement, tf-data, op-stats without eager
  // marks): no forest is built over its events, so the command's analyses
  // read them by their names, or by a few stats (EventStatFilter::
  // use_without_steps, stats_read_without_steps); the other events are
  // left out. By name alone where the plane defines none of those stats,
  // else as the pre-scan decides (OnlyGroupLeft, refusing an event with
  // such a stat), but for the allocator events of a command reading none,
  // left out by name all the same (PlaneContext::kByName). Nothing is left
  // out of a plane where an analysis reads every event (a name of
  // kWholePlane), nor when the events are streamed or --max-events counts
  // them. Another plane's names may still give the host steps that a
  // command groups, or ask for a whole plane: the capture is then read
  // again whole (LeftOutCouldRegroup). False when it leaves nothing out.
  bool MarkEventsLeftOutWithoutSteps(PlaneContext& ctx, const Plane& plane) {
    using Use = EventStatFilter::StepLessUse;
    const EventStatFilter& kept = options_.event_stats;
    if (!kept.use_without_steps || options_.max_events != 0 || sink_ ||
        (kept.analyses_group && schema::PlaneMayHaveSteps(*host_, plane)))
      return false;
    std::vector<uint8_t> skip(plane.event_metadata.size());
    bool any = false;
    for (size_t m = 0; m < skip.size(); ++m) {
      const EventMetadata& md = plane.event_metadata[m];
      const Use use = kept.UseWithoutSteps(host_->Str(md.name), host_->Str(md.display_name));
      if (use == Use::kWholePlane) return false;
      if (use == Use::kUnread)
        // A command that reads no allocator event leaves them out by name,
        // as keep_allocator_events does elsewhere: their tf_op stat
        // (TensorFlow writes one on each) makes no op.
        skip[m] =
            !kept.keep_allocator_events && schema::IsAllocatorEvent(host_->Str(md.name)) ? PlaneContext::kByName : 1;
      any = any || skip[m];
    }
    if (!any) return false;
    std::vector<uint8_t> reads(plane.stat_metadata.size());
    bool any_stat = false;
    for (std::string_view name : kept.stats_read_without_steps)
      if (const std::optional<StatKey> key = plane.FindStatKey(host_->strings, name)) reads[*key] = any_stat = true;
    ctx.skip_event = std::move(skip);
    ctx.without_steps = true;
    // Where an event's stats may make it read, it is decided per event as
    // when leaving out by groups (with no group id): one whose stats are not
    // as protobuf's writers put them, or name undefined metadata, is kept,
    // and its decoding says what is wrong. Else by its name alone, its
    // bytes unread (memory alone on JAX's 114 MB: 0.15 s, 0.20 s decided
    // per event).
    if (any_stat) {
      ctx.reads_event_with_stat = std::move(reads);
      ctx.leaves_out_by_groups = true;
    }
    budget_.Charge(Growth::kStatNames, ctx.skip_event.capacity() + ctx.reads_event_with_stat.capacity(), 0);
    return true;
  }

  // Which stats the host's allocator events that are read leave out
  // besides those every event does (EventStatFilter::not_on_allocator_events),
  // and which they keep as records (EventStatFilter::allocator_records; not
  // when streaming: a sink sees lines' stats only).
  void MarkAllocatorEventStats(PlaneContext& ctx, Plane& plane, const std::vector<std::string_view>& stat_names) {
    const EventStatFilter& kept = options_.event_stats;
    const bool records = kept.allocator_records && !sink_;
    if (kept.keep_all || (kept.not_on_allocator_events.empty() && !records) ||
        (!ctx.skip_event.empty() && !ctx.leaves_out_by_groups && !ctx.without_steps) ||
        host_->PlaneName(plane) != schema::kHostThreadsPlane)
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
    // The lanes, by id: of a kept stat (a key the decoders take), its field
    // and the field's int64 slot.
    ctx.record_lane.resize(ctx.stat_map.dense_size());
    for (size_t id = 0; id < ctx.record_lane.size(); ++id) {
      const uint32_t key = ctx.stat_map.dense_data()[id];
      if (key == IdMap::kMissing || key > kMaxStatKey || ctx.drop_allocator_event_stat[key]) continue;
      const auto field = static_cast<AllocatorField>(ctx.allocator_field[key]);
      ctx.record_lane[id] = {kAllocatorIntSlots[static_cast<size_t>(field) & 15], field};
    }
    budget_.Charge(Growth::kStatNames, ctx.record_lane.capacity() * sizeof(PlaneContext::RecordLane), 0);
    plane.allocator_stats_as_records = true;
  }

  // Pass 2: the lines, in order, into the model: the pre-scan frames them
  // on this thread and hands their chunks over to the decoding threads as
  // it goes (ChunkPipeline).
  void DecodeLines(const PlaneContext& ctx, const WireDecoder& whole_plane, Plane& plane, size_t line_count) {
    PhaseTimer prescan_phase("read plane: line pre-scan");
    plane.lines.resize(line_count);
    uint64_t* const plane_unread = prescan_.UnreadPlaneCount(plane);
    // On a small plane, starting threads costs more than they save.
    size_t threads = whole_plane.size() < (8u << 20) ? 1 : std::min<size_t>(HardwareThreads(), 8);
    if (options_.decode_threads) threads = options_.decode_threads;
    // While the decoding threads run, the reader charges through the lock.
    SharedBudget shared(budget_);
    struct SharedWhileDecoding {
      SharedBudget*& to;
      ~SharedWhileDecoding() { to = nullptr; }
    } reset{budget_ref_.shared};
    budget_ref_.shared = &shared;
    ChunkPipeline pipeline(
        ctx, shared, release_, path_, threads,
        options_.decode_early_join_bytes ? options_.decode_early_join_bytes : ChunkPipeline::kEarlyJoinBytes,
        options_.decode_in_turn, options_.decode_lead_bytes);
    ForEachLine(whole_plane, [&](size_t l, WireDecoder line) {
      prescan_.PrescanLine(ctx, line, plane.lines[l], pipeline, plane_unread);
    });
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
    // The plane's left-out group ids (LinePrescan::KeepGroupIdsOfLine) cut to size.
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
    size_t event_count = prescan_.ScanLine(line_bytes, line, cuts, kStreamChunkEvents, /*release_every=*/1);
    const std::optional<int64_t> base_ps = prescan_.PlanLine(line, event_count);
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
  void Charge(Growth what, uint64_t bytes, uint64_t count) { budget_ref_.Charge(what, bytes, count); }
  void Release(Growth what, uint64_t bytes) { budget_ref_.Release(what, bytes); }

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
  ReaderBudget budget_ref_{budget_};  // Through the lock while decoding threads run (DecodeLines).
  LinePrescan prescan_{options_, diag_, release_, budget_ref_};
  uint64_t planes_charged_ = 0;                         // host.planes' capacity charged.
  uint64_t strings_charged_ = 0, strings_counted_ = 0;  // The string pool's memory and size charged.
  Host* host_ = nullptr;
  XSpaceEventSink* sink_ = nullptr;
  absl::flat_hash_set<std::string_view> errors_seen_, warnings_seen_;
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

// Whether some plane's names ask an analysis of the command to read a
// whole plane (EventStatFilter::StepLessUse::kWholePlane).
bool NamesAskForWholePlane(const Host& host, const EventStatFilter& kept) {
  for (const Plane& p : host.planes)
    for (const EventMetadata& m : p.event_metadata)
      if (kept.UseWithoutSteps(host.Str(m.name), host.Str(m.display_name)) == EventStatFilter::StepLessUse::kWholePlane)
        return true;
  return false;
}

// Whether the events left out could have changed what the analyses find.
// Those left out by what the analyses read (EventStatFilter::
// use_without_steps): for a command that groups, when another plane's
// names may give the host steps (schema::HostMayHaveSteps, or a TF1
// session.run line); for any, when some plane's names ask for a whole
// plane. Those left out by groups for the memory profile alone
// (only_allocator_events_when_steps_allow): when none of them had a group
// id, grouping may find no group in what was kept and build its forest
// instead, unless no plane's names give the host a step; a TF1
// session.run line makes the steps of its events (its id is a derived
// line's, which `memory` leaves unread either way; checked for a caller
// that reads derived lines).
bool LeftOutCouldRegroup(const Host& host, const EventStatFilter& kept) {
  if (host.events_left_out_without_steps > 0 &&
      ((kept.analyses_group && schema::HostMayHaveSteps(host)) || NamesAskForWholePlane(host, kept)))
    return true;
  if (!kept.only_allocator_events_when_steps_allow) return false;
  uint64_t left_out = 0;
  bool ids = false;
  for (const Plane& p : host.planes) {
    left_out += p.EventsLeftOut();
    ids = ids || !p.left_out_group_ids.empty();
  }
  if (left_out == host.events_left_out_without_steps) return false;
  return ids ? Tf1SessionRunLine(host) != nullptr : schema::HostMayHaveSteps(host);
}

Host ReadWithReader(std::string_view bytes, const std::string& path, Diagnostics& diagnostics,
                    const ReadOptions& options, const ReleaseFn& release, MemoryBudget& budget,
                    XSpaceEventSink* sink = nullptr) {
  const EventStatFilter& kept = options.event_stats;
  if ((!kept.only_allocator_events_when_steps_allow && !kept.use_without_steps) || sink)
    return ReadOnce(bytes, path, diagnostics, options, release, budget, sink);
  const MemoryBudget before = budget;
  Diagnostics first;
  Host host = ReadOnce(bytes, path, first, options, release, budget, sink);
  if (!LeftOutCouldRegroup(host, kept)) {
    diagnostics.Merge(first);
    return host;
  }
  // Read again with every event (the file's pages come back from the page
  // cache). Rare: TensorFlow's ops carry group ids or roots on the plane
  // whose events are left out, and JAX's and PyTorch's planes give no step
  // but on that plane. Kept events with group ids could spare this read.
  host = Host();
  budget = before;
  ReadOptions every = options;
  every.event_stats.only_allocator_events_when_steps_allow = false;
  every.event_stats.use_without_steps = nullptr;
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
