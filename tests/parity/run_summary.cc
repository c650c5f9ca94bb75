#include "tests/parity/run_summary.h"

#include "lib/read/capture_discovery.h"
#include "lib/read/capture_loader.h"

namespace tfprof::parity {

HostSummary SummarizeRun(const std::string& path, const AnalysisOptions& options) {
  DiscoveredInput input = DiscoverInput(path, "", /*keep_duplicates=*/options.xprof());
  HostSummary combined;
  bool first = true;
  Diagnostics diag;
  for (const CaptureFile& f : input.selected.files) {
    Host host = LoadCapture(f, diag);
    HostSummary s = SummarizeHostOps(host, diag, options);
    if (first) combined = std::move(s);
    else CombineHostSummaries(combined, s);
    first = false;
  }
  return combined;
}

}  // namespace tfprof::parity
