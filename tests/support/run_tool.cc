#include "tests/support/run_tool.h"
#include "tests/support/files.h"

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
  std::string cmd = (cwd.empty() ? std::string() : "cd '" + cwd + "' && ") + "'" + TFPROF_TOOL_PATH + "' " + args +
                    " >" + dir + "/out 2>" + dir + "/err </dev/null";
  ToolResult r;
  r.exit_code = Shell(cmd);
  r.out = Slurp(dir + "/out");
  r.err = Slurp(dir + "/err");
  return r;
}

}  // namespace tfprof::testing
