// Internal to the XPlane reader: decoding a plane's events and their stats,
// a chunk of a line at a time, on several threads. What the reader's
// threads share (the plane's context, xplane_plane_context.h; the memory
// budget behind a lock) and what each chunk decodes into (its events'
// slots, its own stats pool).
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <bit>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "lib/model/diagnostic_kinds.h"
#include "lib/model/diagnostics.h"
#include "lib/model/errors.h"
#include "lib/model/model.h"
#include "lib/read/memory_budget.h"
#include "lib/read/wire_decoder.h"
#include "lib/read/xplane_plane_context.h"
#include "lib/read/xplane_wire.h"

namespace tfprof::xplane_wire {

// Gives back file pages already decoded: [begin, end) in file offsets.
using ReleaseFn = std::function<void(uint64_t, uint64_t)>;

// Maps the pages a copy or a chunk's decoding is about to fill in one call
// rather than a fault a page: where the kernel can (Linux 5.14 on), else
// the writes fault them. 1 GB, four rounds alternated: `memory` system
// time 1.33 -> 1.12 s for the stats; then 0.91 -> 0.86 s (`overview`
// 0.51 -> 0.43 s) for the events. (A touch test of 100 MB: 38-39 ms
// populated, 47-49 ms faulted.)
inline void PopulateForWrite(void* begin, size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  if (bytes < (64u << 10)) return;
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t b = reinterpret_cast<uintptr_t>(begin) & ~(page - 1);
  const uintptr_t e = (reinterpret_cast<uintptr_t>(begin) + bytes + page - 1) & ~(page - 1);
  madvise(reinterpret_cast<void*>(b), e - b, MADV_POPULATE_WRITE);  // A failure leaves the faults to the copy.
#else
  (void)begin;
  (void)bytes;
#endif
}

// A run of up to kChunkEvents consecutive events of one line: the unit of
// work of the decoding threads. Found by the serial pre-scan. Chunks of
// 65,536 events (7 MB of a T4 capture's host line) held the file's pages
// and the chunks' stat pools longer than needed: at 16,384 `op-stats` on
// the 103 MiB capture took 10% less CPU and 15% less memory
// (docs/performance-history.md, session 27).
constexpr size_t kChunkEvents = 1 << 14;
// Chunks of at most this many events (ReadOptions::decode_chunk_events is
// cut to it): a record's index in its chunk fits in RecordStats' slots.
constexpr size_t kMostChunkEvents = size_t{1} << 28;
static_assert(kChunkEvents <= kMostChunkEvents);

struct ChunkJob {
  Line* line = nullptr;
  WireDecoder bytes{std::string_view()};
  size_t first_event = 0;  // Index in line->events of the chunk's first event kept.
  // Where the chunk's kept events are decoded to: their slots in
  // line->events, or, while the line is not yet sized (the pre-scan hands
  // a chunk over before it has counted the whole line), their slots in the
  // line's early array or `own_events`, to be copied into the line once it
  // is unless the early array becomes the line's (ChunkPipeline).
  Event* out = nullptr;
  std::vector<Event, DefaultInitAllocator<Event>> own_events;
  bool decoded_aside = false;
  size_t event_count = 0;  // Events on the wire.
  // Events the chunk puts in its line: event_count, less those it leaves
  // out when `leaves_out` (PlaneContext::LeavesOut, or those the pre-scan
  // left out by groups: kept_at or left_out_bits).
  size_t kept_events = 0;
  bool leaves_out = false;
  int64_t base_ps = 0;  // The line's start relative to the host's time origin.
  // The chunk's event stats, decoded in the same pass as its events (the
  // events' stats_end count from 0 here) and copied into the line's pool
  // (or moved, for a line of one chunk): one pass over the bytes, not a
  // counting pass first. `stats_charged` is the capacity charged to the
  // budget.
  StatPool stats;
  uint64_t stats_charged = 0;
  size_t dropped_stats = 0;  // Event stats left out (PlaneContext::drop_event_stat).
  size_t first_stat = 0;     // Where `stats` went in the line's pool, once joined.
  // The records of its allocator events (PlaneContext::allocator_field),
  // in event order, each with its event's index in the line; room for one
  // per event, `records_charged` of them charged (DecodeChunk).
  std::vector<AllocatorStats> records;
  uint64_t records_charged = 0;
  // Its allocator events without a record, and records of no allocator
  // event (Plane::allocator_records_complete).
  size_t irregular_records = 0;
  // String stat values met while decoding, interned afterwards in order
  // (interning is not thread-safe). The text is copied, so the file pages
  // can be released behind the decoder: (index into stats, or a
  // RecordStats slot, length).
  std::vector<std::pair<uint32_t, uint32_t>> pending_strings;
  std::string pending_text;
  // What decoding the chunk met, kept apart so that the plane's
  // diagnostics are merged in chunk order, whatever thread decoded which.
  Diagnostics diag;
  // Its place in the order chunks were handed over, what it threw, and
  // whether its line was dropped (ChunkPipeline).
  uint64_t seq = 0;
  std::exception_ptr error;
  bool dropped = false;
  bool sorted = true;  // Its events are in order (once copied into the line).
  // The line's last chunk (MakeChunk knows it only once the line is
  // counted).
  bool last = false;
  // Decoded (set under the pipeline's lock, for the early join).
  bool decoded = false;
  // Claimed by the early join: its stats go (or went) into the line's pool
  // while the line's later chunks decode.
  bool stats_joined = false;
  // Decoded into its line's early events array (ChunkPipeline::SizeEarly),
  // and charged for it until the array is the line's or copied out.
  bool in_early = false;
  bool early_charged = false;
  // Leaving out by groups (PlaneContext::leaves_out_by_groups): where the
  // kept events are, as offsets from the chunk's start (LeftOutEvents::
  // kept_at), when `by_offsets`; else bit i set when the pre-scan left out
  // the chunk's i-th event on the wire. Charged with the job
  // (ChunkPipeline::Hand) and given back once the chunk is decoded.
  bool by_offsets = false;
  std::vector<uint32_t> kept_at;
  std::vector<uint64_t> left_out_bits;
  uint64_t LeftOutBytes() const {
    return kept_at.capacity() * sizeof(uint32_t) + left_out_bits.capacity() * sizeof(uint64_t);
  }
};

// The memory budget as the decoding threads share it: they charge a
// chunk's stats as its pool is sized or grows, a line's pool as its chunks
// are copied in, and a chunk's events as it decodes them outside the line.
// Chunk pools live from their decoding to their copy into the line (kept
// as spares for long lines until the plane is read), so near the limit
// which pools are held at once, and so whether the read stops and what
// count its error gives, can depend on how the threads' chunks interleave.
class SharedBudget {
 public:
  explicit SharedBudget(MemoryBudget& budget) : budget_(budget) {}
  template <class T, class A>
  void ChargeAppend(Growth what, const std::vector<T, A>& v, uint64_t& charged) {
    std::lock_guard<std::mutex> lock(mutex_);
    budget_.ChargeAppend(what, v, charged, 0);
  }
  void Charge(Growth what, uint64_t bytes, uint64_t count) {
    std::lock_guard<std::mutex> lock(mutex_);
    budget_.Charge(what, bytes, count);
  }
  void Release(Growth what, uint64_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    budget_.Release(what, bytes);
  }
  uint64_t room() {
    std::lock_guard<std::mutex> lock(mutex_);
    return budget_.room();
  }

