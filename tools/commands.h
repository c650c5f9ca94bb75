// One Register function per subcommand (tools/cmd_<name>.cc). Each adds its
// subcommand to the app and, when chosen, sets `action` to the work to run.
#pragma once

#include <functional>

#include "CLI/CLI.hpp"

namespace tfprof::cli {

void RegisterInfo(CLI::App& app, std::function<void()>& action);

}  // namespace tfprof::cli
