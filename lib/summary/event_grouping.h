// Event grouping: which step (group) each event belongs to, as the
// TensorFlow Profiler's grouping assigns `group_id`s: step roots (events with
// an `_r` stat, `TraceContext`), nesting on each thread, and the links between
// threads and to the device (ExecutorState::Process -> IteratorGetNext, a
// producer's `_p`/`_pt` to its consumer's `_c`/`_ct`, a kernel launch to its
// kernel by `correlation_id`). Captures that were grouped when they were
// taken (older TensorFlow) carry `group_id` stats, which are used as they are.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/model/diagnostics.h"
#include "lib/model/model.h"
#include "lib/summary/analysis_options.h"

namespace tfprof {

inline constexpr int32_t kNoGroup = -1;

// One bit per event, [plane][line][event]; empty when no bit is set, so a
// capture without eager execution costs nothing.
using EventBits = std::vector<std::vector<std::vector<bool>>>;

struct EventRef {
  uint32_t plane = 0, line = 0, event = 0;
  bool operator==(const EventRef&) const = default;
};

struct StepGroup {
  int64_t id = 0;
  std::string name;               // "train 5", or the group id when unnamed.
  int64_t step_number = 0;        // iter_num, step_num or the group id; N of a "<name>#<N>" marker.
  bool numbered_by_name = false;  // step_number is the N of its marker's name (ProfilerStep#12 -> 12).
  // The step's root event, when it names the step (a user or Keras step
  // marker, not an implicit root such as FunctionRun): the reference gives
  // it a step_name stat.
  std::optional<EventRef> named_root;
  bool operator==(const StepGroup&) const = default;
};

// Each event's group id, or kNoGroup, by (plane, line, event), in one
// array rather than a vector per line: the forest labels its nodes in one
// array, which becomes this one as it is (no second copy of 4 bytes an
// event). A line's ids are one run of the array; the runs may come in any
// order.
class EventGroupIds {
 public:
  // Every event of the host, in group `id` (lines in plane order).
  void Reset(const Host& host, int32_t id = kNoGroup);
  // Takes `ids`, which holds, one line after another, the events of
  // `lines` (plane, line) in that order; the host's other lines follow, in
  // no group. Reserving `ids` for all the host's events spares a copy.
  void Adopt(const Host& host, std::vector<int32_t> ids, const std::vector<std::pair<uint32_t, uint32_t>>& lines);

  int32_t Of(size_t plane, size_t line, size_t event) const { return ids_[lines_[plane][line].begin + event]; }
  int32_t& At(size_t plane, size_t line, size_t event) { return ids_[lines_[plane][line].begin + event]; }
  // Of, or kNoGroup for a place that is no event here (nothing was grouped).
  int32_t Find(size_t plane, size_t line, size_t event) const {
    if (plane >= lines_.size() || line >= lines_[plane].size() || event >= lines_[plane][line].size) return kNoGroup;
    return Of(plane, line, event);
  }
  std::span<const int32_t> Line(size_t plane, size_t line) const {
    return {ids_.data() + lines_[plane][line].begin, lines_[plane][line].size};
  }
  std::span<int32_t> Line(size_t plane, size_t line) {
    return {ids_.data() + lines_[plane][line].begin, lines_[plane][line].size};
  }

