// tf.data bottleneck analysis, part 2: the combined per-host pipelines ->
// the `tf-data` report (column keys documented in docs/tf-data.md):
//   summary      every host input pipeline's slowest call and its bottleneck,
//                most input-bound first (the reference's bottleneck table);
//   pipelines    every input pipeline: calls and min/avg/max latency;
//   graph        the iterators of one execution as a tree, with the
//                critical path and the bottleneck marked;
//   graph_edges  parent -> child iterator edges of that graph;
// and the report graph drawn from the last two (`--format dot`).
#pragma once

#include <cstdint>
#include <string>

#include "lib/report/report.h"
#include "lib/summary/tf_data_events_to_pipelines.h"

namespace tfprof {

struct TfDataReportOptions {
  // Which pipeline to draw: "<host>/<pipeline>", "<pipeline>" or its root
  // iterator id. Empty: the most input-bound host pipeline (or, with only
  // device pipelines, the slowest one).
  std::string pipeline;
  // Which execution of it: 0 is the slowest, 1 the next, ... (the
  // reference's rank).
  int64_t execution = 0;
  bool xprof_ids = false;  // The analysis ran with TfDataOptions::xprof_ids (said in a note).
};

// Throws std::invalid_argument when `pipeline` or `execution` names nothing.
// `analysis` must be finalized (FinalizeTfData).
Report BuildTfDataReport(const TfDataAnalysis& analysis, const TfDataReportOptions& options);

}  // namespace tfprof
