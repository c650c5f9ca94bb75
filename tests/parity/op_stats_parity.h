#pragma once

#include <string>

#include "tests/parity/parity.h"

namespace tfprof::parity {

// Against `<host>.tensorflow_stats.pb` (TfStatsDatabase) in a TF2 run folder:
// both tables (with and without IDLE), row by row.
Tally CompareOpStatsWithLegacy(const std::string& run_folder, const std::string& pb_path);

// Against xprof's framework_op_stats.json (two DataTables), with --compat xprof.
Tally CompareOpStatsWithXprof(const std::string& run_folder, const std::string& json_path);

}  // namespace tfprof::parity
