#include "tools/run_summary_loader.h"

#include "lib/read/capture_discovery.h"
#include "lib/summary/captures_to_run_summary.h"

namespace tfprof::cli {

RunSummary LoadRunSummary(const CommonOptions& o, SummaryParts parts, const EventStatFilter& event_stats,
                          const std::function<void(const Host&)>& visit) {
  SummaryOptions summary;
  summary.analysis = AnalysisOptionsFrom(o);  // Before reading: a bad regular expression is a usage error first.
  summary.parts = parts;
  Guard().AddInput(o.path);  // Before discovery: a refused output fails before anything is read.
  // xprof reads byte-identical host files twice; so does --compat xprof.
  const DiscoveredInput input = DiscoverInput(o.path, o.run, /*keep_duplicates=*/o.compat == "xprof");
  Guard().AddInput(input.selected.path);
  for (const CaptureFile& file : input.selected.files) Guard().AddInput(file.path);
  RunReadOptions read;
  read.read.max_events = o.max_events;
  read.read.max_inflated_bytes = o.max_inflated_mb << 20;
  read.read.event_stats = event_stats;
  read.host = o.host;
  read.visit = visit;
  return CapturesToRunSummary(input, read, summary);
}

}  // namespace tfprof::cli
