#include "tests/tools/run_limited.h"

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tests/support/xspace_builder.h"

namespace tfprof::testing {

ToolResult RunLimited(const std::string& args, const std::string& redirects) {
  // No address-space limit under ASan: its shadow memory alone reserves
  // terabytes of it.
#if defined(__SANITIZE_ADDRESS__)
  const std::string limit;
#else
  const std::string limit = "ulimit -v 4000000; ";
#endif
  const std::string dir = TempDir();
  const std::string out = redirects.empty() ? "> " + dir + "/out" : redirects;
  const std::string cmd = limit + "timeout 60 '" + std::string(TFPROF_TOOL_PATH) + "' " + args + " " + out + " 2>" +
                          dir + "/err </dev/null";
  const int status = std::system(cmd.c_str());
  ToolResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = Slurp(dir + "/out");
  r.err = Slurp(dir + "/err");
  return r;
}

}  // namespace tfprof::testing
