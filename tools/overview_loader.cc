#include "tools/overview_loader.h"

#include "lib/summary/event_grouping.h"
#include "lib/summary/planes_to_step_db.h"

namespace tfprof::cli {

LoadedOverview LoadOverview(const CommonOptions& options) {
  LoadedOverview out;
  const AnalysisOptions analysis = AnalysisOptionsFrom(options);
  HostSummary ops;
  std::vector<StepDb> steps;
  bool first = true;
  out.loaded = ForEachHost(options, [&](Host& host) {
    EventGroups groups = GroupEvents(host, out.diagnostics, analysis);
    HostSummary s = SummarizeHostOps(host, out.diagnostics, analysis, &groups.eager);
    if (first) ops = std::move(s);
    else CombineHostSummaries(ops, s);
    first = false;
    steps.push_back(BuildStepDb(host, groups, analysis, out.diagnostics));
  });
  out.overview = BuildOverview(ops, SummarizeSteps(CombineHostSteps(std::move(steps), analysis)), analysis);
  return out;
}

}  // namespace tfprof::cli