 private:
  MemoryBudget& budget_;
  std::mutex mutex_;
};

// Where the serial decoder's stats go (a plane's stats, its metadata's
// stats): a vector whose growth is charged to the memory budget.
struct ChargedStats {
  std::vector<Stat>& stats;
  MemoryBudget& budget;
  uint64_t& charged;  // The capacity charged so far.
  void push_back(const Stat& s) {
    budget.ChargeAppend(Growth::kStats, stats, charged);
    stats.push_back(s);
  }
  size_t size() const { return stats.size(); }
  uint32_t TextSlot(uint32_t) const { return static_cast<uint32_t>(stats.size()); }
};

// Where a chunk's decoded stats go: its own pool, charged as it grows (the
// charge is taken only when the pool must grow: a few dozen times a chunk).
struct ChunkStats {
  ChunkJob& job;
  SharedBudget& budget;
  inline __attribute__((always_inline)) void push_back(const Stat& s) {
    if (__builtin_expect(job.stats.size() == job.stats.capacity(), 0)) Grow();
    job.stats.push_back(s);
  }
  __attribute__((noinline)) void Grow() { budget.ChargeAppend(Growth::kStats, job.stats, job.stats_charged); }
  size_t size() const { return job.stats.size(); }
  // Where a string value's pending entry points (EventDecoder::TextValue).
  uint32_t TextSlot(uint32_t) const { return static_cast<uint32_t>(job.stats.size()); }
};

// Where an allocator event's stats go when it keeps a record: its own
// stats (AllocatorFieldOf) into the record, any other into the pool.
struct RecordStats {
  // A pending string value's slot for a record's string field: this bit,
  // the record's index in its chunk, and the field (kRecordString*). A
  // pool index never has the bit (DecodeChunk refuses a chunk of 2^31
  // stats), nor does a record index need more than 29 bits.
  static constexpr uint32_t kRecordSlot = 0x80000000u;
  enum : uint32_t { kRecordStringAllocator, kRecordStringTfOp, kRecordStringRegion, kRecordStringShape };

  ChunkStats& pool;
  AllocatorStats& record;
  uint32_t record_index;
  const uint8_t* fields;
  size_t field_count;

