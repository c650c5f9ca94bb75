#include "lib/read/chrome_trace_builder.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "lib/read/chrome_trace_builder_state.h"
#include "lib/read/chrome_trace_tf1_timeline.h"
#include "lib/read/stat_edit.h"

namespace tfprof {
namespace {

using chrome_trace::kOpenDuration;
using chrome_trace::kPsPerUs;
using chrome_trace::kSyntheticIdBase;

// What a new process, thread or name costs, charged to the memory budget
// when it is created: the builder's state for it, the model's record (which
// Finish moves into the host while the state still exists), the index entry
// that finds it, and the heap block's overhead.
constexpr uint64_t kPlaneBytes = sizeof(ChromeTraceBuilder::PlaneState) + sizeof(Plane) + sizeof(void*) +
                                 HashEntryBytes(sizeof(int64_t) + sizeof(uint32_t)) + kMallocOverhead;
// A thread also gets the first block of its events, a heap block of its own.
constexpr uint64_t kLineBytes = sizeof(ChromeTraceBuilder::LineState) + sizeof(Line) + sizeof(void*) +
                                HashEntryBytes(sizeof(int64_t) + sizeof(void*)) + kMallocOverhead +
                                (chrome_trace::BlockVector<Event>::BlockSize(0) * sizeof(Event) + kMallocOverhead);
// Names: the model's record (in a vector that doubles: 1.5x on average) and
// the index entry; the name's text is the string pool's.
constexpr uint64_t kEventNameBytes =
    sizeof(EventMetadata) * 3 / 2 + HashEntryBytes(sizeof(std::string_view) + sizeof(EventMetadataId));
constexpr uint64_t kStatNameBytes =
    sizeof(StatMetadata) * 3 / 2 + HashEntryBytes(sizeof(std::string_view) + sizeof(StatKey));

// "123" or "-7" written as a string (older Kineto writes tids so): read as the
// number, so that it names the same thread as the numeric form.
bool CanonicalInteger(std::string_view s, int64_t* out) {
  size_t digits = s.size() - (!s.empty() && s[0] == '-');
  if (digits == 0 || digits > 18) return false;
  std::string_view d = s.substr(s.size() - digits);
  if (d.size() > 1 && d[0] == '0') return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

// A plane's name table: the id of `name` from the cache of recent names,
// else from the whole table (then cached); null when the plane has none yet.
template <typename Id, typename Cache>
const Id* FindName(const absl::flat_hash_map<std::string_view, Id>& index, Cache& recent, std::string_view name) {
  if (const Id* hit = recent.Find(name)) return hit;
  auto it = index.find(name);
  if (it == index.end()) return nullptr;
  recent.Put(it->first, it->second, index.size());
  return &it->second;
}

bool CheckedMul(int64_t a, int64_t b, int64_t* out) { return !__builtin_mul_overflow(a, b, out); }
bool CheckedAdd(int64_t a, int64_t b, int64_t* out) { return !__builtin_add_overflow(a, b, out); }

}  // namespace

void RawTraceEvent::Clear() {
  // One store per field: chained assignments (a = b = {}) made the compiler
  // read back what it had just written, a store-forwarding stall per event.
  ph = {};
  name = {};
  cat = {};
  id = {};
  event_stats = {};
  has_cat = false;
  has_id = false;
  id_is_number = false;
  pid.kind = TraceId::kMissing;
  tid.kind = TraceId::kMissing;
  ts.kind = TraceField::kMissing;
  dur.kind = TraceField::kMissing;
  bind_id.reset();
  flow_in = false;
  flow_out = false;
  args.clear();
  dropped_args = 0;
  entry_count = 0;
}

ChromeTraceBuilder::ChromeTraceBuilder(Host& host, Diagnostics& diagnostics, const ReadOptions& options)
    : host_(host),
      diagnostics_(diagnostics),
      options_(options),
      arg_filter_(TraceArgFilter::For(options.event_stats)),
      next_synthetic_id_(kSyntheticIdBase),
      recent_strings_(std::make_unique<RecentStrings>()),
      budget_(host.source_path, options, CaptureFormat::kChromeTrace) {}

ChromeTraceBuilder::~ChromeTraceBuilder() = default;

void ChromeTraceBuilder::Count(TraceDiag kind, std::string_view example, uint64_t n) {
  DiagCount& c = diag_counts_[static_cast<size_t>(kind)];
  if (c.count == 0 && !example.empty()) c.example = std::string(example.substr(0, 200));
  c.count += n;
}

void ChromeTraceBuilder::AddDeviceProperties(int64_t device_id, DeviceProperties properties) {
  devices_.emplace_back(device_id, std::move(properties));
  host_.listed_gpus = static_cast<int>(devices_.size());
}

std::optional<DeviceProperties> ChromeTraceBuilder::MachineModel() const {
  if (devices_.empty()) return std::nullopt;
  const DeviceProperties& first = devices_.front().second;
  for (const auto& [id, d] : devices_)
    if (d.name != first.name || d.vendor != first.vendor || d.compute_cap_major != first.compute_cap_major ||
        d.compute_cap_minor != first.compute_cap_minor || d.core_count != first.core_count ||
        d.memory_bytes != first.memory_bytes)
      return std::nullopt;
  return first;
}

int64_t ChromeTraceBuilder::ResolveId(const TraceId& id, bool is_pid) {
  switch (id.kind) {
    case TraceId::kNumber: return id.number;
    case TraceId::kMissing: Count(is_pid ? TraceDiag::kMissingPid : TraceDiag::kMissingTid); return 0;
    case TraceId::kInvalid: Count(TraceDiag::kBadFieldType, is_pid ? "pid" : "tid"); return 0;
    case TraceId::kString: break;
  }
  int64_t n;
  if (CanonicalInteger(id.text, &n)) return n;
  auto it = synthetic_ids_.find(id.text);
  if (it != synthetic_ids_.end()) return it->second;
  int64_t synthetic = next_synthetic_id_++;
  StringId name = host_.strings.Intern(id.text);
  synthetic_ids_.emplace(host_.strings.Get(name), synthetic);
  synthetic_names_.emplace(synthetic, name);
  ChargeStrings();
  budget_.Charge(
      is_pid ? Growth::kPlanes : Growth::kLines,
      HashEntryBytes(sizeof(std::string_view) + sizeof(int64_t)) + HashEntryBytes(sizeof(int64_t) + sizeof(StringId)),
      0);
  return synthetic;
}

ChromeTraceBuilder::PlaneState& ChromeTraceBuilder::GetPlane(const TraceId& pid) {
  int64_t id = ResolveId(pid, true);
  if (cached_plane_ && cached_pid_ == id) return *cached_plane_;
  auto [it, inserted] = plane_index_.try_emplace(id, static_cast<uint32_t>(planes_.size()));
  if (inserted) {
    budget_.Charge(Growth::kPlanes, kPlaneBytes);
    auto plane = std::make_unique<PlaneState>();
    plane->plane.id = id;
    plane->synthetic = pid.kind == TraceId::kString && id >= kSyntheticIdBase;
    plane->first_seen = first_seen_++;
    planes_.push_back(std::move(plane));
  }
  cached_pid_ = id;
  cached_plane_ = planes_[it->second].get();
  return *cached_plane_;
}

ChromeTraceBuilder::LineState& ChromeTraceBuilder::ThreadLine(PlaneState& plane, const TraceId& tid) {
  int64_t id = ResolveId(tid, false);
  if (last_line_ && last_plane_ == &plane && last_tid_ == id) return *last_line_;
  LineState*& slot = plane.thread_lines[id];
  if (!slot) {
    budget_.Charge(Growth::kLines, kLineBytes);
    plane.lines.push_back(std::make_unique<LineState>());
    slot = plane.lines.back().get();
    slot->line.id = id;
    slot->first_seen = first_seen_++;
  }
  last_plane_ = &plane;
  last_line_ = slot;
  last_tid_ = id;
  return *slot;
}

ChromeTraceBuilder::LineState& ChromeTraceBuilder::SpecialLine(PlaneState& plane, std::string_view name) {
  auto it = plane.special_lines.find(name);
  if (it != plane.special_lines.end()) return *it->second;
  budget_.Charge(Growth::kLines, kLineBytes);
  plane.lines.push_back(std::make_unique<LineState>());
  LineState* line = plane.lines.back().get();
  line->kind = name == kChromeTraceCountersLine ? LineState::kCounters : LineState::kAsync;
  line->line.id = next_synthetic_id_++;
  line->line.name = host_.strings.Intern(name);
  line->first_seen = first_seen_++;
  plane.special_lines.emplace(host_.strings.Get(line->line.name), line);
  ChargeStrings();
  return *line;
}

template <typename Id, typename Cache>
void ChromeTraceBuilder::IndexName(absl::flat_hash_map<std::string_view, Id>& index, Cache& recent, StringId name,
                                   Id id, Growth growth, uint64_t entry_bytes) {
  index.emplace(host_.strings.Get(name), id);
  ChargeStrings();
  const size_t cache_before = recent.bytes();
  recent.Put(host_.strings.Get(name), id, index.size());
  budget_.Charge(growth, entry_bytes + recent.bytes() - cache_before);
}

EventMetadataId ChromeTraceBuilder::Metadata(PlaneState& plane, std::string_view name) {
  if (const EventMetadataId* hit = FindName(plane.metadata_index, plane.recent_metadata, name)) return *hit;
  StringId id = host_.strings.Intern(name);
  auto meta = static_cast<EventMetadataId>(plane.plane.event_metadata.size());
  EventMetadata m;
  m.name = id;
  plane.plane.event_metadata.push_back(m);
  IndexName(plane.metadata_index, plane.recent_metadata, id, meta, Growth::kEventNames, kEventNameBytes);
  return meta;
}

std::optional<StatKey> ChromeTraceBuilder::Key(PlaneState& plane, std::string_view name) {
  if (const StatKey* hit = FindName(plane.stat_index, plane.recent_keys, name)) return *hit;
  if (plane.plane.stat_metadata.size() > kMaxStatKey) {
    Count(TraceDiag::kTooManyStatNames, name);
    return std::nullopt;
  }
  StringId id = host_.strings.Intern(name);
  auto key = static_cast<StatKey>(plane.plane.stat_metadata.size());
  plane.plane.stat_metadata.push_back(StatMetadata{id});
  IndexName(plane.stat_index, plane.recent_keys, id, key, Growth::kStatNames, kStatNameBytes);
  return key;
}

StringId ChromeTraceBuilder::Intern(std::string_view s) {
  if (const StringId* hit = recent_strings_->Find(s)) return *hit;
  StringId id = host_.strings.Intern(s);
  recent_strings_->Put(host_.strings.Get(id), id, host_.strings.size());
  ChargeStrings();  // Only on a miss of the cache: cheap enough (a few loads).
  return id;
}

// The pool's memory is measured whole (text, views, index slots) and its
// growth charged.
void ChromeTraceBuilder::ChargeStrings() {
  uint64_t bytes = host_.strings.MemoryBytes() + recent_strings_->bytes(), count = host_.strings.size();
  if (bytes > strings_charged_) {
    budget_.Charge(Growth::kText, bytes - strings_charged_, count - strings_counted_);
    strings_charged_ = bytes;
    strings_counted_ = count;
  }
}

bool ChromeTraceBuilder::StartPs(const TraceField& ts, int64_t* out) {
  if (!origin_set_) {
    // The first placed event's whole microsecond: times stay small and
    // exact, and epoch-µs traces (TF1, Kineto) cannot overflow int64 ps.
    origin_us_ = ts.time.us;
    origin_set_ = true;
  }
  int64_t rel;
  if (!CheckedAdd(ts.time.us, -origin_us_, &rel) || !CheckedMul(rel, kPsPerUs, &rel) ||
      !CheckedAdd(rel, ts.time.frac_ps, out) || *out < -chrome_trace::kMaxTimeOffsetPs ||
      *out > chrome_trace::kMaxTimeOffsetPs) {
    Count(TraceDiag::kTimeOutOfRange);
    return false;
  }
  return true;
}

int64_t ChromeTraceBuilder::DurationPs(const RawTraceEvent& event, bool required) {
  if (event.dur.kind == TraceField::kMissing) {
    if (required) Count(TraceDiag::kMissingDuration, event.name);
    return 0;
  }
  if (event.dur.kind == TraceField::kInvalid) {
    Count(TraceDiag::kBadFieldType, "dur");
    return 0;
  }
  int64_t ps;
  if (!CheckedMul(event.dur.time.us, kPsPerUs, &ps) || !CheckedAdd(ps, event.dur.time.frac_ps, &ps)) {
    Count(TraceDiag::kTimeOutOfRange, "dur");
    return 0;
  }
  if (ps < 0) {
    Count(TraceDiag::kNegativeDuration, event.name);
    return 0;
  }
  return ps;
}

bool ChromeTraceBuilder::Room() {
  if (options_.max_events == 0 || events_added_ < options_.max_events) return true;
  Count(TraceDiag::kMaxEventsReached);
  return false;
}

void ChromeTraceBuilder::AppendStat(PlaneState& plane, LineState& line, std::string_view key, const TraceArg& value) {
  if (value.kind == TraceArg::kNull) {
    Count(TraceDiag::kNullArg, key);
    return;
  }
  std::optional<StatKey> k = Key(plane, key);
  if (!k) return;
  switch (value.kind) {
    case TraceArg::kInt: line.stats.push_back(Stat::Int(*k, value.i)); break;
    case TraceArg::kUint: line.stats.push_back(Stat::Uint(*k, value.u)); break;
    case TraceArg::kDouble: line.stats.push_back(Stat::Double(*k, value.d)); break;
    case TraceArg::kString: line.stats.push_back(Stat::String(*k, Intern(value.s))); break;
    case TraceArg::kNull: break;
  }
}

uint32_t ChromeTraceBuilder::Push(PlaneState& plane, LineState& line, const RawTraceEvent& event, int64_t start_ps,
                                  int64_t duration_ps, std::string_view name, const std::vector<TraceArg>& args) {
  // The stats read, the few this adds, and the room the conventions may
  // take after (kStatRoomPerEvent) must keep stats_end within 32 bits.
  if (line.stats.size() + args.size() + 8 + kStatRoomPerEvent * (line.events.size() + 1) >
      std::numeric_limits<uint32_t>::max()) {
    Count(TraceDiag::kLineTooLarge);
    return UINT32_MAX;
  }
  const size_t stats_before = line.stats.size();
  if (event.has_cat) {
    if (!plane.cat_key) plane.cat_key = Key(plane, "cat");
    if (plane.cat_key) line.stats.push_back(Stat::String(*plane.cat_key, Intern(event.cat)));
  }
  for (const TraceArg& a : args) AppendStat(plane, line, a.key, a);
  host_.event_stats_dropped += event.dropped_args;
  if (event.has_id) {
    TraceArg id;
    int64_t n;
    if (event.id_is_number && CanonicalInteger(event.id, &n)) {
      id.kind = TraceArg::kInt;
      id.i = n;
    } else {
      id.kind = TraceArg::kString;
      id.s = event.id;
    }
    AppendStat(plane, line, "id", id);
  }
  if (event.bind_id) {
    TraceArg b;
    b.kind = TraceArg::kUint;
    b.u = *event.bind_id;
    AppendStat(plane, line, "bind_id", b);
  }
  for (auto [flag, key] : {std::pair{event.flow_in, "flow_in"}, std::pair{event.flow_out, "flow_out"}}) {
    if (!flag) continue;
    TraceArg f;
    f.kind = TraceArg::kInt;
    f.i = 1;
    AppendStat(plane, line, key, f);
  }
  line.events.push_back(Event{start_ps, duration_ps, Metadata(plane, name), static_cast<uint32_t>(line.stats.size())});
  ++events_added_;
  budget_.Charge(Growth::kEvents, sizeof(Event));
  if (const size_t added = line.stats.size() - stats_before)
    budget_.Charge(Growth::kStats, added * sizeof(Stat), added);
  return static_cast<uint32_t>(line.events.size() - 1);
}

void ChromeTraceBuilder::Add(const RawTraceEvent& event) {
  if (event.ph.size() != 1) {
    if (event.ph.empty()) Count(TraceDiag::kMissingPhase, event.name);
    else Count(TraceDiag::kUnknownPhase, event.ph);
    return;
  }
  switch (event.ph[0]) {
    case 'X': AddComplete(event, false); break;
    case 'i':
    case 'I': AddComplete(event, true); break;
    case 'B': AddBegin(event); break;
    case 'E': AddEnd(event); break;
    case 'C': AddCounter(event); break;
    case 'M': AddMetadata(event); break;
    case 'b':
    case 'e':
    case 'n': AddAsync(event); break;
    case 's':
    case 't':
    case 'f': Count(TraceDiag::kFlowEvents, event.name); break;
    case 'N':
    case 'O':
    case 'D': AddObject(event); break;
    // Samples, marks, clock syncs, memory dumps, contexts, and the
    // deprecated async step phases.
    case 'P':
    case 'R':
    case 'c':
    case 'V':
    case 'v':
    case '(':
    case ')':
    case 'S':
    case 'T':
    case 'F':
    case 'p': Count(TraceDiag::kUnsupportedPhase, event.ph); break;
    default: Count(TraceDiag::kUnknownPhase, event.ph);
  }
}

void ChromeTraceBuilder::AddComplete(const RawTraceEvent& event, bool instant) {
  if (event.ts.kind != TraceField::kValid) {
    Count(event.ts.kind == TraceField::kMissing ? TraceDiag::kMissingTs : TraceDiag::kBadFieldType,
          event.ts.kind == TraceField::kMissing ? event.name : std::string_view("ts"));
    return;
  }
  if (!Room()) return;
  PlaneState& plane = GetPlane(event.pid);
  LineState& line = ThreadLine(plane, event.tid);
  int64_t start, end;
  if (!StartPs(event.ts, &start)) return;
  int64_t duration = instant ? 0 : DurationPs(event, true);
  if (!CheckedAdd(start, duration, &end) || end > chrome_trace::kMaxTimeOffsetPs) {
    Count(TraceDiag::kTimeOutOfRange, event.name);
    return;
  }
  Push(plane, line, event, start, duration, event.name, event.args);
}

void ChromeTraceBuilder::AddBegin(const RawTraceEvent& event) {
  if (event.ts.kind != TraceField::kValid) {
    Count(event.ts.kind == TraceField::kMissing ? TraceDiag::kMissingTs : TraceDiag::kBadFieldType, event.name);
    return;
  }
  if (!Room()) return;
  PlaneState& plane = GetPlane(event.pid);
  LineState& line = ThreadLine(plane, event.tid);
  int64_t start;
  if (!StartPs(event.ts, &start)) return;
  uint32_t index = Push(plane, line, event, start, kOpenDuration, event.name, event.args);
  if (index == UINT32_MAX) return;
  line.open_begins.push_back(index);
  budget_.Charge(Growth::kEvents, sizeof(uint32_t), 0);
  ++line.open_count;
}

void ChromeTraceBuilder::AddEnd(const RawTraceEvent& event) {
  if (event.ts.kind != TraceField::kValid) {
    Count(event.ts.kind == TraceField::kMissing ? TraceDiag::kMissingTs : TraceDiag::kBadFieldType, event.name);
    return;
  }
  PlaneState& plane = GetPlane(event.pid);
  // Look the thread up without creating it: an unmatched E adds no line.
  auto found = plane.thread_lines.find(ResolveId(event.tid, false));
  if (found == plane.thread_lines.end() || found->second->open_begins.empty()) {
    // Past --max-events the B was not read; its E is part of what was not.
    if (options_.max_events == 0 || events_added_ < options_.max_events) Count(TraceDiag::kUnmatchedEnd, event.name);
    return;
  }
  // Like Chrome, an E closes the innermost open B whatever its name.
  LineState& line = *found->second;
  uint32_t index = line.open_begins.back();
  line.open_begins.pop_back();
  --line.open_count;
  CloseBegin(line.events[index], event);
  // Args skipped unread (TraceArgFilter) were there all the same.
  if (!event.args.empty() || event.dropped_args > 0) Count(TraceDiag::kEndArgsIgnored, event.name);
}

void ChromeTraceBuilder::CloseBegin(Event& begin, const RawTraceEvent& end_event) {
  int64_t end;
  if (!StartPs(end_event.ts, &end)) {
    begin.duration_ps = 0;
    return;
  }
  if (end < begin.start_ps) {
    Count(TraceDiag::kNegativeDuration, end_event.name);
    end = begin.start_ps;
  }
  begin.duration_ps = end - begin.start_ps;
}

void ChromeTraceBuilder::AddCounter(const RawTraceEvent& event) {
  PlaneState& plane = GetPlane(event.pid);
  if (event.entry_count > 0) {
    // xprof's packed form: one row [ts, v1, v2, ...] per sample.
    for (size_t row = 0; row < event.entry_count; ++row) {
      if (!Room()) return;
      TraceField ts{TraceField::kValid, event.entry_ts[row]};
      int64_t start;
      if (!StartPs(ts, &start)) continue;
      LineState& line = SpecialLine(plane, kChromeTraceCountersLine);
      Push(plane, line, event, start, 0, event.name, event.entry_values[row]);
    }
    return;
  }
  int64_t start;
  if (!TimedStart(event, &start)) return;
  LineState& line = SpecialLine(plane, kChromeTraceCountersLine);
  Push(plane, line, event, start, 0, event.name, event.args);
}

bool ChromeTraceBuilder::TimedStart(const RawTraceEvent& event, int64_t* start_ps) {
  if (event.ts.kind != TraceField::kValid) {
    Count(event.ts.kind == TraceField::kMissing ? TraceDiag::kMissingTs : TraceDiag::kBadFieldType, event.name);
    return false;
  }
  return Room() && StartPs(event.ts, start_ps);
}

void ChromeTraceBuilder::AddObject(const RawTraceEvent& event) {
  // Only TF1's tensor lifetimes are read (chrome_trace_tf1_timeline.h).
  if (event.cat != "Tensor") {
    Count(TraceDiag::kObjectEvents, event.name);
    return;
  }
  int64_t start;
  if (!TimedStart(event, &start)) return;
  PlaneState& plane = GetPlane(event.pid);
  const std::string_view line = event.ph[0] == 'N'   ? kTensorCreatedLine
                                : event.ph[0] == 'O' ? kTensorSnapshotLine
                                                     : kTensorDeletedLine;
  Push(plane, SpecialLine(plane, line), event, start, 0, event.name, event.args);
}

void ChromeTraceBuilder::AddAsync(const RawTraceEvent& event) {
  if (event.ts.kind != TraceField::kValid) {
    Count(event.ts.kind == TraceField::kMissing ? TraceDiag::kMissingTs : TraceDiag::kBadFieldType, event.name);
    return;
  }
  PlaneState& plane = GetPlane(event.pid);
  std::string key;
  key.reserve(event.cat.size() + event.id.size() + event.name.size() + 2);
  key.append(event.cat).append(1, '\x1f').append(event.id).append(1, '\x1f').append(event.name);
  char ph = event.ph[0];
  if (ph == 'e') {
    auto it = plane.open_async.find(key);
    if (it == plane.open_async.end() || it->second.empty()) {
      if (options_.max_events == 0 || events_added_ < options_.max_events)
        Count(TraceDiag::kAsyncUnmatchedEnd, event.name);
      return;
    }
    auto [line, index] = it->second.back();
    it->second.pop_back();
    if (it->second.empty()) plane.open_async.erase(it);
    --line->open_count;
    CloseBegin(line->events[index], event);
    return;
  }
  if (!Room()) return;
  int64_t start;
  if (!StartPs(event.ts, &start)) return;
  LineState& line = SpecialLine(plane, event.cat.empty() ? std::string("async") : "async " + std::string(event.cat));
  uint32_t index = Push(plane, line, event, start, ph == 'b' ? kOpenDuration : 0, event.name, event.args);
  if (ph == 'b' && index != UINT32_MAX) {
    auto [open, added] = plane.open_async.try_emplace(std::move(key));
    open->second.emplace_back(&line, index);
    ++line.open_count;
    // The key's copy and its list, besides the event itself.
    if (added)
      budget_.Charge(Growth::kEvents,
                     HashEntryBytes(sizeof(std::string) + sizeof(open->second)) + StringBytes(open->first.size()) +
                         kMallocOverhead + 2 * sizeof(uint64_t),
                     0);
  }
}

void ChromeTraceBuilder::AddMetadata(const RawTraceEvent& event) {
  auto arg = [&](std::string_view key) -> const TraceArg* {
    for (const TraceArg& a : event.args)
      if (a.key == key) return &a;
    return nullptr;
  };
  auto string_arg = [&](std::string_view key) -> std::optional<StringId> {
    const TraceArg* a = arg(key);
    if (a && a->kind == TraceArg::kString) {
      StringId id = host_.strings.Intern(a->s);
      ChargeStrings();
      return id;
    }
    Count(TraceDiag::kBadFieldType, std::string(event.name) + " args." + std::string(key));
    return std::nullopt;
  };
  auto int_arg = [&](std::string_view key) -> std::optional<int64_t> {
    const TraceArg* a = arg(key);
    if (a && a->kind == TraceArg::kInt) return a->i;
    if (a && a->kind == TraceArg::kUint) return static_cast<int64_t>(std::min<uint64_t>(a->u, INT64_MAX));
    if (a && a->kind == TraceArg::kDouble && std::isfinite(a->d)) return static_cast<int64_t>(a->d);
    Count(TraceDiag::kBadFieldType, std::string(event.name) + " args." + std::string(key));
    return std::nullopt;
  };

  const std::string_view name = event.name;
  if (name != "process_name" && name != "process_labels" && name != "process_sort_index" && name != "thread_name" &&
      name != "thread_sort_index") {
    Count(TraceDiag::kOtherMetadata, name);
    return;
  }
  PlaneState& plane = GetPlane(event.pid);
  if (name == "process_name") {
    if (auto s = string_arg("name")) {
      plane.process_name = *s;
      plane.has_process_name = true;
    }
  } else if (name == "process_labels") {
    if (auto s = string_arg("labels")) {
      // Kineto labels a process "GPU <n>" with pid n for every GPU of the
      // machine; a host process whose own pid is n (pid 1 in a container)
      // then gets both labels, its own "CPU" first. It stays the host; the
      // GPU label is kept aside (kSharedGpuLabelStat) for the GPU's events,
      // should it hold any (the conventions move them to a plane of their
      // own).
      const std::string_view label = host_.strings.Get(*s);
      if (host_.strings.Get(plane.labels) == "CPU" && label.substr(0, 4) == "GPU ") {
        Count(TraceDiag::kHostPidShared, "pid " + std::to_string(plane.plane.id) + ": " + std::string(label));
        if (auto key = Key(plane, kSharedGpuLabelStat)) plane.plane.plane_stats.push_back(Stat::String(*key, *s));
        return;
      }
      plane.labels = *s;
      if (auto key = Key(plane, "labels")) {
        auto& stats = plane.plane.plane_stats;
        stats.erase(std::remove_if(stats.begin(), stats.end(), [&](const Stat& st) { return st.key() == *key; }),
                    stats.end());
        stats.push_back(Stat::String(*key, *s));
      }
    }
  } else if (name == "process_sort_index") {
    if (auto v = int_arg("sort_index")) {
      plane.sort_index = *v;
      plane.has_sort = true;
    }
  } else {
    int64_t tid = ResolveId(event.tid, false);
    auto [meta_it, added] = plane.thread_meta.try_emplace(tid);
    if (added) budget_.Charge(Growth::kLines, HashEntryBytes(sizeof(int64_t) + sizeof(PlaneState::ThreadMeta)), 0);
    PlaneState::ThreadMeta& meta = meta_it->second;
    if (name == "thread_name") {
      if (auto s = string_arg("name")) {
        meta.name = *s;
        meta.has_name = true;
      }
    } else if (auto v = int_arg("sort_index")) {
      meta.sort_index = *v;
      meta.has_sort = true;
    }
  }
}

}  // namespace tfprof
