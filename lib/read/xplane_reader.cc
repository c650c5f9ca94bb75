#include "lib/read/xplane_reader.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lib/model/errors.h"
#include "lib/read/byte_source.h"
#include "lib/read/wire_decoder.h"

namespace tfprof {
namespace {

// XSpace field numbers (see proto/xplane.proto).
enum : uint32_t { kSpacePlanes = 1, kSpaceErrors = 2, kSpaceWarnings = 3, kSpaceHostnames = 4 };
enum : uint32_t {
  kPlaneId = 1, kPlaneName = 2, kPlaneLines = 3, kPlaneEventMetadata = 4, kPlaneStatMetadata = 5, kPlaneStats = 6
};
enum : uint32_t {
  kLineId = 1, kLineName = 2, kLineTimestampNs = 3, kLineEvents = 4, kLineDurationPs = 9, kLineDisplayId = 10,
  kLineDisplayName = 11
};
enum : uint32_t { kEventMetadataId = 1, kEventOffsetPs = 2, kEventDurationPs = 3, kEventStats = 4, kEventNumOccurrences = 5 };
enum : uint32_t { kStatMetadataId = 1, kStatDouble = 2, kStatUint64 = 3, kStatInt64 = 4, kStatStr = 5, kStatBytes = 6, kStatRef = 7 };
enum : uint32_t { kMapKey = 1, kMapValue = 2 };
enum : uint32_t { kEventMetaName = 2, kEventMetaDisplayName = 4, kEventMetaStats = 5 };
enum : uint32_t { kStatMetaName = 2 };

// Maps the capture's int64 metadata ids to dense indexes. Ids are usually
// small and dense (1..N), so a flat table serves them; anything else goes to
// a hash map.
class IdMap {
 public:
  static constexpr uint32_t kMissing = std::numeric_limits<uint32_t>::max();

  void Build(const std::vector<int64_t>& ids) {
    int64_t max_id = -1;
    bool all_small = true;
    for (int64_t id : ids) {
      if (id < 0) all_small = false;
      max_id = std::max(max_id, id);
    }
    if (all_small && max_id < static_cast<int64_t>(4 * ids.size() + 1024)) {
      table_.assign(static_cast<size_t>(max_id + 1), kMissing);
      for (size_t i = 0; i < ids.size(); ++i) table_[static_cast<size_t>(ids[i])] = static_cast<uint32_t>(i);
    } else {
      for (size_t i = 0; i < ids.size(); ++i) hash_[ids[i]] = static_cast<uint32_t>(i);
    }
  }
  uint32_t Find(int64_t id) const {
    if (!hash_.empty()) {
      auto it = hash_.find(id);
      return it == hash_.end() ? kMissing : it->second;
    }
    return id >= 0 && static_cast<uint64_t>(id) < table_.size() ? table_[static_cast<size_t>(id)] : kMissing;
  }

 private:
  std::vector<uint32_t> table_;
  absl::flat_hash_map<int64_t, uint32_t> hash_;
};

class XSpaceReader {
 public:
  XSpaceReader(const std::string& path, Diagnostics& diag, const ReadOptions& options,
               std::function<void(uint64_t)> release)
      : path_(path), diag_(diag), options_(options), release_(std::move(release)) {}

  void Read(std::string_view bytes, Host& host) {
    host_ = &host;
    WireDecoder space(bytes);
    uint32_t field;
    WireType type;
    while (space.NextField(&field, &type)) {
      switch (field) {
        case kSpacePlanes:
          space.Expect(type, kLengthDelimited, "XSpace.planes");
          host.planes.emplace_back();
          ReadPlane(space.Message(), host.planes.back());
          break;
        case kSpaceErrors:
          space.Expect(type, kLengthDelimited, "XSpace.errors");
          AddUnique(host.errors, space.Bytes());
          break;
        case kSpaceWarnings:
          space.Expect(type, kLengthDelimited, "XSpace.warnings");
          AddUnique(host.warnings, space.Bytes());
          break;
        case kSpaceHostnames:
          space.Expect(type, kLengthDelimited, "XSpace.hostnames");
          hostnames_.emplace_back(space.Bytes());
          break;
        default:
          Unknown("XSpace", field);
          space.Skip(type);
      }
    }
    host.hostnames = hostnames_;
    if (!hostnames_.empty()) host.name = hostnames_.front();
  }

