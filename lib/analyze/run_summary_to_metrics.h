// Every number a user may gate on in CI, under a stable dotted name
// (`overview.step_time_ms.avg`, `memory.GPU_0_bfc.peak_heap_bytes`, ...),
// from a run's summary (run_summary.h). `metrics`, `check` and `diff` read
// this; docs/metrics.md lists the catalogue below, name by name.
//
// A pure function of the RunSummary: each host was summarised by every
// analysis (op metrics and kernels, steps, memory, tf.data) and dropped
// before the next was read; only the summaries are combined here. Analyses a
// capture cannot support simply emit no metrics (no GPU: no kernel metrics;
// no steps: no step metrics; no allocator events: no memory metrics), so a
// rule on such a metric can tell "missing" from "failed".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/analyze/overview_analysis.h"
#include "lib/model/diagnostics.h"
#include "lib/model/model.h"
#include "lib/summary/analysis_options.h"
#include "lib/summary/host_summary.h"
#include "lib/summary/planes_to_step_db.h"
#include "lib/summary/run_summary.h"
#include "lib/summary/tf_data_events_to_pipelines.h"

namespace tfprof {

// One entry of the catalogue. `name` may hold one placeholder segment,
// `<memory_id>`, standing for one dotted segment of a real name.
struct MetricDef {
  std::string_view name;
  std::string_view unit;     // ms, us, %, count, bytes, bool
  std::string_view command;  // The command whose output shows the number.
  std::string_view meaning;
};

// The catalogue, in the order metrics are listed.
const std::vector<MetricDef>& MetricCatalogue();

// The catalogue entry a concrete name belongs to, or null for a name no
// analysis produces (a typo: `check` reports it as a usage error).
const MetricDef* FindMetricDef(std::string_view name);

// Units whose values are whole numbers (shown without decimals).
bool IsIntegerUnit(std::string_view unit);

struct Metric {
  std::string name;
  double value = 0;
  const MetricDef* def = nullptr;  // Unit and meaning.
};

// What one side of a comparison needs: the metrics and the combined op
// summary (op-stats and kernel-stats rows for `diff`).
struct RunAnalysis {
  std::string run;  // The run's name, for headings.
  HostSummary ops;
  Overview overview;
  std::vector<Metric> metrics;  // Catalogue order.
  // Why groups of metrics are absent: one note (shown under `metrics`)
  // covering every name that starts with one of its prefixes.
  struct Absent {
    std::vector<std::string> prefixes;
    std::string note;
  };
  std::vector<Absent> absent;

  const Metric* Find(std::string_view name) const;
  // The note explaining why `name` is absent, or "".
  std::string AbsentNote(std::string_view name) const;
};

// The run's metrics, from its summary (parts: SummaryParts::All(); a part
// left out yields no metrics of its kind).
RunAnalysis RunSummaryToMetrics(const RunSummary& run);

}  // namespace tfprof
