#pragma once

#include <string>

#include "tests/parity/parity.h"

namespace tfprof::parity {

// Against `<host>.kernel_stats.pb`. Those TensorFlow releases stored zeros
// for registers, shared memory, block and grid (and so merged rows that
// differ only there): our rows are merged the same way for the comparison,
// and the launch parameters are checked against current xprof instead.
Tally CompareKernelStatsWithLegacy(const std::string& run_folder, const std::string& pb_path);

// Against xprof's kernel_stats.json, every column, with --compat xprof.
Tally CompareKernelStatsWithXprof(const std::string& run_folder, const std::string& json_path);

}  // namespace tfprof::parity
