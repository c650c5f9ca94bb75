#pragma once

#include <string>

#include "tests/parity/parity.h"

namespace tfprof::parity {

// Against `<host>.memory_profile.json.gz`, the MemoryProfile TensorFlow 2.x
// wrote beside its captures (proto3 JSON; no sampled timeline: its
// memoryProfileSnapshots are the whole time-ordered timeline, and the
// breakdown rows index into it). `host` picks the capture file of the run.
Tally CompareMemoryWithLegacy(const std::string& run_folder, const std::string& host, const std::string& gz_path);

// Against xprof's memory_profile[.<host>].json: memory ids, summary,
// sampled timeline, breakdown rows and the made-up rows exactly. The
// snapshots behind breakdown rows are compared by what they describe; which
// of several equal allocations xprof shows (address, time, allocator state)
// is not deterministic in xprof, so it is checked only to be one of them.
// An empty `host` takes the run's only host.
Tally CompareMemoryWithXprof(const std::string& run_folder, const std::string& host, const std::string& json_path);

}  // namespace tfprof::parity
