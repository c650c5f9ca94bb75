// The back half of the Chrome trace reader: turns decoded trace events
// (RawTraceEvent, views into the parser's buffers) into the model: planes per
// pid, lines per (pid, tid), B/E and async b/e pairing, counters, metadata
// names and sort order, and the diagnostics for whatever cannot be placed.
// Independent of the JSON parser, so it can be tested on its own.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lib/model/diagnostics.h"
#include "lib/model/model.h"
#include "lib/read/chrome_trace_arg_filter.h"
#include "lib/read/memory_budget.h"
#include "lib/read/read_options.h"

namespace tfprof {

// A trace timestamp or duration (microseconds in the JSON) split into whole
// microseconds and the picoseconds beyond them, so that a value such as
// 1667559361123456.789 keeps its sub-microsecond digits (a double would not).
struct TraceTime {
  int64_t us = 0;
  int64_t frac_ps = 0;  // [0, 1'000'000)
};

// Parses a JSON number's text (`12`, `-3.5`, `16476.700000000001`, `1e3`)
// as microseconds. Decimal text is converted digit by digit and rounded to
// the nearest picosecond (half away from zero), which is exact for the usual
// 3-decimal (ns) timestamps and undoes %.17g noise; exponent forms and
// integers over 18 digits go through a double. False when it is not a number
// or is beyond ~9e15 us.
bool ParseTraceTime(std::string_view text, TraceTime* out);

// A decoded event field holding a process or thread id.
struct TraceId {
  enum Kind : uint8_t { kMissing, kNumber, kString, kInvalid };
  Kind kind = kMissing;
  int64_t number = 0;
  std::string_view text;  // For kString.
};

struct TraceField {  // ts or dur
  enum Kind : uint8_t { kMissing, kValid, kInvalid };
  Kind kind = kMissing;
  TraceTime time;
};

struct TraceArg {
  enum Kind : uint8_t { kInt, kUint, kDouble, kString, kNull };
  std::string_view key;
  std::string_view s;  // For kString: the text (raw JSON for nested values).
  union {
    int64_t i = 0;
    uint64_t u;
    double d;
  };
  Kind kind = kNull;
};

struct RawTraceEvent {
  std::string_view ph;
  std::string_view name;
  std::string_view cat;
  bool has_cat = false;
  TraceId pid, tid;
  TraceField ts, dur;
  // "id" (or "id2"), as text: async pairing uses it, and it is kept as a stat.
  std::string_view id;
  bool has_id = false;
  bool id_is_number = false;
  // Flow v2 bindings on an event.
  std::optional<uint64_t> bind_id;
  bool flow_in = false, flow_out = false;
  std::vector<TraceArg> args;
  // Args the parser skipped unread (TraceArgFilter): counted in
  // Host::event_stats_dropped when the event is placed.
  uint32_t dropped_args = 0;
  // xprof's packed counters: {"ph":"C","event_stats":"name","entries":[[ts,v1,...],...]}.
  std::string_view event_stats;
  std::vector<TraceTime> entry_ts;
  std::vector<std::vector<TraceArg>> entry_values;
  size_t entry_count = 0;  // Rows used in entry_ts / entry_values.

  void Clear();
};

// Problems and notes the reader counts; kTraceDiagKinds in
// chrome_trace_finish.cc maps each to its kind in the catalogue
// (lib/model/diagnostic_kinds.h: "json.unmatched_end", ...).
enum class TraceDiag : uint8_t {
  kUnmatchedEnd,
  kUnclosedBegin,
  kEndArgsIgnored,
  kMissingTs,
  kBadFieldType,
  kMissingDuration,
  kNegativeDuration,
  kMissingPhase,
  kUnknownPhase,
  kUnsupportedPhase,
  kNonObjectEvent,
  kFlowEvents,
  kObjectEvents,
  kAsyncUnmatchedEnd,
  kAsyncUnclosedBegin,
  kOtherMetadata,
  kTimeOutOfRange,
  kMissingPid,
  kMissingTid,
  kNullArg,
  kTooDeep,
  kInvalidUtf8,
  kUnterminatedArray,
  kUnsortedLine,
  kTooManyStatNames,
  kLineTooLarge,
  kMaxEventsReached,
  kNumberOutOfRange,
  kHostPidShared,
  kCount
};

class ChromeTraceBuilder {
 public:
  ChromeTraceBuilder(Host& host, Diagnostics& diagnostics, const ReadOptions& options);
  ~ChromeTraceBuilder();

  void Add(const RawTraceEvent& event);
  // Device properties from a Kineto "deviceProperties" entry, matched to the
  // GPU plane whose pid is `device_id` at Finish().
  void AddDeviceProperties(int64_t device_id, DeviceProperties properties);
  // The one model every deviceProperties entry describes (name, vendor,
  // compute capability, cores, memory); none without entries or with
  // several models.
  std::optional<DeviceProperties> MachineModel() const;
  void Count(TraceDiag kind, std::string_view example = {}, uint64_t n = 1);
  // Closes what is still open, sorts and names everything, and moves the
  // planes into the host. Call once.
  void Finish();