  AllocatorField FieldOf(uint32_t key) const {
    return key < field_count ? static_cast<AllocatorField>(fields[key]) : AllocatorField::kNone;
  }
  inline __attribute__((always_inline)) void push_back(const Stat& s) {
    const AllocatorField f = FieldOf(s.key());
    if (f == AllocatorField::kNone) pool.push_back(s);
    else record.Set(f, s);
  }
  uint32_t TextSlot(uint32_t key) const {
    switch (FieldOf(key)) {
      case AllocatorField::kNone: return pool.TextSlot(key);
      case AllocatorField::kAllocatorName: return Slot(kRecordStringAllocator);
      case AllocatorField::kTfOp: return Slot(kRecordStringTfOp);
      case AllocatorField::kRegionType: return Slot(kRecordStringRegion);
      case AllocatorField::kShape: return Slot(kRecordStringShape);
      // A string where a number belongs: Set reads it as 0, and the
      // interning finds no field holding its mark (the op holds another).
      default: return Slot(kRecordStringTfOp);
    }
  }
  uint32_t Slot(uint32_t field) const { return kRecordSlot | (record_index << 2) | field; }
};

[[noreturn]] inline void Dangling(const std::string& path, const WireDecoder& d, const std::string& what) {
  throw InputError(path, what + " (at byte " + std::to_string(d.offset()) + "): the capture is corrupt or incomplete");
}

// Decodes stats and events. Each decoding thread has its own, with its own
// diagnostics.
class EventDecoder {
 public:
  // With `strings`, string values are interned at once; without, they are
  // left in `pending` for the caller.
  EventDecoder(const PlaneContext& ctx, StringPool* strings) : ctx_(ctx), strings_(strings) {}

  Diagnostics diag;
  ChunkJob* pending = nullptr;  // Where deferred string values go.
  // Plane and event-metadata stats: one without stat metadata is skipped,
  // not an error (event stats: corruption).
  bool skip_stats_without_metadata = false;

  // Appends a plane's or an event metadata's stat to `out`.
  template <class Sink>
  void ReadStat(WireDecoder& d, Sink& out) {
    static_assert(!kIsEventSink<Sink>, "event stats are read by ReadEventStat, with their lookups");
    ReadAnyStat(d, out, nullptr);
  }
  // Appends an event's stat to its chunk's pool (or its record), with the
  // plane's lookups as values. Runs once per stat: it stays inline.
  template <class Out>
  inline __attribute__((always_inline)) void ReadEventStat(WireDecoder& d, Out& out,
                                                           const PlaneContext::EventStatLookup& lookup) {
    ReadAnyStat(d, out, &lookup);
  }

 private:
  template <class Sink>
  static constexpr bool kIsEventSink = std::is_same_v<Sink, ChunkStats> || std::is_same_v<Sink, RecordStats>;

  // `lookup`: set for event stats (ChunkStats) only.
  template <class Sink>
  inline __attribute__((always_inline)) void ReadAnyStat(WireDecoder& d, Sink& out,
                                                         const PlaneContext::EventStatLookup* lookup) {
    constexpr bool kEventStat = kIsEventSink<Sink>;
    StatFields f;
    // The profiler writes the metadata id first and the value second: that
    // layout is read straight, without the loop's dispatch per field (a
    // stat is most of an event's bytes). Anything else, or more, goes
    // through the loop, which reads any order.
    if (d.PeekByte() == ((kStatMetadataId << 3) | kVarint)) {
      d.Varint();
      f.meta_id = d.Int64();
      if (!d.done()) {
        const uint64_t tag = d.Varint();
        if (tag == ((kStatUint64 << 3) | kVarint)) f.SetValue(Stat::Uint(0, d.Varint()));
        else if (tag == ((kStatInt64 << 3) | kVarint)) f.SetValue(Stat::Int(0, d.Int64()));
        else if (tag == ((kStatRef << 3) | kVarint)) f.SetValue(RefValue(d));
        else if (tag == ((kStatStr << 3) | kLengthDelimited)) f.SetText(d.Bytes());
        else ReadStatField(d, tag, f);
      }
    }
    while (!d.done()) ReadStatField(d, d.Varint(), f);
    uint32_t key;
    if constexpr (kEventStat) key = lookup->Key(static_cast<uint64_t>(f.meta_id), ctx_.stat_map);
    else key = ctx_.stat_map.Find(f.meta_id);
    if (key == IdMap::kMissing && skip_stats_without_metadata) {
      // JAX 0.11's /host:__ScopeRangeCallStack__ plane keeps its scope-range
      // tree as plane stats keyed by range ids that have no stat metadata.
      // Such a stat names nothing, so it is left out (as the reference's
      // visitor reads it: a stat of no known name); on events a dangling id
      // still means corruption.
      diag.Add(diag_kind::kXplanePlaneStatWithoutMetadata);
      return;
    }
    if (key == IdMap::kMissing)
      Dangling(*ctx_.path, d,
               "a stat refers to stat metadata id " + std::to_string(f.meta_id) + ", which its plane does not define");
    if (key > kMaxStatKey) throw InputError(*ctx_.path, "a plane has more than 16 million stat names; not supported");
    if (!f.has_value) diag.Add(diag_kind::kXplaneStatWithoutValue);
    if constexpr (kEventStat) {
      // Checked like a kept one above (dangling ids, missing values): what
      // a decoded event says about the capture does not depend on which of
      // its stats the command keeps.
      if (lookup->Drops(key)) {
        ++pending->dropped_stats;
        return;
      }
    }
    if (f.is_text) f.value = Stat::String(0, TextValue(f.text, out.TextSlot(key)));
    out.push_back(Stat::Make(key, f.value.type(), f.value.bits));
  }

