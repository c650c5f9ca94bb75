// The analyses on whatever a fuzzed capture reads as: readers accept
// plenty of odd-but-valid input (events out of order, stats of unexpected
// types, steps without ends, ids that collide), and every analysis must
// cope with it. Shared by fuzz/analyses_fuzzer.cc and the regression test
// that replays the findings (tests/read/bad_inputs_test.cc).
#pragma once

#include <string_view>

#include "fuzz/fuzz_common.h"
#include "fuzz/host_check.h"
#include "lib/analyze/run_summary_to_metrics.h"
#include "lib/read/chrome_trace_reader.h"
#include "lib/read/xplane_reader.h"
#include "lib/summary/analysed_event_stats.h"
#include "lib/summary/event_grouping.h"
#include "lib/summary/host_to_run_summary.h"

namespace tfprof::fuzz {

// The event forest walked in pieces cut inside its lines, its contexts
// spread in chunks and its steps' search in two halves of the roots, on
// two threads (what a capture of 2^16 events or more takes), must group as
// one walk and one search on one thread: the same groups, the same group
// of every event, the same eager marks.
inline void CheckSplitGrouping(const Host& host, const AnalysisOptions& options) {
  Diagnostics one_diagnostics, split_diagnostics;
  GroupingRun split;
  split.threads = 2;
  split.min_parallel_events = 1;
  const EventGroups one = GroupEvents(host, one_diagnostics, options);
  const EventGroups cut = GroupEvents(host, split_diagnostics, options, split);
  if (one.groups != cut.groups || one.eager != cut.eager) std::abort();
  for (size_t p = 0; p < host.planes.size(); ++p)
    for (size_t l = 0; l < host.planes[p].lines.size(); ++l)
      for (size_t e = 0; e < host.planes[p].lines[l].events.size(); ++e)
        if (one.group.Find(p, l, e) != cut.group.Find(p, l, e)) std::abort();
}

// The first byte picks the reader (even: XSpace, odd: Chrome JSON) and the
// step options; the rest is the capture. Every analysis then runs as the
// commands run them: the host's RunSummary with every part (op metrics,
// kernels, steps, memory, tf.data), then the metrics and the overview.
inline void FuzzAnalyses(std::string_view bytes) {
  if (bytes.empty()) return;
  const unsigned char mode = static_cast<unsigned char>(bytes.front());
  bytes.remove_prefix(1);
  ExpectOnlyInputErrors([&] {
    AnalysisOptions options;
    options.compat = static_cast<Compat>((mode >> 1) % 3);
    if (mode & 8) options.whole_trace = true;
    if (mode & 16) options.step_marker = "^[a-zA-Z]+#?\\d*$";
    ReadOptions read = FuzzReadOptions();
    // An XSpace read as the report commands read it: the analysed stats
    // only, allocator events' stats as records (lib/model/allocator_stats.h),
    // in chunks of 1 to 4 events on two threads.
    // With both compat bits set (a compat mode of its own otherwise), the
    // memory profile alone: the host's other events left out where the
    // capture is grouped when taken or can have no step
    // (only_allocator_events_when_steps_allow).
    const SummaryParts parts =
        ((mode >> 1) & 3) == 3 ? SummaryParts(SummaryPart::kMemory) : SummaryParts(SummaryParts::All());
    if (!(mode & 1) && (mode & 32)) {
      read.event_stats = EventStatsFor(parts, options);
      read.max_events = 0;
      read.decode_threads = 2;
      read.decode_chunk_events = 1 + (mode >> 6);
    }
    Diagnostics diagnostics;
    Host host = (mode & 1) ? ReadChromeTraceText(bytes, "fuzz.trace.json", diagnostics, read)
                           : ReadXSpaceBytes(bytes, "fuzz.xplane.pb", diagnostics, read);
    CheckHost(host);
    CheckSplitGrouping(host, options);
    SummaryOptions summary;
    summary.analysis = options;
    summary.parts = parts;
    const RunAnalysis run = RunSummaryToMetrics(HostToRunSummary(host, summary));
    for (const Metric& m : run.metrics)
      if (m.def == nullptr) std::abort();  // Every metric is in the catalogue.
  });
}

}  // namespace tfprof::fuzz
