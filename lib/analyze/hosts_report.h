// `hosts`: the report of HostsAnalysis (docs/hosts.md defines its columns).
#pragma once

#include "lib/analyze/hosts_analysis.h"
#include "lib/report/report.h"

namespace tfprof {

// `per_step`: also the host x step table (one row per host and step).
Report BuildHostsReport(const HostsAnalysis& hosts, const RunSummary& run, bool per_step);

}  // namespace tfprof
