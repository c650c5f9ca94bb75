#pragma once

#include <string>

#include "tests/parity/parity.h"

namespace tfprof::parity {

// The overview's verdicts, statements, placement, precision, top device ops,
// input ops and run environment against TensorFlow's `<host>.overview_page.pb`.
Tally CompareOverviewWithLegacy(const std::string& run_folder, const std::string& pb_path);

// The same against xprof's overview_page.json (--compat xprof).
Tally CompareOverviewWithXprof(const std::string& run_folder, const std::string& json_path);

}  // namespace tfprof::parity