  uint64_t events_added() const { return events_added_; }
  // Whether any element of the event arrays was an object, whatever became
  // of it (ParsedRun::any_object); and how many of a diagnostic
  // were counted so far.
  void ObjectElementsMet() { objects_met_ = true; }
  bool objects_met() const { return objects_met_; }
  uint64_t Counted(TraceDiag kind) const { return diag_counts_[static_cast<size_t>(kind)].count; }
  const std::string& FirstExample(TraceDiag kind) const { return diag_counts_[static_cast<size_t>(kind)].example; }
  // The args the parsers keep (chrome_trace_arg_filter.h); null: all.
  const TraceArgFilter* arg_filter() const { return arg_filter_.get(); }

  // Its per-process and per-thread state (chrome_trace_builder_state.h).
  struct LineState;
  struct PlaneState;

 private:
  struct RecentStrings;

  int64_t ResolveId(const TraceId& id, bool is_pid);
  PlaneState& GetPlane(const TraceId& pid);
  LineState& ThreadLine(PlaneState& plane, const TraceId& tid);
  LineState& SpecialLine(PlaneState& plane, std::string_view name);
  EventMetadataId Metadata(PlaneState& plane, std::string_view name);
  std::optional<StatKey> Key(PlaneState& plane, std::string_view name);
  // Adds a plane's new name (interned as `name`) to its name table `index`
  // and the table's cache `recent`, and charges the growth.
  template <typename Id, typename Cache>
  void IndexName(absl::flat_hash_map<std::string_view, Id>& index, Cache& recent, StringId name, Id id, Growth growth,
                 uint64_t entry_bytes);
  StringId Intern(std::string_view s);  // host_.strings.Intern, with a cache.
  void ChargeStrings();                 // What the string pool grew by, to the budget.
  bool StartPs(const TraceField& ts, int64_t* out);
  int64_t DurationPs(const RawTraceEvent& event, bool required);
  // Ends an open B/b event at `end_event`'s time (clamped to its start;
  // an out-of-range time leaves it with duration 0).
  void CloseBegin(Event& begin, const RawTraceEvent& end_event);
  bool Room();
  // Appends the event (its stats first) and returns its index in the line.
  uint32_t Push(PlaneState& plane, LineState& line, const RawTraceEvent& event, int64_t start_ps, int64_t duration_ps,
                std::string_view name, const std::vector<TraceArg>& args);
  void AppendStat(PlaneState& plane, LineState& line, std::string_view key, const TraceArg& value);

  void AddMetadata(const RawTraceEvent& event);
  void AddComplete(const RawTraceEvent& event, bool instant);
  void AddBegin(const RawTraceEvent& event);
  void AddEnd(const RawTraceEvent& event);
  void AddCounter(const RawTraceEvent& event);
  void AddAsync(const RawTraceEvent& event);
  void AddObject(const RawTraceEvent& event);
  // An instant event's start: its ts read and in range, and room for it
  // (what is wrong is counted); false: leave the event out.
  bool TimedStart(const RawTraceEvent& event, int64_t* start_ps);

  // Moves a line's events and stats from its blocks into its Line, sorted,
  // without the B/b events still open; true when they were out of order.
  // Touches nothing but the line: Finish runs it on several lines at once.
  bool Materialize(LineState& line) const;
  void MatchDevices();

  Host& host_;
  Diagnostics& diagnostics_;
  const ReadOptions& options_;
  const std::unique_ptr<TraceArgFilter> arg_filter_;
  std::vector<std::unique_ptr<PlaneState>> planes_;
  absl::flat_hash_map<int64_t, uint32_t> plane_index_;
  absl::flat_hash_map<std::string_view, int64_t> synthetic_ids_;  // String pids/tids (views into the host's pool).
  absl::flat_hash_map<int64_t, StringId> synthetic_names_;
  int64_t next_synthetic_id_;
  std::vector<std::pair<int64_t, DeviceProperties>> devices_;
  std::unique_ptr<RecentStrings> recent_strings_;

  // One-entry caches: consecutive events usually share their process and
  // thread.
  PlaneState* cached_plane_ = nullptr;
  int64_t cached_pid_ = 0;
  PlaneState* last_plane_ = nullptr;
  LineState* last_line_ = nullptr;
  int64_t last_tid_ = 0;

  // What the model and this builder's state take, charged as they grow
  // (memory_budget.h): a trace can open a process or a thread per event.
  MemoryBudget budget_;
  uint64_t strings_charged_ = 0, strings_counted_ = 0;

  bool origin_set_ = false;
  int64_t origin_us_ = 0;
  uint64_t events_added_ = 0;
  bool objects_met_ = false;
  uint64_t first_seen_ = 0;

  struct DiagCount {
    uint64_t count = 0;
    std::string example;
  };
  DiagCount diag_counts_[static_cast<size_t>(TraceDiag::kCount)];
};

}  // namespace tfprof
