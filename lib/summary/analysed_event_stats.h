// The one list of event-stat names the analyses read, by the summary part
// that reads them. A command that only shows summaries reads its captures
// keeping just the event stats of the parts it computes (EventStatsFor):
// the others (CUPTI's context ids, annotations, memcpy details, ...) are
// dropped while reading, never stored (12 bytes a stat, most of the model's
// memory on GPU captures). Plane and event-metadata stats are always kept.
// Nor does such a command decode the events of derived lines (but the
// Steps line): every analysis skips them.
//
// An analysis that starts reading another event stat must add its name to
// the table (analysed_event_stats.cc), or it reads "absent" in the commands:
// tests/summary/event_stat_filter_summary_test.cc compares the summaries of
// every part read with and without the filter on real captures.
#pragma once

#include <string_view>
#include <vector>

#include "lib/read/read_options.h"
#include "lib/summary/analysis_options.h"
#include "lib/summary/run_summary.h"

namespace tfprof {

// The filter that keeps the event stats `parts` read (none for no part),
// for a summary made with `analysis`. It also leaves the host's allocator
// events out unless the memory profile is asked for, or an option under
// which another analysis reads them: --compat (xprof counts them as op
// runs), --whole-trace (they may be the first or last event), a step
// marker (it names events).
EventStatFilter EventStatsFor(SummaryParts parts, const AnalysisOptions& analysis);

}  // namespace tfprof
