#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tfprof {

// Which event stats a reader keeps (plane and event-metadata stats are
// always kept: they are few). Commands that show raw stats keep all; those
// that only analyse keep the names their analyses read
// (lib/summary/analysed_event_stats.h), a fraction of the model's memory.
// What is dropped is counted (Host::event_stats_dropped).
struct EventStatFilter {
  bool keep_all = true;
  // Without keep_all: the names kept (views of static storage).
  std::vector<std::string_view> names;
  // False: the events of lines the profiler derived from others
  // (schema::IsDerivedLineId: TensorFlow Ops, Name Scope, XLA Ops on a
  // GPU, often half its events) are left unread, but for the device
  // Steps line. No analysis reads them: each skips them so as not to count
  // an op twice. The XSpace reader jumps over such a line's events without
  // framing them where the line's id and timestamp come first (as writers
  // put them), and counts the lines in Host::derived_lines_skipped.
  // Commands that show lines keep them.
  bool keep_derived_line_events = true;
  // False: the same for every line of the host-threads plane (/host:CPU),
  // for a command that reads only the devices (kernel-stats), most of a TF
  // GPU capture's bytes. Counted in Host::host_thread_lines_skipped.
  bool keep_host_thread_events = true;
  // False: the same for every line of a device plane (/device:GPU:0,
  // /device:TPU:0, ...) but its Steps line, for a command that reads only
  // the host threads (memory: TF's allocator events are the host's, and
  // the host's step groups do not depend on device events, which only join
  // the groups of their launches: TF writes root (_r), producer/consumer
  // and group_id stats on host events, and step names on the device's Steps
  // line, which is read). What is said of device events is then not said:
  // grouping's count of kernels without a launch, the reader's notes on
  // device lines. Counted in Host::device_lines_skipped.
  bool keep_device_events = true;
  // False: the host-threads plane's allocator events (MemoryAllocation,
  // MemoryDeallocation: schema::IsAllocatorEvent) are framed but left out
  // of their lines, for commands that build no memory profile. In a TF GPU
  // capture they are about half the host's events and most of its bytes
  // (a dozen stats each). An event is left out when its metadata id is its
  // first field, as every writer puts it (protobuf writes fields in
  // number order); one in another order is decoded and kept. A line cut by
  // --max-events keeps them all. Counted in Host::allocator_events_skipped
  // (where use_without_steps's rule leaves a plane's events out, they are
  // among its events, left out by name whatever their stats).
  bool keep_allocator_events = true;

  // Without keep_all: names kept on other events but left out of the
  // host's allocator events (schema::IsAllocatorEvent) that are read,
  // because no analysis reads them there. TensorFlow writes its pending
  // step `id` on every allocator event (one of a dozen stats: at 1 GB 4.2 M
  // stats, 48 MiB of `memory`'s peak); grouping reads `id` on executor,
  // iterator and captured-function events, and on step roots (events with
  // an `_r` stat, which TensorFlow never writes on an allocator event: one
  // that had both would be a root not checked against tf.data's function
  // ids, as commands that leave allocator events out do not see it at all).
  // As with keep_allocator_events, an event whose metadata id is not its
  // first field keeps them.
  std::vector<std::string_view> not_on_allocator_events;
  // Without keep_all: the host's allocator events that are read keep their
  // own stats (AllocatorFieldOf names) typed, one record per event
  // (Plane::allocator_records), not in their lines' stat pools: for
  // commands that build a memory profile, the only reader of those stats.
  // An event whose metadata id is not its first field keeps them in the
  // pool (the memory profile reads either).
  bool allocator_records = false;
  // True (the memory profile alone, on its default steps): on a
  // host-threads plane that defines a group_id stat (a capture grouped when
  // taken, whose steps are the events' own group ids), the events that are
  // not allocator events are framed but left out of their lines when all
  // the profile could read of them is their group id, kept aside
  // (Plane::left_out_group_ids), so the steps come out as with every event
  // read. An event that names a step (step_name), has more than one
  // group_id or one not stored as an integer, holds a field other than its
  // times and stats, or a stat other than a metadata id and one value
  // field (a reference to a defined stat), is decoded and kept. What the
  // reader would say of an event left out goes unsaid, as for
  // keep_allocator_events and the devices' events (a negative duration, a
  // time out of range, a line out of order only by it, a string's bytes). Nothing is left out under --max-events. The
  // reader reads the capture again with every event when what it kept
  // could group otherwise (no event left out had a group id and some
  // plane's names may give the host steps, or the plane holds a TF1
  // session.run line). Counted in Line::events_left_out. In
  // the T4 capture these are 60% of the host's events: `memory` 5% fewer
  // instructions, peak 104 -> 77 MiB at 103 MiB and 936 -> 668 MiB at 1 GB.
  // (On a plane whose names give the host no step, what is left out is
  // use_without_steps's: for the memory profile alone, every event but the
  // allocator events.)
  bool only_allocator_events_when_steps_allow = false;