  // A string value's id: interned now, or (decoding a chunk, where
  // interning is not thread-safe) noted for `slot` (the stat's index in
  // the chunk's pool, or a RecordStats slot) and interned once the chunk
  // is done: until then a pool stat holds the empty id, a record's field
  // kPendingStringMark and the entry's number, so the interning can tell
  // whether a later stat replaced it. Out of line: few stats are strings,
  // and inlined into both stat readers it cost the others (callgrind,
  // 21 MB `memory`: 436.0 M inlined, 432.6 M not).
  __attribute__((noinline)) StringId TextValue(std::string_view text, uint32_t slot) {
    if (strings_) return strings_->Intern(text);
    const auto entry = static_cast<uint32_t>(pending->pending_strings.size());
    pending->pending_strings.emplace_back(slot, static_cast<uint32_t>(text.size()));
    pending->pending_text.append(text);
    return slot & RecordStats::kRecordSlot ? kPendingStringMark | entry : StringPool::kEmpty;
  }

 public:
  // What a stat's fields said so far.
  struct StatFields {
    int64_t meta_id = 0;
    bool has_value = false;
    bool is_text = false;
    Stat value = Stat::Int(0, 0);
    std::string_view text;
    void SetValue(Stat v) {
      value = v;
      is_text = false;
      has_value = true;
    }
    void SetText(std::string_view t) {
      text = t;
      is_text = true;
      has_value = true;
    }
  };

  // A ref_value: the name of the stat metadata it refers to.
  inline __attribute__((always_inline)) Stat RefValue(WireDecoder& d) {
    const auto ref = static_cast<int64_t>(d.Varint());
    const uint32_t k = ctx_.stat_map.Find(ref);
    if (__builtin_expect(k == IdMap::kMissing, 0)) DanglingRef(d, ref);
    return Stat::String(0, ctx_.plane->stat_metadata[k].name);
  }
  [[noreturn]] __attribute__((noinline)) void DanglingRef(const WireDecoder& d, int64_t ref) const {
    Dangling(*ctx_.path, d,
             "a string stat refers to stat metadata id " + std::to_string(ref) + ", which its plane does not define");
  }

  // One field of a stat, in any order. A string value is only noted: the
  // metadata id (which may come after it) decides whether it is kept at
  // all, and the last value on the wire is the stat's (protobuf's rule for
  // a oneof).
  inline __attribute__((always_inline)) void ReadStatField(WireDecoder& d, uint64_t tag, StatFields& f) {
    switch (tag) {
      case (kStatMetadataId << 3) | kVarint: f.meta_id = d.Int64(); return;
      case (kStatDouble << 3) | kFixed64: f.SetValue(Stat::Double(0, d.Double())); return;
      case (kStatUint64 << 3) | kVarint: f.SetValue(Stat::Uint(0, d.Varint())); return;
      case (kStatInt64 << 3) | kVarint: f.SetValue(Stat::Int(0, d.Int64())); return;
      case (kStatStr << 3) | kLengthDelimited: f.SetText(d.Bytes()); return;
      // Large blobs (HLO protos) are not kept.
      case (kStatBytes << 3) | kLengthDelimited: f.SetValue(Stat::Make(0, StatType::kBytes, d.Bytes().size())); return;
      case (kStatRef << 3) | kVarint: f.SetValue(RefValue(d)); return;
      default: OtherTag(d, tag, "XStat", kStatRef);
    }
  }

