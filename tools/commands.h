// Subcommands register themselves: each tools/cmd_<name>.cc defines one
// static CommandRegistration, so adding a command touches no shared file.
// (tools/ is compiled into the executable, not a library, so these static
// objects are always linked.)
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"

namespace tfprof::cli {

// Adds the subcommand to `app`; when it is chosen, sets `action` to the work.
using RegisterFn = std::function<void(CLI::App& app, std::function<void()>& action)>;

struct CommandRegistration {
  CommandRegistration(int order, RegisterFn fn);
};

// In `order` (the order `--help` lists them).
std::vector<RegisterFn> RegisteredCommands();

}  // namespace tfprof::cli
