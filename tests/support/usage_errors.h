// Usage errors of the command line, checked the same way everywhere: exit
// code 2 and exactly one stderr line "tfprof-analyze: error: <message>".
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "tests/support/run_tool.h"

namespace tfprof::testing {

struct UsageError {
  std::string args;     // As for RunTool.
  std::string message;  // The error line after "tfprof-analyze: error: ".
};

// Runs each command line; with `empty_stdout`, stdout must stay empty too.
inline void CheckUsageErrors(const std::vector<UsageError>& cases, bool empty_stdout = true) {
  for (const UsageError& c : cases) {
    INFO(c.args);
    auto r = RunTool(c.args);
    CHECK(r.exit_code == 2);
    CHECK(r.err == "tfprof-analyze: error: " + c.message + "\n");
    if (empty_stdout) CHECK(r.out.empty());
  }
}

}  // namespace tfprof::testing