 private:
  struct Run {
    size_t begin = 0, size = 0;
  };
  std::vector<int32_t> ids_;
  std::vector<std::vector<Run>> lines_;  // [plane][line]
};

// Below this many events the event forest is built on one thread:
// starting a thread costs more than the work.
inline constexpr size_t kMinParallelGroupingEvents = size_t{1} << 16;

// How GroupEvents may run, for a caller with a CPU to spare.
struct GroupingRun {
  // How many threads may build the event forest (the caller's among them).
  size_t threads = 1;
  // With more than one thread: when the events are grouped through the
  // forest, their eager marks are made beside the steps and handed here,
  // from another thread, as soon as they are made (the result's `eager`
  // then stays empty). Not called otherwise: the marks are the result's.
  std::function<void(EventBits&&)> eager_ready;
  // Whether to mark eager events at all (the memory profile needs only the
  // groups): without, `eager` stays empty and eager_ready is never called.
  bool eager = true;
  // With fewer events than this the forest is built on one thread. Tests
  // and the fuzzer make it small, so that tiny captures are walked in
  // pieces cut inside their lines: the groups are the same for any split.
  size_t min_parallel_events = kMinParallelGroupingEvents;
};

struct EventGroups {
  EventGroupIds group;
  std::vector<StepGroup> groups;  // By id (groups[i].id == i when grouped here).
  bool from_capture = false;      // The capture carried group_id stats.
  bool whole_trace = false;       // --whole-trace: one step of everything.
  bool from_marker = false;  // Steps from named markers (--step-marker, --steps-between, or PyTorch's ProfilerStep#N).
  // Why there are no groups (empty when there are): no step roots, TF loop
  // ops present, ...
  std::string no_groups_reason;
  // How the steps were found when that is not the capture's own step
  // markers: e.g. PyTorch's ProfilerStep#N taken as the steps by default.
  std::string note;
  // Per group: the step's span (start, end ps), when the capture says it
  // rather than markers: a TensorFlow 1 timeline's session.run
  // (tf1_timeline_steps.h). Empty otherwise.
  std::vector<std::pair<int64_t, int64_t>> step_spans;
  // Per group: the host window of --steps-between (steps_between.h), from
  // one marker's start to the next's. Unlike step_spans it is the step's
  // host span only: the step also spans the device work it launched.
  std::vector<std::pair<int64_t, int64_t>> marker_windows;
  // Which events ran eagerly (op by op, not in a tf.function), as the
  // reference's grouping marks them with an is_eager stat: TF ops and GPU
  // kernels whose nearest EagerExecute ancestor (itself included) has
  // is_func = 0. Empty when none did, and for captures grouped when they
  // were taken (their own is_eager stats say it).
  EventBits eager;

  int32_t Of(size_t plane, size_t line, size_t event) const { return group.Of(plane, line, event); }
  bool empty() const { return groups.empty(); }
};

// With options.steps_between, the steps are the windows between the host
// events whose name matches it (GroupStepsBetween); with options.step_marker,
// the events whose name matches it are the step
// roots (the capture's own markers are ignored); with options.whole_trace,
// every event is in one step. Without either, a TensorFlow 1 timeline has
// one step per session.run (GroupTf1SessionRuns). Without either, a capture with no TensorFlow
// step markers whose host has PyTorch's `ProfilerStep#N` annotations is
// grouped as with --step-marker '^ProfilerStep#\d+$' (said in `note`).
// A step marker named "<name>#<N>" names the step so and numbers it N.
// Throws std::invalid_argument for a bad --step-marker or --steps-between
// (NameRegex).
EventGroups GroupEvents(const Host& host, Diagnostics& diagnostics, const AnalysisOptions& options = {},
                        const GroupingRun& run = {});

// The events of a GPU plane's own lines (not the derived ones) as (line,
// event), by start, the longer first at the same start: the order in which a
// device event that no link reached takes the step of the one before it.
std::vector<std::pair<uint32_t, uint32_t>> DeviceEventsInStartOrder(const Plane& plane);

// Only the eager marks of GroupEvents, for the op stats of commands that find
// no steps. `even_if_grouped`: mark a capture grouped when it was taken too
// (tests compare the marks with the is_eager stats TensorFlow wrote then).
// `threads`: how many threads may build the forest (the caller's among them).
EventBits MarkEagerEvents(const Host& host, bool even_if_grouped = false, size_t threads = 1);
// Whether any plane names an event EagerExecute: the events whose
// descendants are marked eager. Without one, every EventBits grouping or
// MarkEagerEvents makes is empty (PyTorch traces, TF2 graphs whose
// "EagerExecute: <op>" events are another name).
bool HasEagerExecute(const Host& host);
// Whether an event of this name is an EagerExecute (HasEagerExecute).
bool IsEagerExecuteName(std::string_view name);

}  // namespace tfprof
