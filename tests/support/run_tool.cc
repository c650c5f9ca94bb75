#include "tests/support/files.h"
#include "tests/support/run_tool.h"

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tests/support/xspace_builder.h"

namespace tfprof::testing {
namespace {

int Shell(const std::string& cmd) {
  int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

ToolResult RunTool(const std::string& args) { return RunToolIn("", args); }

ToolResult RunToolIn(const std::string& cwd, const std::string& args) {
  std::string dir = TempDir();
  std::string cmd = (cwd.empty() ? std::string() : "cd '" + cwd + "' && ") + "'" + TFPROF_TOOL_PATH + "' " + args + " >" +
                    dir + "/out 2>" + dir + "/err </dev/null";
  ToolResult r;
  r.exit_code = Shell(cmd);
  r.out = Slurp(dir + "/out");
  r.err = Slurp(dir + "/err");
  return r;
}

std::string DiffWithGolden(const std::string& golden_path, const std::string& actual) {
  if (const char* u = std::getenv("TFPROF_UPDATE_GOLDEN"); u && std::string(u) == "1") {
    std::ofstream(golden_path, std::ios::binary) << actual;
    return "";
  }
  if (Slurp(golden_path) == actual) return "";
  std::string dir = TempDir();
  std::ofstream(dir + "/actual", std::ios::binary) << actual;
  std::string cmd = "diff -u '" + golden_path + "' " + dir + "/actual > " + dir + "/diff";
  Shell(cmd);
  std::string diff = Slurp(dir + "/diff");
  return diff.empty() ? "(golden file missing or unreadable: " + golden_path + ")" : diff;
}

}  // namespace tfprof::testing