  // The stats as the profiler writes nearly every one, read in place: a
  // length under 128, the metadata id (one or two bytes) first, then one
  // value, which ends the stat: a varint of up to 10 bytes (int, uint or
  // ref), a double, or a string of up to 124 bytes. Reads the run of such
  // stats at `e`'s cursor, with the cursor and the lookups in locals (a
  // store to the pool would make the compiler reload them through `e`).
  // It stops, having taken nothing of that stat, before the first one of
  // any other layout, with an id or ref that has no metadata (or a key
  // past kMaxStatKey), or with a varint value that does not end the stat
  // or lies within 8 bytes of the buffer's end (10 for a value of 9 or 10
  // bytes); and when fewer than 5 bytes of the event are left. The
  // general path then reads that stat and reports what is wrong, so this
  // changes how fast a stat is read, never what is read (nor any error or
  // diagnostic). A stat is most of a capture's bytes.
  template <class Out>
  inline __attribute__((always_inline)) void ReadCommonEventStats(WireDecoder& e, Out& out,
                                                                  const PlaneContext::EventStatLookup& lookup) {
    constexpr uint8_t kStatsTag = (kEventStats << 3) | kLengthDelimited;
    constexpr uint8_t kInt = (kStatInt64 << 3) | kVarint, kUint = (kStatUint64 << 3) | kVarint;
    constexpr uint8_t kRef = (kStatRef << 3) | kVarint, kDoubleTag = (kStatDouble << 3) | kFixed64;
    constexpr uint8_t kStrTag = (kStatStr << 3) | kLengthDelimited;
    const uint8_t* p = e.cursor();
    const uint8_t* const end = e.message_end();
    const uint8_t* const limit = e.buffer_end();
    while (end - p >= 5 && p[0] == kStatsTag) {
      const size_t len = p[1];
      if (len < 3 || len >= 0x80 || static_cast<size_t>(end - p - 2) < len) break;
      const uint8_t* const stat = p + 2;
      const uint8_t* const stat_end = stat + len;
      uint64_t meta_id;
      const uint8_t* v;
      if (!ShortStatId(stat, len, &meta_id, &v)) break;
      const uint8_t tag = *v;
      const uint8_t* const bytes = v + 1;  // The value's, after its tag.
      const auto n = static_cast<size_t>(stat_end - bytes);
      uint64_t bits = 0;
      if constexpr (std::is_same_v<Out, RecordStats>) {
        // An int64 into its record's slot (PlaneContext::record_lane), the
        // value nearly every stat of an allocator event has: checked
        // before the general reading, which costs it more than it saves.
        if (tag == kInt && meta_id < lookup.lane_count && lookup.lanes[meta_id].slot.used) {
          if (!StatVarint(bytes, n, limit, &bits)) break;
          const PlaneContext::RecordLane lane = lookup.lanes[meta_id];
          out.record.SetInt64(lane.field, lane.slot, bits);
          p = stat_end;
          continue;
        }
      }
      StatType type;
      if (tag == kInt || tag == kUint || tag == kRef) {
        if (!StatVarint(bytes, n, limit, &bits)) break;
        if (tag == kRef) {
          // An allocator event's references (its allocator, op, region and
          // shape: two or three an event) look the name up inline; out of
          // line the call spilled the loop's state around it (big_20
          // `memory` 242.0 -> 238.9 M). Inline here too, the shared loop
          // grew: `overview` +0.3%, `input-pipeline` +0.45%; inline for
          // every event (Key always inline) +0.6% and +0.9%.
          uint32_t k;
          if constexpr (std::is_same_v<Out, RecordStats>)
            k = bits < lookup.key_count ? lookup.keys[bits] : ctx_.stat_map.Find(static_cast<int64_t>(bits));
          else k = lookup.Key(bits, ctx_.stat_map);
          if (k == IdMap::kMissing) break;
          bits = lookup.names[k].name;
          type = StatType::kString;
        } else {
          type = tag == kInt ? StatType::kInt64 : StatType::kUint64;
        }
      } else if (tag == kDoubleTag && n == 8) {
        std::memcpy(&bits, bytes, 8);
        type = StatType::kDouble;
      } else if (tag == kStrTag && n >= 1 && bytes[0] == n - 1) {
        type = StatType::kString;
      } else {
        break;
      }
      if constexpr (std::is_same_v<Out, RecordStats>) {
        // A reference to a name into a string field, a double into the
        // fragmentation (PlaneContext::record_lane), its value read as
        // above: what the rest of this loop and Set do with it, after one
        // lookup instead of four. Any other value of the field (a string
        // spelt out, an odd type) takes that way.
        if (meta_id < lookup.lane_count) {
          const AllocatorField field = lookup.lanes[meta_id].field;
          if (tag == kRef && IsAllocatorStringField(field)) {
            out.record.SetString(field, static_cast<StringId>(bits));
            p = stat_end;
            continue;
          }
          if (tag == kDoubleTag && field == AllocatorField::kFragmentation) {
            out.record.SetFragmentation(std::bit_cast<double>(bits));
            p = stat_end;
            continue;
          }
        }
      }
      const uint32_t key = lookup.Key(meta_id, ctx_.stat_map);
      if (key == IdMap::kMissing || key > kMaxStatKey) break;
      p = stat_end;
      if (lookup.Drops(key)) {
        ++pending->dropped_stats;
        continue;
      }
      if (tag == kStrTag)
        bits = TextValue(std::string_view(reinterpret_cast<const char*>(bytes + 1), n - 1), out.TextSlot(key));
      out.push_back(Stat::Make(key, type, bits));
    }
    e.JumpTo(p);
  }

  // A stat's varint value filling its `n` bytes at `bytes`, decoded as
  // the general reading's Varint decodes it, where the loads stay within
  // `limit`. The 9- and 10-byte ones are negative int64s (the executor's
  // `id` on a T4 capture's allocator and executor events): read here
  // rather than by ReadEventStat, big_20 `memory` took 253.8 -> 252.1 M
  // instructions, `overview` 328.1 -> 326.0 M.
  static inline __attribute__((always_inline)) bool StatVarint(const uint8_t* bytes, size_t n, const uint8_t* limit,
                                                               uint64_t* bits) {
    if (n - 1 < 8) return limit - bytes >= 8 && WireDecoder::ExactVarint(bytes, n, bits);
    return n - 9 < 2 && limit - bytes >= 10 && WireDecoder::ExactLongVarint(bytes, n, bits);
  }

  // An event the chunk leaves out: its metadata is this.
  static constexpr uint32_t kLeftOut = IdMap::kMissing;

  // What an event's own fields said so far.
  struct EventFields {
    int64_t meta_id = 0, offset_ps = 0, duration_ps = 0;
    // The metadata's index, looked up once for the rules below and the
    // event; again only if the id comes a second time (never, from
    // protobuf's writers).
    uint32_t meta = IdMap::kMissing;
    bool meta_found = false;
    bool aggregated = false;
  };

