// tf.data bottleneck analysis, part 1: one host's `Iterator::...` events ->
// that host's input pipelines, each with every execution (call) analysed.
//
// The result (HostTfData) is small and self-contained, so a multi-host run
// is analysed one host at a time: summarise a host, drop its events, and
// combine the summaries (CombineTfData, in the same order the hosts were
// read). tf_data_pipelines_to_report.h turns the combination into a Report.
//
// The algorithm follows the TensorFlow Profiler's tf_data_bottleneck_analysis
// (docs/tf-data.md):
//  * every `Iterator::<X>` event (two `::` parts) is one call of the input
//    pipeline whose id is that root iterator's `id`;
//  * an iterator's children are the iterator events nested in it on its
//    thread, plus, for asynchronous iterators, the producer-side iterator
//    events that made the elements it consumed (matched through the
//    <Kind>Produce / <Kind>Consume events' `element_id`);
//  * self time = duration minus the overlap with each child; a child is on
//    the critical path ("blocking") when its parent is and they overlap;
//  * the bottleneck of a call is the blocking iterator with the most self
//    time, and the analysis reports the bottleneck of each pipeline's
//    slowest call.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "lib/model/diagnostics.h"
#include "lib/model/model.h"

namespace tfprof {

// A call slower than this is "slow" (the reference's threshold, from
// https://www.tensorflow.org/guide/data_performance_analysis).
inline constexpr int64_t kTfDataSlowCallPs = 50'000'000;

struct TfDataOptions {
  // Read iterator ids exactly as the TensorFlow Profiler does: it reads only
  // the signed form of the `id`/`parent_id` stats, so an id written unsigned
  // (every id of 2^63 or more, about half of TF's hashed iterator ids) reads
  // as 0 and all such iterators merge into one. Off by default: we read both
  // forms. On for parity checks against the reference.
  bool xprof_ids = false;
};

struct TfDataIterator {
  uint64_t id = 0;
  uint64_t parent_id = 0;  // 0: none (a root iterator).
  std::string name;        // Last `::` component, e.g. "MapAndBatch".
  std::string long_name;   // The full event name, e.g. "Iterator::Root::MapAndBatch".
  bool is_async = false;   // One of the reference's asynchronous kinds (Prefetch, MapAndBatch, ...).
};

// One iterator's share of one execution of a pipeline.
struct TfDataIteratorCall {
  uint64_t id = 0;
  int64_t start_ps = 0;     // Start of its first event reached in this execution (TfDataHost::clock).
  int64_t duration_ps = 0;  // Sum over its events in this execution.
  int64_t self_ps = 0;      // Sum of (duration - overlap with child iterators).
  int64_t calls = 0;        // Events of this iterator reached from the root.
  bool blocking = false;    // On the critical path of this execution.
};

// One call of an input pipeline: one root iterator event and what it reached.
struct TfDataExecution {
  int64_t start_ps = 0;
  int64_t duration_ps = 0;                    // The pipeline latency of this call.
  std::vector<TfDataIteratorCall> iterators;  // By id ascending.
  uint64_t bottleneck_id = 0;
  int64_t bottleneck_self_ps = 0;
  bool has_bottleneck = false;  // False when no blocking iterator had any self time.
};

enum class TfDataPipelineKind { kHost, kDevice };

struct TfDataPipeline {
  uint64_t root_id = 0;
  TfDataPipelineKind kind = TfDataPipelineKind::kHost;
  std::string name;    // "Host:<k>" or "Device:<k>", k counted per kind and host by root id.
  std::string source;  // The capture file's host that contributed it first.
  int64_t min_ps = 0, avg_ps = 0, max_ps = 0;
  int64_t slow_calls = 0;  // Calls over kTfDataSlowCallPs.
  // Slowest first (stable for equal durations). After combining two hosts of
  // the same name this is the first host's list followed by the second's, as
  // in the reference (see CombineTfData).
  std::vector<TfDataExecution> executions;
};

struct TfDataHost {
  std::string host;               // As the reference names it: XSpace.hostnames[0], else the file's host.
  std::string source;             // The capture file's host name (comma-joined after merges).
  bool named_by_capture = false;  // `host` came from XSpace.hostnames, not the file name.
  // Older TF writes iterator ids as signed numbers (some negative), newer TF
  // as unsigned ones; ids are shown the way the capture wrote them.
  bool signed_ids = false;
  std::map<uint64_t, TfDataIterator> iterators;  // First occurrence of each id wins.
  std::vector<TfDataPipeline> pipelines;         // By root id ascending.
  // What the analysis met, for notes and tests.
  uint64_t iterator_events = 0;
  uint64_t unsigned_ids = 0;           // Events whose id or parent_id is stored unsigned (>= 2^63).
  uint64_t linked_producers = 0;       // Producer iterator events linked to a consumer.
  uint64_t unmatched_consumes = 0;     // Consume events with no producer in the capture.
  uint64_t visit_limit_hits = 0;       // Executions cut short by the depth limit.
  uint64_t shared_producer_links = 0;  // Producer links not made: the producer already had a consumer.
  bool has_host_plane = false;
  // Times are on the capture's own clock (ps) when it fits in 64 bits, as
  // the reference shows them (recent TF normalises it to the profile start);
  // otherwise (an epoch clock) relative to the host's first line.
  bool absolute_clock = true;
};

// Analyses one host's /host:CPU plane. Never throws for odd data: events
// without the stats the analysis needs are skipped and counted.
TfDataHost SummarizeTfData(const Host& host, const TfDataOptions& options, Diagnostics& diagnostics);
// Whether SummarizeTfData gives events of this name a role (an iterator, a
// device generator, a producer or consumer of elements). Where a plane has
// one, every event of it matters: an event's parent is the nearest event
// containing it, whatever that one is.
bool IsTfDataEventName(std::string_view name);

struct TfDataBottleneck {
  std::string host;
  std::string pipeline;  // Pipeline name.
  uint64_t root_id = 0;
  std::string root_id_text;  // As the capture wrote it.
  int64_t max_latency_ps = 0;
  uint64_t iterator_id = 0;
  std::string iterator_name;  // Empty when the slowest call had no bottleneck.
  std::string iterator_long_name;
  int64_t iterator_self_ps = 0;
};

// Every host's summary, combined the way the reference combines hosts.
struct TfDataAnalysis {
  std::vector<TfDataHost> hosts;          // In the order first seen.
  std::vector<std::string> merged_hosts;  // Host names that more than one capture file carried.
  // Filled by FinalizeTfData: every HOST pipeline's slowest call, slowest
  // pipeline first (DEVICE pipelines are left out, as in the reference).
  std::vector<TfDataBottleneck> bottlenecks;
  bool input_bound = false;  // The slowest host pipeline call took over 50 us.
  bool finalized = false;

  uint64_t IteratorEvents() const;
};

// Adds one host. A host whose name is already present is merged into it
// exactly as the reference does: iterators and pipelines not yet known are
// added, a known pipeline gets the new calls appended after its own, and its
// min/avg/max/slow-call figures are replaced by the new host's.
void CombineTfData(TfDataAnalysis& analysis, TfDataHost host);

// Ranks the bottlenecks and sets input_bound; call once after the last host.
void FinalizeTfData(TfDataAnalysis& analysis);

// An iterator id as the capture wrote it (see TfDataHost::signed_ids).
std::string TfDataIdText(uint64_t id, bool signed_ids);

// The reference's advice category for an iterator's short name.
enum class TfDataBottleneckKind {
  kSlowSource,
  kSlowDataService,
  kSlowRemoteSource,
  kTransformationWithParallelVersion,
  kTransformationWithoutParallelVersion,
  kOther,
};
TfDataBottleneckKind ClassifyTfDataBottleneck(std::string_view iterator_name);
std::string_view TfDataBottleneckKindName(TfDataBottleneckKind kind);
// The reference's suggestion, as plain text (its links written out).
std::string TfDataAdvice(TfDataBottleneckKind kind);

}  // namespace tfprof
