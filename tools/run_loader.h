// Loading a run for `metrics`, `check` and `diff`: every analysis's summary
// from one pass over the hosts, one host in memory at a time.
#pragma once

#include "lib/analyze/run_metrics.h"
#include "tools/cli_common.h"

namespace tfprof::cli {

struct LoadedRun {
  RunAnalysis run;
  LoadResult loaded;
  Diagnostics diagnostics;  // The analyses'.
};

LoadedRun LoadRun(const CommonOptions& options);

}  // namespace tfprof::cli
