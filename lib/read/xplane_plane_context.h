// Internal to the XPlane reader: what decoding a plane's events needs
// (PlaneContext: the plane's id maps, which events and stats the command
// leaves out, where allocator events' stats go), and the pre-scan's rule
// for leaving out the host's other events for the memory profile
// (OnlyGroupLeft). Read-only once the plane's metadata is read, so the
// decoding threads (xplane_event_decoder.h) share it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lib/model/allocator_stats.h"
#include "lib/model/model.h"
#include "lib/read/wire_decoder.h"
#include "lib/read/xplane_wire.h"

namespace tfprof::xplane_wire {

// A stat as the profiler writes nearly every one, its length under 128
// (`len`, at least 3): whether it opens with a metadata id of one or two
// bytes; that id, and where its value's tag is.
inline __attribute__((always_inline)) bool ShortStatId(const uint8_t* stat, size_t len, uint64_t* id,
                                                       const uint8_t** value) {
  if (stat[0] != ((kStatMetadataId << 3) | kVarint)) return false;
  if (stat[1] < 0x80) {
    *id = stat[1];
    *value = stat + 2;
    return true;
  }
  if (len >= 4 && stat[2] < 0x80) {
    *id = (stat[1] & 0x7fu) | (static_cast<uint64_t>(stat[2]) << 7);
    *value = stat + 3;
    return true;
  }
  return false;
}

// What decoding a plane's events needs; read-only once the plane's metadata
// is read, so decoding threads share it.
struct PlaneContext {
  const std::string* path = nullptr;
  Plane* plane = nullptr;
  IdMap stat_map, event_map;
  // Per StatKey: 1 when the command does not want event stats of that name
  // (ReadOptions::event_stats). Empty: every event stat is kept.
  std::vector<uint8_t> drop_event_stat;
  // Per event metadata: 1 when the command leaves such events out of their
  // lines (ReadOptions::event_stats.keep_allocator_events: the allocator
  // events; only_allocator_events_when_steps_allow: the others, those that
  // LeavesOutByGroups takes; use_without_steps: the names no analysis
  // reads, all of them unless leaves_out_by_groups, else those
  // LeavesOutByGroups takes, but kByName's, left out by their name even
  // then). Empty: none.
  std::vector<uint8_t> skip_event;
  // A skip_event value: left out by the name alone, whatever the event's
  // stats (the allocator events of a command that reads none: as
  // EventStatFilter::keep_allocator_events leaves them out).
  static constexpr uint8_t kByName = 2;
  bool SkipsMetadataId(int64_t meta_id) const { return SkipsMetadata(event_map.Find(meta_id)); }
  // The same, by the metadata's index (event_map.Find), for a decoder that
  // has it already.
  bool SkipsMetadata(uint32_t m) const { return m < skip_event.size() && skip_event[m]; }
  // Per event metadata: 1 for the allocator events that are read, whose
  // stats drop_allocator_event_stat filters instead
  // (EventStatFilter::not_on_allocator_events). Empty: none.
  std::vector<uint8_t> allocator_event;
  std::vector<uint8_t> drop_allocator_event_stat;
  bool IsAllocatorMetadata(uint32_t m) const { return m < allocator_event.size() && allocator_event[m]; }
  // Per StatKey: its AllocatorField, when the allocator events that are
  // read keep their own stats as records (EventStatFilter::
  // allocator_records); empty: they keep them in the pool.
  std::vector<uint8_t> allocator_field;
  bool KeepsRecordFor(uint32_t m) const { return !allocator_field.empty() && IsAllocatorMetadata(m); }
  // Per stat metadata id (stat_map's flat table only), where the records
  // are kept: when the id names a stat the allocator events keep, its
  // record field, and the field's slot for an int64 value
  // (kAllocatorIntSlots; unused for the string fields and the
  // fragmentation); no field otherwise. Nearly every stat of an allocator
  // event is an int64, a reference to a name or the fragmentation's
  // double: the decoder stores it after one lookup where the general path
  // takes four (the stat's key, whether it is dropped, its field, the
  // field's rule). Stats of no field (group_id, one per event) through
  // such a lane too made no difference.
  struct RecordLane {
    AllocatorIntSlot slot;
    AllocatorField field = AllocatorField::kNone;
  };
  std::vector<RecordLane> record_lane;
  // Each event stat's lookups, as plain values: a decoding loop copies
  // them into locals, which no store can alias (the tables' own pointers,
  // read through the context, were loaded again after every stat stored).
  struct EventStatLookup {
    const uint32_t* keys;  // stat_map's flat table.
    size_t key_count;
    const uint8_t* drop;  // drop_event_stat.
    size_t drop_count;
    // stat_map.Find(id), the flat table read from here; `map` for sparse ids.
    uint32_t Key(uint64_t id, const IdMap& map) const {
      return id < key_count ? keys[id] : map.Find(static_cast<int64_t>(id));
    }
    bool Drops(uint32_t key) const { return key < drop_count && drop[key]; }
    // record_lane, for an allocator event's lookups where records
    // are kept; else none.
    const RecordLane* lanes = nullptr;
    size_t lane_count = 0;
    // The plane's stat metadata by key: a reference's name, one load from
    // here rather than three through the context.
    const StatMetadata* names = nullptr;
  };
  EventStatLookup EventStatLookups() const {
    return {
        stat_map.dense_data(),      stat_map.dense_size(), drop_event_stat.data(), drop_event_stat.size(), nullptr, 0,
        plane->stat_metadata.data()};
  }
  EventStatLookup AllocatorEventStatLookups() const {
    return {stat_map.dense_data(),
            stat_map.dense_size(),
            drop_allocator_event_stat.data(),
            drop_allocator_event_stat.size(),
            record_lane.data(),
            record_lane.size(),
            plane->stat_metadata.data()};
  }
  // With skip_event set for the events that are not allocator events
  // (EventStatFilter::only_allocator_events_when_steps_allow): such an event
  // is left out only when OnlyGroupLeft says so, its group id kept aside;
  // or, leaving out what the analyses do not read (`without_steps`), for
  // the names no analysis reads, with no group id to keep (group_id_key
  // kMissing; a kByName one is left out unread). The pre-scan decides
  // (LeavesOutByGroups) and tells the decoders where the events it kept
  // are (ChunkJob::kept_at, or left_out_bits).
  bool leaves_out_by_groups = false;
  uint32_t group_id_key = IdMap::kMissing;
  // On a plane whose names give its host no step, or on any for a command
  // that groups nothing (EventStatFilter::use_without_steps,
  // analyses_group), with skip_event set for the names no analysis reads:
  // `without_steps` (named for the first case); and, where no stat could
  // make an analysis read such an event (reads_event_with_stat empty),
  // every one of them is left out by its name (LeavesOut), its stats
  // unread; else the pre-scan decides as when leaving out by groups
  // (leaves_out_by_groups), with no group id to keep.
  bool without_steps = false;
  // Per StatKey, where leaving out by groups: 1 for a stat that keeps the
  // event carrying it whatever its name, which OnlyGroupLeft refuses:
  // step_name for the memory profile's steps; where `without_steps`, the
  // stats that make an analysis read an event (EventStatFilter::
  // stats_read_without_steps). One entry per key of stat_map, so that a
  // key found there is looked up unchecked: one load a stat, as cheap as
  // the one compare with step_name's key it replaces (a checked table cost
  // big_20 `memory` 0.55% more instructions, two loops for the two uses
  // 1.8%).
  std::vector<uint8_t> reads_event_with_stat;
  // Sized for the plane's `stat_count` keys, none refused yet.
  void RefuseEventsWith(uint32_t key, size_t stat_count) {
    reads_event_with_stat.resize(stat_count);
    reads_event_with_stat[key] = 1;
  }