  // Without keep_all (set by lib/summary/events_read_without_steps.h for
  // the command's analyses): what they read of a host-threads plane whose
  // names give its host no step (schema::PlaneMayHaveSteps: no group_id or
  // root-level stat, no root's name, no ProfilerStep#N: every JAX capture,
  // whose Python tracer line is most of its host's events). Grouping
  // finds no step there and builds no event forest, so an analysis reads
  // such a plane's events only by their names or by a few stats; every
  // other event is framed but left out of its line. Per event name (and
  // display name): kRead, kUnread, or kWholePlane where an analysis reads
  // the plane's every event (tf.data's nesting, an EagerExecute's forest):
  // nothing is left out of that plane. Null: nothing is left out so. For a
  // command none of whose analyses groups, the same on every host
  // (analyses_group below).
  enum class StepLessUse : uint8_t { kUnread, kRead, kWholePlane };
  using StepLessUseOfName = StepLessUse (*)(uint32_t parts, std::string_view name, std::string_view display_name);
  StepLessUseOfName use_without_steps = nullptr;
  uint32_t use_parts = 0;  // The parts use_without_steps is asked for.
  // An event of an unread name that carries one of these stats is read
  // all the same (XLA:CPU ops' hlo_op, a launch's correlation_id, ...);
  // so is one whose stats the pre-scan cannot tell apart as protobuf's
  // writers put them (PlaneContext::OnlyGroupLeft). None: decided on the
  // name alone, the stats unread. What the reader would say of an event
  // left out goes unsaid, as for keep_allocator_events. Nothing is left
  // out under --max-events, nor when the events are streamed. The host is
  // read again whole when another plane's names may give it steps
  // (schema::HostMayHaveSteps) or ask for a whole plane. Counted in
  // Line::events_left_out and Host::events_left_out_without_steps.
  std::vector<std::string_view> stats_read_without_steps;
  // Whether an analysis of the command groups events into steps (the step
  // analysis, the memory profile's steps). Where none does, no analysis
  // follows an event's nesting or links on any host (the eager marks do,
  // but only from an EagerExecute, whose name keeps its plane whole), so
  // use_without_steps's rule applies to every host-threads plane, whatever
  // its names say of steps (placement, tf-data, op-stats), and steps found
  // elsewhere ask for no second read.
  bool analyses_group = true;
  StepLessUse UseWithoutSteps(std::string_view name, std::string_view display_name) const {
    return use_without_steps ? use_without_steps(use_parts, name, display_name) : StepLessUse::kWholePlane;
  }

  static EventStatFilter Only(std::vector<std::string_view> kept) { return {false, std::move(kept)}; }
  // Every event of every line decoded (whatever stats are kept): for
  // commands that count or show events.
  void KeepEveryEvent() {
    keep_derived_line_events = true;
    keep_host_thread_events = true;
    keep_device_events = true;
    keep_allocator_events = true;
    only_allocator_events_when_steps_allow = false;
    use_without_steps = nullptr;
  }
  bool Keeps(std::string_view name) const {
    return keep_all || std::find(names.begin(), names.end(), name) != names.end();
  }
};

struct ReadOptions {
  // Stop reading after this many events per host (0: no limit). The cap is
  // reported as a diagnostic, never applied silently.
  uint64_t max_events = 0;
  // Refuse to inflate a gzip capture beyond this many bytes (gzip bombs).
  // --max-inflated-mb; lowered further by CheckMemoryFor (memory_guard.h).
  uint64_t max_inflated_bytes = uint64_t{64} << 30;
  // Set when CheckMemoryFor lowered max_inflated_bytes to fit the memory.
  bool inflate_limit_from_memory = false;
  // Memory the model may take while it is read (0: no limit): the readers
  // charge what they allocate against it (memory_budget.h) and stop with
  // exit 3 past it. Set by CheckMemoryFor from TFPROF_MEMORY_LIMIT (then
  // memory_limit_from_env) or the memory available. --max-events does not
  // lift it.
  uint64_t memory_limit_bytes = 0;
  bool memory_limit_from_env = false;
  // The default keeps everything, so no reader or caller loses a stat
  // unless it asks to. The XSpace reader applies all of it; the Chrome
  // trace reader its names, to the args of events other than metadata and
  // counters (chrome_trace_arg_filter.h), and none of the line rules.
  EventStatFilter event_stats;
  // How the XSpace reader splits a plane's decoding (0: its own choice):
  // events per chunk, and decoding threads (given, even a small plane is
  // decoded on them). For tests, to run the threads and lines of many
  // chunks on small captures; the model read is the same either way.
  size_t decode_chunk_events = 0;
  size_t decode_threads = 0;
  // Lines of at least this many bytes join their stats as their chunks
  // decode (xplane_chunk_pipeline.h); 0: the reader's own size.
  uint64_t decode_early_join_bytes = 0;
  // The pre-scan waits for each chunk it hands over to be decoded (on
  // two threads or more): every chunk of a long line is then decoded
  // before the line is counted, the early arrays' hardest case.
  bool decode_in_turn = false;
  // Leaving events out by groups (EventStatFilter::
  // only_allocator_events_when_steps_allow), the decoders go from one kept
  // event to the next by the offsets the pre-scan noted; false (for
  // tests) frames every event of the chunk again, skipping those marked
  // left out, as for a chunk whose kept events lie 4 GiB or more past its
  // start (LeftOutEvents::kept_at). The model read is the same either way.
  bool decode_kept_by_offsets = true;
  // How far the pre-scan may run ahead of the decoding, in wire bytes,
  // before its thread decodes too (xplane_chunk_pipeline.h); 0: the
  // reader's own. Tests make it a byte.
  uint64_t decode_lead_bytes = 0;

  // The error text for content that inflates beyond the limit.
  std::string InflateLimitProblem() const {
    std::string mib = std::to_string(max_inflated_bytes >> 20) + " MiB";
    if (inflate_limit_from_memory)
      return "gzip content inflates beyond " + mib + ", more than this machine's available memory allows reading" +
             " (a gzip bomb, or a capture too large for this machine)";
    return "gzip content inflates beyond the " + mib + " limit (a gzip bomb? raise it with --max-inflated-mb)";
  }
};

}  // namespace tfprof
