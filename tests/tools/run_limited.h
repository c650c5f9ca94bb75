// Running the tool where a case could hang or read without bound before
// its fix, and with stdout sent somewhere else than a file.
#pragma once

#include <string>

#include "tests/support/files.h"
#include "tests/support/run_tool.h"

namespace tfprof::testing {

// Runs the tool through the shell with `redirects` for stdout (e.g.
// "> /dev/full"; empty: captured), for at most 60 s and, outside ASan
// builds, 4 GB of address space.
ToolResult RunLimited(const std::string& args, const std::string& redirects = "");

}  // namespace tfprof::testing