  // The one rule the pre-scan and the decoder share, so that they agree on
  // every line's count: an event is left out when its first field is its
  // metadata id and names a skipped metadata. (An event written in another
  // field order is kept.)
  bool LeavesOut(const WireDecoder& event) const {
    uint64_t meta_id;
    return event.PeekTaggedVarint((kEventMetadataId << 3) | kVarint, &meta_id) &&
           SkipsMetadataId(static_cast<int64_t>(meta_id));
  }
  // The rule leaving out by groups: the same, and OnlyGroupLeft.
  bool LeavesOutByGroups(const WireDecoder& event, bool* has_group, int64_t* group) const {
    const uint8_t* p = event.cursor();
    const uint8_t* const end = event.message_end();
    uint64_t meta_id = 0;
    if (p == end || *p != ((kEventMetadataId << 3) | kVarint) || !(p = WireDecoder::TryVarint(p + 1, end, &meta_id)))
      return false;
    const uint32_t m = event_map.Find(static_cast<int64_t>(meta_id));
    if (!SkipsMetadata(m)) return false;
    if (skip_event[m] == kByName) {
      *has_group = false;
      return true;
    }
    return OnlyGroupLeft(p, end, has_group, group);
  }

  // Whether an event's fields after its metadata id, [p, end), hold nothing
  // an analysis reads but one group id (none where `without_steps`):
  // offsets and durations, and stats each written as protobuf writes them
  // (a metadata id, then one value field ending with the stat; a reference
  // naming a defined stat) that are neither refused (reads_event_with_stat:
  // step_name, or the op stats) nor a second group_id or one not stored as
  // an integer. `group`: that group id (Stat::AsInt), where *has_group.
  // Never throws: an event it does not take is decoded as usual, which
  // says what is wrong with it. kShortStats: common stats read by
  // ShortStat (false only to test it against the general reading).
  // Inline in the pre-scan's loop: called, it saved and restored six
  // registers per event (big_20 `memory` 232.4 -> 230.7 M instructions).
  template <bool kShortStats = true>
  inline __attribute__((always_inline)) bool OnlyGroupLeft(const uint8_t* p, const uint8_t* end, bool* has_group,
                                                           int64_t* group) const {
    constexpr uint8_t kStatsTag = (kEventStats << 3) | kLengthDelimited;
    constexpr uint8_t kIdTag = (kStatMetadataId << 3) | kVarint;
    constexpr uint8_t kInt = (kStatInt64 << 3) | kVarint, kUint = (kStatUint64 << 3) | kVarint;
    *has_group = false;
    const uint8_t* const refused = reads_event_with_stat.data();
    while (p < end) {
      const uint8_t tag = *p++;
      uint64_t len = 0, id = 0, value = 0;
      if (tag == ((kEventOffsetPs << 3) | kVarint) || tag == ((kEventDurationPs << 3) | kVarint)) {
        if (!(p = WireDecoder::TrySkipVarint(p, end))) return false;
        continue;
      }
      if (kShortStats && tag == kStatsTag) {
        const Verdict v = ShortStat(p, end, has_group, group, refused);
        if (v == Verdict::kRefused) return false;
        if (v == Verdict::kTaken) continue;
      }
      if (tag != kStatsTag || !(p = WireDecoder::TryVarint(p, end, &len)) || len > static_cast<uint64_t>(end - p))
        return false;
      const uint8_t* s = p;
      const uint8_t* const stat_end = p + len;
      p = stat_end;
      uint8_t value_tag;
      if (s == stat_end || *s != kIdTag || !(s = WireDecoder::TryVarint(s + 1, stat_end, &id)) ||
          !OneValue(s, stat_end, &value_tag, &value))
        return false;
      const uint32_t key = stat_map.Find(static_cast<int64_t>(id));
      if (key == IdMap::kMissing || refused[key]) return false;
      if (key != group_id_key) {
        if (value_tag == ((kStatRef << 3) | kVarint) && stat_map.Find(static_cast<int64_t>(value)) == IdMap::kMissing)
          return false;
        continue;
      }
      if (*has_group || (value_tag != kInt && value_tag != kUint)) return false;
      *has_group = true;
      *group = static_cast<int64_t>(value);
    }
    return true;
  }