 private:
  static void AddUnique(std::vector<std::string>& list, std::string_view s) {
    if (std::find(list.begin(), list.end(), s) == list.end()) list.emplace_back(s);
  }

  void Unknown(const char* message, uint32_t field) {
    diag_.Add(Severity::kInfo, "xplane.unknown_field", "fields this reader does not know were skipped",
              std::string(message) + " field " + std::to_string(field));
  }

  [[noreturn]] void Dangling(const WireDecoder& d, const std::string& what) {
    throw InputError(path_, what + " (at byte " + std::to_string(d.offset()) + "): the capture is corrupt or incomplete");
  }

  void ReadPlane(WireDecoder plane_bytes, Plane& plane) {
    // Pass 1: metadata comes after the lines on the wire, but decoding events
    // needs it, so first note where each part is.
    std::vector<WireDecoder> lines, event_metadata, stats;
    std::vector<int64_t> stat_ids;
    std::vector<std::string_view> stat_names;
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
          lines.push_back(plane_bytes.Message());
          break;
        case kPlaneEventMetadata:
          plane_bytes.Expect(type, kLengthDelimited, "XPlane.event_metadata");
          event_metadata.push_back(plane_bytes.Message());
          break;
        case kPlaneStatMetadata: {
          plane_bytes.Expect(type, kLengthDelimited, "XPlane.stat_metadata");
          auto [id, name] = ReadStatMetadataEntry(plane_bytes.Message());
          stat_ids.push_back(id);
          stat_names.push_back(name);
          break;
        }
        case kPlaneStats:
          plane_bytes.Expect(type, kLengthDelimited, "XPlane.stats");
          stats.push_back(plane_bytes.Message());
          break;
        default:
          Unknown("XPlane", field);
          plane_bytes.Skip(type);
      }
    }

    stat_map_ = IdMap();
    stat_map_.Build(stat_ids);
    plane.stat_metadata.resize(stat_ids.size());
    for (size_t i = 0; i < stat_ids.size(); ++i) plane.stat_metadata[i].name = host_->strings.Intern(stat_names[i]);
    plane_ = &plane;

    std::vector<int64_t> event_ids;
    event_ids.reserve(event_metadata.size());
    plane.event_metadata.reserve(event_metadata.size());
    for (WireDecoder& entry : event_metadata) ReadEventMetadataEntry(entry, event_ids);
    event_map_ = IdMap();
    event_map_.Build(event_ids);

    for (WireDecoder& s : stats) {
      if (auto stat = ReadStat(s)) plane.plane_stats.push_back(*stat);
    }
    ExtractDeviceProperties(plane);

    plane.lines.resize(lines.size());
    for (size_t i = 0; i < lines.size(); ++i) ReadLine(lines[i], plane.lines[i]);
  }

  std::pair<int64_t, std::string_view> ReadStatMetadataEntry(WireDecoder entry) {
    int64_t key = 0;
    std::string_view name;
    uint32_t field;
    WireType type;
    while (entry.NextField(&field, &type)) {
      if (field == kMapKey && type == kVarint) {
        key = entry.Int64();
      } else if (field == kMapValue && type == kLengthDelimited) {
        WireDecoder value = entry.Message();
        uint32_t f;
        WireType t;
        while (value.NextField(&f, &t)) {
          if (f == kStatMetaName && t == kLengthDelimited) name = value.Bytes();
          else value.Skip(t);
        }
      } else {
        entry.Skip(type);
      }
    }
    return {key, name};
  }

