// Loading what the overview and input-pipeline commands need, one host at a
// time: the op summary and the steps of every host.
#pragma once

#include "lib/analyze/overview_analysis.h"
#include "tools/cli_common.h"

namespace tfprof::cli {

struct LoadedOverview {
  Overview overview;
  LoadResult loaded;
  Diagnostics diagnostics;
};

LoadedOverview LoadOverview(const CommonOptions& options);

}  // namespace tfprof::cli