  // `allocator_lookup`: the stats' lookups for an allocator event, when
  // the plane has such lookups (PlaneContext::allocator_event), else null.
  // `slot`: the event's index in its line, if kept (its record's `event`).
  template <bool kLeavesOut>
  inline __attribute__((always_inline)) Event ReadEvent(WireDecoder& e, ChunkStats& stats, int64_t line_base_ps,
                                                        const PlaneContext::EventStatLookup& lookup,
                                                        const PlaneContext::EventStatLookup* allocator_lookup,
                                                        size_t slot) {
    EventFields ev;
    // Protobuf writes fields in number order: metadata id, offset,
    // duration, then the stats. That order is read straight; the loop
    // takes any other.
    if (e.PeekByte() == ((kEventMetadataId << 3) | kVarint)) {
      e.Varint();
      ev.meta_id = e.Int64();
      ev.meta = ctx_.event_map.Find(ev.meta_id);
      ev.meta_found = true;
      // PlaneContext::LeavesOut's rule, on what was just read.
      if constexpr (kLeavesOut)
        if (ctx_.SkipsMetadata(ev.meta)) return Event{0, 0, kLeftOut, 0};
      const bool allocator = allocator_lookup && ctx_.IsAllocatorMetadata(ev.meta);
      const PlaneContext::EventStatLookup& stat_lookup = allocator ? *allocator_lookup : lookup;
      if (allocator && ctx_.KeepsRecordFor(ev.meta)) {
        RecordStats record = NewRecord(stats, slot);
        ReadFieldsInOrder(e, record, stat_lookup, ev);
        ReadFieldsInAnyOrder(e, record, lookup, ev);
        return FinishEvent(e, ev, line_base_ps, stats.size());
      }
      ReadFieldsInOrder(e, stats, stat_lookup, ev);
    }
    ReadFieldsInAnyOrder(e, stats, lookup, ev);
    return FinishEvent(e, ev, line_base_ps, stats.size());
  }

  // The record of the allocator event being read (its stats' sink), in
  // the room DecodeChunk made.
  inline __attribute__((always_inline)) RecordStats NewRecord(ChunkStats& stats, size_t slot) {
    std::vector<AllocatorStats>& records = pending->records;
    if (__builtin_expect(records.size() == records.capacity(), 0))
      throw InputError(*ctx_.path, "line holds other events than counted");  // More than the pre-scan framed.
    // Copied from a blank record: value-initialized in place, the 104
    // bytes were zeroed with `rep stos`, whose start-up cost is several
    // times that of the few vector stores a fixed-size copy takes.
    static constexpr AllocatorStats kBlank{};
    AllocatorStats& record = records.emplace_back(kBlank);
    record.event = static_cast<uint32_t>(slot);
    return RecordStats{stats, record, static_cast<uint32_t>(records.size() - 1), ctx_.allocator_field.data(),
                       ctx_.allocator_field.size()};
  }

  // After the metadata id: the offset, the duration and the stats, as
  // protobuf writes them.
  template <class Out>
  inline __attribute__((always_inline)) void ReadFieldsInOrder(WireDecoder& e, Out& stats,
                                                               const PlaneContext::EventStatLookup& lookup,
                                                               EventFields& ev) {
    constexpr int kStatsTag = (kEventStats << 3) | kLengthDelimited;
    if (e.PeekByte() == ((kEventOffsetPs << 3) | kVarint)) {
      e.Varint();
      ev.offset_ps = e.Int64();
    }
    if (e.PeekByte() == ((kEventDurationPs << 3) | kVarint)) {
      e.Varint();
      ev.duration_ps = e.Int64();
    }
    while (e.PeekByte() == kStatsTag) {
      ReadCommonEventStats(e, stats, lookup);
      if (e.PeekByte() != kStatsTag) break;
      e.Varint();
      WireDecoder s = e.Message();
      ReadEventStat(s, stats, lookup);
    }
  }

  // The fields left, in any order.
  template <class Out>
  inline __attribute__((always_inline)) void ReadFieldsInAnyOrder(WireDecoder& e, Out& stats,
                                                                  const PlaneContext::EventStatLookup& lookup,
                                                                  EventFields& ev) {
    while (!e.done()) {
      uint64_t tag = e.Varint();
      switch (tag) {
        case (kEventMetadataId << 3) | kVarint:
          ev.meta_id = e.Int64();
          ev.meta_found = false;
          break;
        case (kEventOffsetPs << 3) | kVarint: ev.offset_ps = e.Int64(); break;
        case (kEventDurationPs << 3) | kVarint: ev.duration_ps = e.Int64(); break;
        case (kEventStats << 3) | kLengthDelimited: {
          WireDecoder s = e.Message();
          ReadEventStat(s, stats, lookup);
          break;
        }
        case (kEventNumOccurrences << 3) | kVarint:
          e.Varint();
          ev.aggregated = true;
          break;
        default: OtherTag(e, tag, "XEvent", kEventNumOccurrences);
      }
    }
  }