  void ReadEventMetadataEntry(WireDecoder entry, std::vector<int64_t>& ids) {
    int64_t key = 0;
    EventMetadata meta;
    uint32_t field;
    WireType type;
    while (entry.NextField(&field, &type)) {
      if (field == kMapKey && type == kVarint) {
        key = entry.Int64();
      } else if (field == kMapValue && type == kLengthDelimited) {
        WireDecoder value = entry.Message();
        meta.stats_begin = static_cast<uint32_t>(plane_->metadata_stats.size());
        uint32_t f;
        WireType t;
        while (value.NextField(&f, &t)) {
          if (f == kEventMetaName && t == kLengthDelimited) {
            meta.name = host_->strings.Intern(value.Bytes());
          } else if (f == kEventMetaDisplayName && t == kLengthDelimited) {
            meta.display_name = host_->strings.Intern(value.Bytes());
          } else if (f == kEventMetaStats && t == kLengthDelimited) {
            WireDecoder s = value.Message();
            if (auto stat = ReadStat(s)) plane_->metadata_stats.push_back(*stat);
          } else {
            value.Skip(t);  // The opaque `metadata` bytes and child ids are not needed.
          }
        }
        meta.stats_end = static_cast<uint32_t>(plane_->metadata_stats.size());
      } else {
        entry.Skip(type);
      }
    }
    ids.push_back(key);
    plane_->event_metadata.push_back(meta);
  }

  std::optional<Stat> ReadStat(WireDecoder& d) {
    int64_t meta_id = 0;
    std::optional<Stat> value;
    uint32_t field;
    WireType type;
    while (d.NextField(&field, &type)) {
      switch (field) {
        case kStatMetadataId:
          d.Expect(type, kVarint, "XStat.metadata_id");
          meta_id = d.Int64();
          break;
        case kStatDouble:
          d.Expect(type, kFixed64, "XStat.double_value");
          value = Stat::Double(0, d.Double());
          break;
        case kStatUint64:
          d.Expect(type, kVarint, "XStat.uint64_value");
          value = Stat::Uint(0, d.Varint());
          break;
        case kStatInt64:
          d.Expect(type, kVarint, "XStat.int64_value");
          value = Stat::Int(0, d.Int64());
          break;
        case kStatStr:
          d.Expect(type, kLengthDelimited, "XStat.str_value");
          value = Stat::String(0, host_->strings.Intern(d.Bytes()));
          break;
        case kStatBytes:
          d.Expect(type, kLengthDelimited, "XStat.bytes_value");
          value = Stat::Make(0, StatType::kBytes, d.Bytes().size());  // Large blobs (HLO protos) are not kept.
          break;
        case kStatRef: {
          d.Expect(type, kVarint, "XStat.ref_value");
          int64_t ref = static_cast<int64_t>(d.Varint());
          uint32_t k = stat_map_.Find(ref);
          if (k == IdMap::kMissing) Dangling(d, "a string stat refers to stat metadata id " + std::to_string(ref) + ", which its plane does not define");
          value = Stat::String(0, plane_->stat_metadata[k].name);
          break;
        }
        default:
          Unknown("XStat", field);
          d.Skip(type);
      }
    }
    uint32_t key = stat_map_.Find(meta_id);
    if (key == IdMap::kMissing) Dangling(d, "a stat refers to stat metadata id " + std::to_string(meta_id) + ", which its plane does not define");
    if (key > kMaxStatKey) throw InputError(path_, "a plane has more than 16 million stat names; not supported");
    if (!value) {
      diag_.Add(Severity::kInfo, "xplane.stat_without_value", "stats with no value were read as integer 0");
      value = Stat::Int(0, 0);
    }
    return Stat::Make(key, value->type(), value->bits);
  }

