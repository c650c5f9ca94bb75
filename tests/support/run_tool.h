// Runs the built tfprof-analyze binary, for tests of the command line:
// exit codes, the one-line errors, and golden outputs.
#pragma once

#include <string>

namespace tfprof::testing {

struct ToolResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// `args` is passed to /bin/sh after the tool's path, so quote as in a shell.
ToolResult RunTool(const std::string& args);
// The same, run from `dir` (so paths in the output are relative to it).
ToolResult RunToolIn(const std::string& dir, const std::string& args);

}  // namespace tfprof::testing
