#include "lib/summary/host_to_run_summary.h"

#include <atomic>
#include <exception>
#include <future>
#include <optional>

#include "lib/summary/event_grouping.h"
#include "lib/util/phase_times.h"

namespace tfprof {
namespace {

// What the second thread makes: the parts that need no grouping (kernels,
// tf.data) and the op metrics, which need the grouping's eager marks.
struct SideParts {
  KernelStatsDb kernels;
  std::optional<HostSummary> ops;
  std::optional<TfDataHost> tf_data;
  OpMetricsDiagnostics ops_diagnostics;
  Diagnostics tf_data_diagnostics;
};

}  // namespace

// The parts are independent reads of one const Host, so they run on two
// threads: this one groups the events and builds the steps and the memory
// profile (both need the groups); the other builds the kernel stats, the
// tf.data analysis and then the op metrics, which wait for the grouping
// only when they need its eager marks. Each part writes its own
// diagnostics, kept apart by part (PartDiagnostics) and merged when read in
// the order one thread would have made them (grouping, ops, steps, memory,
// tf.data), so the result does not depend on timing.
RunSummary HostToRunSummary(const Host& host, const SummaryOptions& options) {
  RunSummary out;
  out.parts = options.parts;
  out.options = options.analysis;
  HostPartials& p = out.hosts.emplace_back();
  p.order = options.order;
  p.source = options.source;
  p.host = host.name;
  p.format = host.format;
  const SummaryParts parts = options.parts;
  const AnalysisOptions& analysis = options.analysis;

  // Steps always need the grouping; the memory profile only for a host with
  // allocator events (so `memory` on a host without them groups nothing, and
  // reports nothing grouping met); the op metrics reuse its eager marks.
  std::optional<EventGroups> groups;
  // Marks come only from events named EagerExecute: without one, the op
  // metrics take none at once instead of waiting for the grouping.
  const bool may_mark_eager = parts.Has(SummaryPart::kEagerMarks) && HasEagerExecute(host);
  const bool ops_need_groups = may_mark_eager && parts.Has(SummaryPart::kSteps);
  // The grouping's eager marks, for the op metrics: handed over by the
  // grouping as soon as they are made, or with the groups. Exactly once.
  EventBits eager_marks;
  std::promise<const EventBits*> eager_made;
  std::shared_future<const EventBits*> eager_ready = eager_made.get_future().share();
  std::atomic<bool> eager_handed{false};
  auto hand_eager = [&](const EventBits* bits) {
    if (!eager_handed.exchange(true)) eager_made.set_value(bits);
  };

  Diagnostics grouping_diagnostics, steps_diagnostics, memory_diagnostics;
  // The memory profile without steps groups a TensorFlow host only for its
  // allocator events' steps, which it asks for once their snapshots are
  // collected: that grouping starts now, beside the collection.
  std::future<EventGroups> memory_groups;
  // Its forest is walked on both threads: the profile's thread waits for
  // it once the snapshots are collected. It needs no eager marks.
  if (parts.Has(SummaryPart::kMemory) && !parts.Has(SummaryPart::kSteps) && MemoryProfileGroups(host))
    memory_groups = std::async(std::launch::async, [&] {
      GroupingRun run;
      run.threads = 2;
      run.eager = false;
      return GroupEvents(host, grouping_diagnostics, analysis, run);
    });
  // Without steps or a memory profile this thread has no grouping to do:
  // it makes the kernel stats, so that they and the op metrics run side by
  // side (op-stats, kernel-stats, placement).
  const bool kernels_here = !parts.Has(SummaryPart::kSteps) && !parts.Has(SummaryPart::kMemory);
  // Whether the side thread has work of its own while this one groups.
  const bool side_busy =
      parts.Has(SummaryPart::kKernels) || parts.Has(SummaryPart::kHostOps) || parts.Has(SummaryPart::kTfData);
  auto side = std::async(std::launch::async, [&]() {
    SideParts s;
    PhaseTimer kernels_phase("summary: kernel stats");
    if (parts.Has(SummaryPart::kKernels) && !kernels_here) s.kernels = HostKernelStats(host, analysis);
    kernels_phase.Stop();
    PhaseTimer tf_data_phase("summary: tf.data");
    if (parts.Has(SummaryPart::kTfData)) {
      TfDataOptions tf_data;
      // --compat xprof reads iterator ids as xprof does.
      tf_data.xprof_ids = analysis.xprof();
      s.tf_data = SummarizeTfData(host, tf_data, s.tf_data_diagnostics);
    }
    tf_data_phase.Stop();
    if (parts.Has(SummaryPart::kKernels) || parts.Has(SummaryPart::kHostOps)) {
      // Without eager marks: none (kernel-stats and placement show no
      // execution mode, and marking needs the event forest; nor are there
      // any to make without an EagerExecute event). With them and no
      // grouping to reuse: marked alone (MarkEagerEvents, cheaper than
      // grouping, and met with no grouping diagnostics).
      static const EventBits kNoMarks;
      const EventBits* eager = &kNoMarks;
      if (may_mark_eager) eager = ops_need_groups ? eager_ready.get() : nullptr;
      PhaseTimer ops_phase("summary: op metrics");
      OpMetricsSides sides;
      sides.host_threads = parts.Has(SummaryPart::kHostOps);
      sides.devices = parts.Has(SummaryPart::kKernels);
      // Marked alone (no grouping here): this thread's forest is built on
      // both, the other having at most the kernel stats to make.
      s.ops = SummarizeHostOpMetrics(host, s.ops_diagnostics, analysis, eager, sides, 2);
    }
    return s;
  });

  // The side thread may wait for the eager marks: they are handed over on
  // every path, a throw included.
  try {
    PhaseTimer grouping_phase("summary: grouping");
    if (parts.Has(SummaryPart::kSteps)) {
      // The forest is built on both threads whenever the side thread has
      // nothing to do meanwhile: when the op metrics wait for the eager
      // marks (made there while the steps are grouped here), and when it
      // has no work at all (steps, hosts, trace: on one thread, `steps` of
      // a 1 GB current-TF capture spent 3.0 s grouping with a core idle).
      GroupingRun run;
      run.eager = ops_need_groups;  // Only the op metrics read them.
      run.threads = ops_need_groups || !side_busy ? 2 : 1;
      if (ops_need_groups) {
        run.eager_ready = [&](EventBits&& bits) {
          eager_marks = std::move(bits);
          hand_eager(&eager_marks);
        };
      }
      groups = GroupEvents(host, grouping_diagnostics, analysis, run);
    }
    grouping_phase.Stop();
    hand_eager(groups ? &groups->eager : nullptr);
  } catch (...) {
    if (!eager_handed.exchange(true)) eager_made.set_exception(std::current_exception());
    side.wait();
    throw;
  }
  std::exception_ptr failed;
  KernelStatsDb kernels;
  try {
    PhaseTimer kernels_phase("summary: kernel stats (this thread)");
    if (parts.Has(SummaryPart::kKernels) && kernels_here) kernels = HostKernelStats(host, analysis);
    kernels_phase.Stop();
    PhaseTimer steps_phase("summary: steps");
    if (parts.Has(SummaryPart::kSteps)) p.steps = BuildStepDb(host, *groups, analysis, steps_diagnostics);
    steps_phase.Stop();
    PhaseTimer memory_phase("summary: memory profile");
    if (parts.Has(SummaryPart::kMemory)) {
      // Without steps, the profile groups only when it needs to; what that
      // grouping meets is the grouping's diagnostics all the same.
      auto grouped = [&]() -> const EventGroups& {
        p.diagnostics.memory_grouped = true;
        if (!groups) {
          GroupingRun run;
          run.eager = false;  // Only the steps of the allocator events.
          groups = memory_groups.valid() ? memory_groups.get() : GroupEvents(host, grouping_diagnostics, analysis, run);
        }
        return *groups;
      };
      MemoryProfileOptions memory = MemoryProfileOptionsFor(analysis.compat);
      memory.timeline_points = options.memory_timeline_points;
      p.memory = BuildMemoryProfile(host, memory, memory_diagnostics, grouped);
    }
  } catch (...) {
    failed = std::current_exception();
  }
  SideParts s = side.get();  // Rethrows what the side thread threw.
  if (failed) std::rethrow_exception(failed);

  PartDiagnostics& diagnostics = p.diagnostics;
  diagnostics.grouping = std::move(grouping_diagnostics);
  if (s.ops) {
    p.ops = std::move(*s.ops);
    p.ops.kernels = kernels_here ? std::move(kernels) : std::move(s.kernels);
  }
  diagnostics.ops = std::move(s.ops_diagnostics.all);
  diagnostics.ops_host = std::move(s.ops_diagnostics.host_threads);
  diagnostics.ops_device = std::move(s.ops_diagnostics.devices);
  diagnostics.ops_by_side = true;
  diagnostics.steps = std::move(steps_diagnostics);
  diagnostics.memory = std::move(memory_diagnostics);
  if (s.tf_data) p.tf_data = std::move(*s.tf_data);
  diagnostics.tf_data = std::move(s.tf_data_diagnostics);
  return out;
}

}  // namespace tfprof