  // What ShortStat made of a stat: taken (the scan goes on past it),
  // refused (the event is kept), or left to the general reading.
  enum class Verdict { kTaken, kRefused, kGeneral };

  // OnlyGroupLeft's reading of a stat at `p` (after its tag), for the
  // layout the profiler writes nearly every stat in: a length under 128,
  // the metadata id of one or two bytes first, then one value whose own
  // bytes are read in one go. It decides as the general reading would, and
  // leaves it any stat it cannot decide so (a varint value of 3 to 8
  // bytes within 8 bytes of the event's end; a string of 128 bytes or
  // more). On kTaken, `p` is past the stat.
  Verdict ShortStat(const uint8_t*& p, const uint8_t* end, bool* has_group, int64_t* group) const {
    return ShortStat(p, end, has_group, group, reads_event_with_stat.data());
  }
  inline __attribute__((always_inline)) Verdict ShortStat(const uint8_t*& p, const uint8_t* end, bool* has_group,
                                                          int64_t* group, const uint8_t* refused) const {
    constexpr uint8_t kInt = (kStatInt64 << 3) | kVarint, kUint = (kStatUint64 << 3) | kVarint;
    constexpr uint8_t kRef = (kStatRef << 3) | kVarint;
    if (p == end || *p >= 0x80) return Verdict::kGeneral;
    const size_t len = *p;
    const uint8_t* const s = p + 1;
    if (len > static_cast<size_t>(end - s)) return Verdict::kRefused;
    const uint8_t* const stat_end = s + len;
    uint64_t id;
    const uint8_t* v;
    if (len < 3 || !ShortStatId(s, len, &id, &v)) return Verdict::kGeneral;
    const uint8_t tag = *v;
    const uint8_t* const bytes = v + 1;
    const auto n = static_cast<size_t>(stat_end - bytes);
    uint64_t value = 0;
    if (tag == kInt || tag == kUint || tag == kRef) {
      if (n == 0) return Verdict::kGeneral;
      if (n > 8) {
        // More than eight bytes (nine or ten: a negative int64, such as
        // the executor's `id`), decided as OneValue decides them.
        if (WireDecoder::TryVarint(bytes, stat_end, &value) != stat_end) return Verdict::kRefused;
      } else {
        // ExactVarint loads 8 bytes past two.
        if (n > 2 && end - bytes < 8) return Verdict::kGeneral;
        if (!WireDecoder::ExactVarint(bytes, n, &value)) return Verdict::kRefused;
      }
    } else if (tag == ((kStatDouble << 3) | kFixed64)) {
      if (n != 8) return Verdict::kRefused;
    } else if (tag == ((kStatStr << 3) | kLengthDelimited) || tag == ((kStatBytes << 3) | kLengthDelimited)) {
      if (n == 0) return Verdict::kRefused;
      if (bytes[0] >= 0x80) return Verdict::kGeneral;
      if (bytes[0] != n - 1) return Verdict::kRefused;
    } else {
      return Verdict::kRefused;
    }
    const uint32_t key = stat_map.Find(static_cast<int64_t>(id));
    if (key == IdMap::kMissing || refused[key]) return Verdict::kRefused;
    if (key == group_id_key) {
      if (*has_group || (tag != kInt && tag != kUint)) return Verdict::kRefused;
      *has_group = true;
      *group = static_cast<int64_t>(value);
    } else if (tag == kRef && stat_map.Find(static_cast<int64_t>(value)) == IdMap::kMissing) {
      return Verdict::kRefused;
    }
    p = stat_end;
    return Verdict::kTaken;
  }

  // A stat's value after its metadata id, [v, end): one field of a value's
  // wire type ending at `end`. Its tag, and a varint's value.
  static bool OneValue(const uint8_t* v, const uint8_t* end, uint8_t* tag, uint64_t* value) {
    if (v == end) return false;
    *tag = *v++;
    switch (*tag) {
      case (kStatDouble << 3) | kFixed64: return end - v == 8;
      case (kStatUint64 << 3) | kVarint:
      case (kStatInt64 << 3) | kVarint:
      case (kStatRef << 3) | kVarint: return WireDecoder::TryVarint(v, end, value) == end;
      case (kStatStr << 3) | kLengthDelimited:
      case (kStatBytes << 3) | kLengthDelimited: {
        uint64_t n = 0;
        const uint8_t* const q = WireDecoder::TryVarint(v, end, &n);
        return q && n == static_cast<uint64_t>(end - q);
      }
      default: return false;
    }
  }
};

}  // namespace tfprof::xplane_wire