  void ReadLine(WireDecoder line_bytes, Line& line) {
    // Pass 1: the line's own fields, and how many events it holds.
    size_t event_count = 0;
    WireDecoder scan = line_bytes;
    uint32_t field;
    WireType type;
    while (scan.NextField(&field, &type)) {
      switch (field) {
        case kLineId: scan.Expect(type, kVarint, "XLine.id"); line.id = scan.Int64(); break;
        case kLineDisplayId: scan.Expect(type, kVarint, "XLine.display_id"); line.display_id = scan.Int64(); break;
        case kLineName: scan.Expect(type, kLengthDelimited, "XLine.name"); line.name = host_->strings.Intern(scan.Bytes()); break;
        case kLineDisplayName:
          scan.Expect(type, kLengthDelimited, "XLine.display_name");
          line.display_name = host_->strings.Intern(scan.Bytes());
          break;
        case kLineTimestampNs: scan.Expect(type, kVarint, "XLine.timestamp_ns"); line.timestamp_ns = scan.Int64(); break;
        case kLineDurationPs: scan.Expect(type, kVarint, "XLine.duration_ps"); line.duration_ps = scan.Int64(); break;
        case kLineEvents: scan.Expect(type, kLengthDelimited, "XLine.events"); scan.Bytes(); ++event_count; break;
        default: Unknown("XLine", field); scan.Skip(type);
      }
    }
    if (event_count == 0) return;
    if (!origin_set_) {
      host_->time_origin_ns = line.timestamp_ns;
      origin_set_ = true;
    }
    int64_t line_base_ps = 0;
    if (__builtin_sub_overflow(line.timestamp_ns, host_->time_origin_ns, &line_base_ps) ||
        __builtin_mul_overflow(line_base_ps, int64_t{1000}, &line_base_ps)) {
      diag_.Add(Severity::kError, "xplane.line_time_out_of_range",
                "lines whose start time is too far from the rest of the capture were dropped",
                std::string(host_->LineName(line)), event_count);
      return;
    }

    if (options_.max_events) {
      uint64_t room = options_.max_events > events_read_ ? options_.max_events - events_read_ : 0;
      if (event_count > room) {
        diag_.Add(Severity::kWarning, "read.max_events_reached",
                  "events beyond --max-events were not read; the analysis covers only part of the capture", "",
                  event_count - room);
        event_count = room;
      }
    }
    line.events.reserve(event_count);
    line.stats.reserve(line_bytes.size() / 10);  // About one stat per 10 wire bytes.

    // Pass 2: the events.
    while (line_bytes.NextField(&field, &type)) {
      if (field != kLineEvents) {
        line_bytes.Skip(type);
        continue;
      }
      if (line.events.size() == event_count) break;
      WireDecoder e = line_bytes.Message();
      ReadEvent(e, line, line_base_ps);
    }
    events_read_ += line.events.size();
    if (!line.IsSorted()) {
      diag_.Add(Severity::kInfo, "xplane.unsorted_line", "lines whose events were not in time order were sorted",
                std::string(host_->LineName(line)));
      line.SortEvents();
    }
    if (release_) release_(line_bytes.offset());
  }

