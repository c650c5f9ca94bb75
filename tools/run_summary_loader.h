// The one loader of the commands: the input named on the command line →
// the selected run's RunSummary, with the parts the command shows and the
// analysis options it was given (one host's events in memory at a time).
#pragma once

#include <functional>

#include "lib/model/model.h"
#include "lib/summary/run_summary.h"
#include "tools/cli_common.h"

namespace tfprof::cli {

// Every file read is declared to Guard() first, so an output that is an
// input is refused before anything is read. `visit` sees each host as read
// (`info`). Throws InputError (usage) when --host names no host of the run.
RunSummary LoadRunSummary(const CommonOptions& options, SummaryParts parts,
                          const std::function<void(const Host&)>& visit = {});

}  // namespace tfprof::cli
