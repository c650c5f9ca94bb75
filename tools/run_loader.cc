#include "tools/run_loader.h"

namespace tfprof::cli {

LoadedRun LoadRun(const CommonOptions& options) {
  LoadedRun out;
  RunMetricsCollector collector(AnalysisOptionsFrom(options));
  out.loaded = ForEachHost(options, [&](Host& host) { collector.AddHost(host, out.diagnostics); });
  out.run = collector.Finish(out.loaded.input.selected.name);
  return out;
}

}  // namespace tfprof::cli