  void ReadEvent(WireDecoder& e, Line& line, int64_t line_base_ps) {
    int64_t meta_id = 0, offset_ps = 0, duration_ps = 0;
    bool aggregated = false;
    uint32_t field;
    WireType type;
    while (e.NextField(&field, &type)) {
      switch (field) {
        case kEventMetadataId: e.Expect(type, kVarint, "XEvent.metadata_id"); meta_id = e.Int64(); break;
        case kEventOffsetPs: e.Expect(type, kVarint, "XEvent.offset_ps"); offset_ps = e.Int64(); break;
        case kEventDurationPs: e.Expect(type, kVarint, "XEvent.duration_ps"); duration_ps = e.Int64(); break;
        case kEventNumOccurrences: e.Expect(type, kVarint, "XEvent.num_occurrences"); e.Varint(); aggregated = true; break;
        case kEventStats: {
          e.Expect(type, kLengthDelimited, "XEvent.stats");
          WireDecoder s = e.Message();
          if (auto stat = ReadStat(s)) line.stats.push_back(*stat);
          break;
        }
        default: Unknown("XEvent", field); e.Skip(type);
      }
    }
    uint32_t meta = event_map_.Find(meta_id);
    if (meta == IdMap::kMissing)
      Dangling(e, "an event refers to event metadata id " + std::to_string(meta_id) + ", which its plane does not define");
    if (aggregated)
      diag_.Add(Severity::kInfo, "xplane.aggregated_event", "aggregated events (num_occurrences) were placed at their line's start");
    if (duration_ps < 0) {
      diag_.Add(Severity::kWarning, "xplane.negative_duration", "events with a negative duration were clamped to 0");
      duration_ps = 0;
    }
    int64_t start_ps, end_ps;
    if (__builtin_add_overflow(line_base_ps, offset_ps, &start_ps) ||
        __builtin_add_overflow(start_ps, duration_ps, &end_ps)) {
      diag_.Add(Severity::kError, "xplane.event_time_out_of_range", "events whose time overflows were dropped");
      line.stats.resize(line.events.empty() ? 0 : line.events.back().stats_end);
      return;
    }
    line.events.push_back(Event{start_ps, duration_ps, meta, static_cast<uint32_t>(line.stats.size())});
  }

  void ExtractDeviceProperties(Plane& plane) {
    DeviceProperties& d = plane.device;
    for (const Stat& s : plane.plane_stats) {
      std::string_view name = host_->strings.Get(plane.stat_metadata[s.key()].name);
      if (name == "gpu_device_name" || name == "device_type_string") d.name = std::string(host_->strings.Get(s.AsString()));
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
  std::function<void(uint64_t)> release_;
  Host* host_ = nullptr;
  Plane* plane_ = nullptr;
  IdMap stat_map_, event_map_;
  std::vector<std::string> hostnames_;
  bool origin_set_ = false;
  uint64_t events_read_ = 0;
};

std::string HostNameFromPath(const std::string& path) {
  std::string base = path.substr(path.find_last_of('/') + 1);
  for (const char* suffix : {".xplane.pb.gz", ".xplane.pb", ".pb.gz", ".pb"}) {
    std::string s(suffix);
    if (base.size() > s.size() && base.compare(base.size() - s.size(), s.size(), s) == 0) return base.substr(0, base.size() - s.size());
  }
  return base;
}

Host ReadWithReader(std::string_view bytes, const std::string& path, Diagnostics& diagnostics, const ReadOptions& options,
                    std::function<void(uint64_t)> release) {
  Host host;
  host.source_path = path;
  host.format = CaptureFormat::kXSpace;
  host.file_bytes = bytes.size();
  if (bytes.empty()) throw InputError(path, "file is empty (0 bytes), not an XSpace capture");
  XSpaceReader reader(path, diagnostics, options, std::move(release));
  try {
    reader.Read(bytes, host);
  } catch (const WireError& e) {
    throw InputError(path, std::string("not a valid XSpace protobuf (truncated or corrupt): ") + e.what());
  }
  if (host.name.empty()) host.name = HostNameFromPath(path);
  return host;
}

}  // namespace

Host ReadXSpaceBytes(std::string_view bytes, const std::string& path, Diagnostics& diagnostics, const ReadOptions& options) {
  return ReadWithReader(bytes, path, diagnostics, options, nullptr);
}

Host ReadXSpaceFile(const std::string& path, Diagnostics& diagnostics, const ReadOptions& options) {
  if (ChunkReader::Open(path)->gzipped()) {
    std::string bytes = ReadWholeFile(path, options.max_inflated_bytes);
    Host host = ReadWithReader(bytes, path, diagnostics, options, nullptr);
    host.gzipped = true;
    return host;
  }
  auto file = MappedFile::Open(path);
  MappedFile* raw = file.get();
  return ReadWithReader(file->bytes(), path, diagnostics, options, [raw](uint64_t offset) { raw->ReleaseBefore(offset); });
}

}  // namespace tfprof