  // The event, its fields checked; `stats_end`: its chunk pool's size.
  inline __attribute__((always_inline)) Event FinishEvent(const WireDecoder& e, EventFields& ev, int64_t line_base_ps,
                                                          size_t stats_end) {
    if (!ev.meta_found) ev.meta = ctx_.event_map.Find(ev.meta_id);
    if (ev.meta == IdMap::kMissing)
      Dangling(
          *ctx_.path, e,
          "an event refers to event metadata id " + std::to_string(ev.meta_id) + ", which its plane does not define");
    if (ev.aggregated) diag.Add(diag_kind::kXplaneAggregatedEvent);
    if (ev.duration_ps < 0) {
      diag.Add(diag_kind::kXplaneNegativeDuration);
      ev.duration_ps = 0;
    }
    int64_t start_ps, end_ps;
    if (__builtin_add_overflow(line_base_ps, ev.offset_ps, &start_ps) ||
        __builtin_add_overflow(start_ps, ev.duration_ps, &end_ps)) {
      diag.Add(diag_kind::kXplaneEventTimeOutOfRange);
      start_ps = line_base_ps;
      ev.duration_ps = 0;
    }
    return Event{start_ps, ev.duration_ps, ev.meta, static_cast<uint32_t>(stats_end)};
  }

  void DecodeChunk(ChunkJob& job, SharedBudget& budget, const ReleaseFn& release) {
    pending = &job;
    ChunkStats stats{job, budget};
    // The pool is sized from the kept stats per byte of this thread's last
    // chunk (chunks of a plane are alike), so it rarely grows by doubling:
    // less copying, and little slack held until the line is joined.
    // A pool handed on from a chunk already joined (charged at its
    // capacity) is used as it is when large enough.
    if (kept_stats_per_byte_ > 0) {
      const auto expected =
          static_cast<size_t>(static_cast<double>(job.bytes.size()) * kept_stats_per_byte_ * 1.05) + 16;
      if (expected > job.stats.capacity()) {
        budget.Charge(Growth::kStats, (expected - job.stats_charged) * sizeof(Stat), 0);
        job.stats.reserve(expected);
        job.stats_charged = job.stats.capacity();
      }
    }
    // Room for a record per event, never moved: only the pages the
    // records fill are touched (and those populated for them below, at
    // most the same line's last chunk's share), and they are charged once
    // the chunk is decoded, as filled (a chunk holds at most kChunkEvents
    // events, so what goes uncharged while it decodes is bounded).
    if (!ctx_.allocator_field.empty()) {
      job.records.reserve(job.kept_events);
      // The pages its records will likely fill, as many as the last chunk
      // of the same line had per event (a little under), mapped in one
      // call rather than faulted a page at a time.
      if (job.line == records_line_)
        PopulateForWrite(job.records.data(),
                         static_cast<size_t>(static_cast<double>(job.kept_events) * records_per_event_ * 0.95) *
                             sizeof(AllocatorStats));
    }
    WireDecoder& d = job.bytes;
    const uint64_t begin = d.offset();
    if (!job.leaves_out) DecodeEvents<LeaveOut::kNone>(job, stats);
    else if (ctx_.leaves_out_by_groups) DecodeEvents<LeaveOut::kMarked>(job, stats);
    else DecodeEvents<LeaveOut::kByMetadata>(job, stats);
    // Where the kept events were: not needed again (the job lives until
    // the plane is read).
    budget.Release(Growth::kEvents, job.LeftOutBytes());
    std::vector<uint32_t>().swap(job.kept_at);
    std::vector<uint64_t>().swap(job.left_out_bits);
    // Below RecordStats::kRecordSlot, so that a pool index is never taken
    // for a record's slot: 2^31 stats in a chunk of kChunkEvents events is
    // no capture.
    if (job.stats.size() >= RecordStats::kRecordSlot)
      throw InputError(*ctx_.path, "a chunk of a line has more than 2 billion stats; not supported");
    if (job.bytes.size() > 0)
      kept_stats_per_byte_ = static_cast<double>(job.stats.size()) / static_cast<double>(job.bytes.size());
    if (job.kept_events > 0) {
      records_line_ = job.line;
      records_per_event_ = static_cast<double>(job.records.size()) / static_cast<double>(job.kept_events);
    }
    // The room left: none kept where there are no records; a small
    // vector's (from the heap, whose spare room may be memory already
    // touched) cut to size; a large one's is address space the records
    // never touched (the copy would cost fresh pages).
    if (job.records.empty()) {
      std::vector<AllocatorStats>().swap(job.records);
    } else {
      if (job.records.capacity() * sizeof(AllocatorStats) < (size_t{1} << 20) &&
          job.records.capacity() - job.records.size() > job.records.size() / 4 + 64)
        job.records.shrink_to_fit();
      job.records_charged = job.records.size();
      budget.Charge(Growth::kStats, job.records_charged * sizeof(AllocatorStats), 0);
    }
    // A pool that grew by doubling holds up to twice what it needs until
    // its line is joined: cut it to size.
    if (job.stats.capacity() - job.stats.size() > job.stats.size() / 4 + 64) {
      job.stats.shrink_to_fit();
      budget.Release(Growth::kStats, (job.stats_charged - job.stats.capacity()) * sizeof(Stat));
      job.stats_charged = job.stats.capacity();
    }
    // Give back the file pages decoded, so the file doesn't stay in memory
    // beside the model.
    if (release) release(begin, d.offset());
  }

