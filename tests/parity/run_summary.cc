#include "tests/parity/run_summary.h"

#include "lib/read/capture_discovery.h"
#include "lib/summary/analysed_event_stats.h"
#include "lib/summary/captures_to_run_summary.h"
#include "lib/summary/run_summary_combine.h"

namespace tfprof::parity {

RunSummary LoadRun(const std::string& path, SummaryParts parts, const AnalysisOptions& options) {
  const DiscoveredInput input = DiscoverInput(path, "", /*keep_duplicates=*/options.xprof());
  SummaryOptions summary;
  summary.analysis = options;
  summary.parts = parts;
  // Read as the commands read: only the event stats the parts' analyses read.
  RunReadOptions read;
  read.read.event_stats = EventStatsFor(parts, options);
  return CapturesToRunSummary(input, read, summary);
}

HostSummary SummarizeRun(const std::string& path, SummaryParts parts, const AnalysisOptions& options) {
  return CombineHostOps(LoadRun(path, parts, options));
}

}  // namespace tfprof::parity
