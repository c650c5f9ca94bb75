// `combine` over files, one host at a time: the bytes CombineRunSummaries
// and RunSummaryToBytes give for the same summaries, in memory that grows
// with the number of hosts (their keys), not with what each host holds.
//
// Reading every summary whole and combining in memory took about 7x the
// summaries' bytes (1,024 hosts, 281 MB of summaries: 2.0 GB). Here a first
// pass maps each file and notes where each host's message lies and its key
// (file name, order, SHA-256, name), skipping the host's parts; the hosts
// are put in canonical order and byte-identical copies dropped, as
// CombineRunSummaries does; a second pass copies each host's message, read,
// checked (parsed and written again: it must come back byte for byte) and
// freed one at a time.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "lib/read/read_options.h"

namespace tfprof {

// Writes the combined summary of `paths` (in any order) to `out`. Throws
// InputError naming the file for anything but a whole summary of this
// schema version, for summaries that do not combine (other options, the
// same host twice: exit 3), and when a host's message is not stored as
// this tool stores it. The memory limit (options.memory_limit_bytes, else
// what is available) bounds what one host's message may take to check.
void CombineRunSummaryFiles(const std::vector<std::string>& paths, std::ostream& out, const ReadOptions& options = {});

}  // namespace tfprof
