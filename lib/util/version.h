// The tool's name and version, as `--version` prints it and run summaries
// record it (CMakeLists.txt's project version).
#pragma once

#include <string_view>

namespace tfprof {

inline constexpr std::string_view kToolVersion = "tfprof-analyze 0.1.0";

}  // namespace tfprof
