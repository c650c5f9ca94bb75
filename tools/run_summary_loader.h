// The one loader of the commands: the input named on the command line →
// the selected run's RunSummary, with the parts the command shows and the
// analysis options it was given (one host's events in memory at a time).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "lib/model/model.h"
#include "lib/read/read_options.h"
#include "lib/summary/run_summary.h"
#include "tools/cli_common.h"

namespace tfprof::cli {

// Every file read is declared to Guard() first, so an output that is an
// input is refused before anything is read. `visit` sees each host as read
// (`info`). `event_stats` says which event stats the readers keep: all for
// a command that shows raw stats, EventStatsFor(parts, analysis) for one that shows
// summaries (analysed_event_stats.h: less memory). Throws InputError (usage) when --host names no
// host of the run.
//
// The input may also be a run summary file (`summarize`, `combine`) or a
// folder of them (*.tfsum, combined): then nothing is read but summaries,
// which must hold `parts` (else exit 4) and have been made with the
// command's analysis options (else exit 2, saying both).
// `summarized` sees each host with its one-host summary, before it is dropped.
// `memory_timeline_points`: SummaryOptions::memory_timeline_points, for
// commands that show no more of a memory timeline than its sampled points.
RunSummary LoadRunSummary(const CommonOptions& options, SummaryParts parts, const EventStatFilter& event_stats,
                          const std::function<void(const Host&)>& visit = {},
                          const std::function<void(const Host&, const RunSummary&, size_t run_hosts)>& summarized = {},
                          size_t memory_timeline_points = 0);

// The run summary files `path` names: itself when it is one (by its magic,
// whatever its name), the *.tfsum files in it (sorted) when it is a
// folder; none otherwise.
std::vector<std::string> SummaryFilesAt(const std::string& path);

// Reads and combines the files, each declared to Guard() first. Throws
// InputError naming the file that is not a summary of this schema version
// or does not combine with those before it (exit 3).
RunSummary CombineSummaryFiles(const std::vector<std::string>& files, const ReadOptions& read);

// LoadRunSummary's path for summaries. `wants_events`: the command reads
// events (info), which a summary does not have: a usage error.
RunSummary LoadSummaryFiles(const CommonOptions& options, const std::vector<std::string>& files, SummaryParts parts,
                            const AnalysisOptions& analysis, bool wants_events);

}  // namespace tfprof::cli