 private:
  // Which events a chunk leaves out: none; those PlaneContext::LeavesOut
  // names; those the pre-scan left out by groups, unread (the decoder
  // goes to the kept ones by ChunkJob::kept_at, or frames them all and
  // skips those marked in ChunkJob::left_out_bits).
  enum class LeaveOut { kNone, kByMetadata, kMarked };

  // The chunk's events into its slots of the line, those left out skipped.
  template <LeaveOut kLeave>
  void DecodeEvents(ChunkJob& job, ChunkStats& stats) {
    constexpr bool kLeavesOut = kLeave == LeaveOut::kByMetadata;
    [[maybe_unused]] const std::vector<uint64_t>& marked = job.left_out_bits;
    Event* out = job.out;
    const PlaneContext::EventStatLookup lookup = ctx_.EventStatLookups();
    const PlaneContext::EventStatLookup allocator_lookup = ctx_.AllocatorEventStatLookups();
    const PlaneContext::EventStatLookup* allocator = ctx_.allocator_event.empty() ? nullptr : &allocator_lookup;
    const bool keeps_records = !ctx_.allocator_field.empty();
    size_t done = 0, kept = 0;
    WireDecoder& d = job.bytes;
    uint32_t field;
    WireType type;
    // Kept events by their offsets: the next one's, or past the last.
    const bool by_offsets = kLeave == LeaveOut::kMarked && job.by_offsets;
    const uint8_t* const chunk_start = d.cursor();
    auto next_kept = [&] {
      if (kept < job.kept_at.size()) d.JumpTo(chunk_start + job.kept_at[kept]);
      else d.JumpTo(d.message_end());
    };
    if (by_offsets) next_kept();
    while (done < job.event_count && d.NextField(&field, &type)) {
      if (field != kLineEvents || type != kLengthDelimited) {
        // The line's own fields, already read by the pre-scan; not where
        // the pre-scan found an event (the file changed under the mapping).
        if (by_offsets) d.Fail("line holds other events than counted");
        d.Skip(type);
        continue;
      }
      WireDecoder e = d.Message();
      const size_t i = done++;
      if constexpr (kLeave == LeaveOut::kMarked)
        if (!by_offsets && i / 64 < marked.size() && (marked[i / 64] >> (i % 64)) & 1) continue;
      // The bytes a few events on: in a long line the pre-scan read them
      // long enough ago for them to have left the caches.
      d.PrefetchAhead(1024);
      const size_t records_before = job.records.size();
      const Event event = ReadEvent<kLeavesOut>(e, stats, job.base_ps, lookup, allocator, job.first_event + kept);
      if (kLeavesOut && event.metadata == kLeftOut) continue;
      // An allocator event without a record (its metadata id did not come
      // first), or a record of what turned out no allocator event.
      if (keeps_records && (job.records.size() > records_before) != ctx_.IsAllocatorMetadata(event.metadata))
        ++job.irregular_records;
      // The pre-scan counted the slots; bytes that changed under the
      // mapping since (another process rewriting the file) must not write
      // past them.
      if (__builtin_expect(kept == job.kept_events, 0)) d.Fail("line holds other events than counted");
      // Field by field: a copy of the whole event read it back from the
      // stack in 16-byte loads over the narrower stores that built it, a
      // store-forwarding stall per event.
      Event& slot = out[kept++];
      slot.start_ps = event.start_ps;
      slot.duration_ps = event.duration_ps;
      slot.metadata = event.metadata;
      slot.stats_end = event.stats_end;
      if (by_offsets) {
        if (kept == job.kept_events) break;
        next_kept();
      }
    }
    if (by_offsets) {
      // Past the chunk, so that its pages are given back.
      d.JumpTo(d.message_end());
    } else if (done != job.event_count) {
      d.Fail("line holds fewer events than counted");
    }
    if (kept != job.kept_events) d.Fail("line holds other events than counted");
  }

  // A tag the fast paths above don't expect: a known field with the wrong
  // wire type means corruption; an unknown field is skipped and counted.
  void OtherTag(WireDecoder& d, uint64_t tag, const char* message, uint32_t max_known_field) {
    uint32_t field = static_cast<uint32_t>(tag >> 3);
    WireType type = static_cast<WireType>(tag & 7);
    if (field == 0) d.Fail("field number 0 (not a protobuf message)");
    if (field <= max_known_field)
      d.Fail(std::string(message) + " field " + std::to_string(field) + " has unexpected wire type " +
             std::to_string(static_cast<int>(type)));
    diag.Add(diag_kind::kXplaneUnknownField, std::string(message) + " field " + std::to_string(field));
    d.Skip(type);
  }

  const PlaneContext& ctx_;
  StringPool* strings_;
  double kept_stats_per_byte_ = 0;  // In the last chunk this decoder read.
  // The line of the last chunk this decoder read with events kept, and its
  // records per kept event.
  const Line* records_line_ = nullptr;
  double records_per_event_ = 0;
};

}  // namespace tfprof::xplane_wire
