// The one loader of the commands: the input named on the command line →
// the selected run's RunSummary, with the parts the command shows and the
// analysis options it was given (one host's events in memory at a time).
#pragma once

#include <functional>

#include "lib/model/model.h"
#include "lib/read/read_options.h"
#include "lib/summary/run_summary.h"
#include "tools/cli_common.h"

namespace tfprof::cli {

// Every file read is declared to Guard() first, so an output that is an
// input is refused before anything is read. `visit` sees each host as read
// (`info`). `event_stats` says which event stats the readers keep: all for
// a command that shows raw stats, EventStatsFor(parts) for one that shows
// summaries (analysed_event_stats.h: less memory). Throws InputError (usage) when --host names no
// host of the run.
RunSummary LoadRunSummary(const CommonOptions& options, SummaryParts parts, const EventStatFilter& event_stats,
                          const std::function<void(const Host&)>& visit = {});

}  // namespace tfprof::cli
