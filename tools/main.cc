// tfprof-analyze: offline analysis of TensorFlow / JAX / PyTorch profiler
// captures. Thin: parse the command line, run the chosen subcommand, and turn
// errors into one line on stderr and a documented exit code.
#include <algorithm>
#include <iostream>

#include "lib/model/errors.h"
#include "tools/commands.h"

int main(int argc, char** argv) {
  using namespace tfprof;
  CLI::App app{"tfprof-analyze: what the TensorFlow Profiler would show, from the command line"};
  app.set_version_flag("--version", std::string("tfprof-analyze 0.1.0"));
  app.require_subcommand(1);
  std::function<void()> action;
  for (const cli::RegisterFn& add : cli::RegisteredCommands()) add(app, action);

  auto all = app.get_subcommands([](CLI::App*) { return true; });
  bool known = argc > 1 && std::any_of(all.begin(), all.end(), [&](CLI::App* s) { return s->get_name() == argv[1]; });
  if (argc > 1 && argv[1][0] != '-' && !known) {
    std::string names;
    for (const CLI::App* sub : all) names += (names.empty() ? "" : ", ") + sub->get_name();
    std::cerr << "tfprof-analyze: error: unknown command '" << argv[1] << "' (commands: " << names << ")\n";
    return kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }
  try {
    if (action) action();
    return kExitOk;
  } catch (const InputError& e) {
    std::cerr << "tfprof-analyze: error: " << e.what() << "\n";
    return e.code();
  } catch (const std::invalid_argument& e) {
    std::cerr << "tfprof-analyze: error: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::bad_alloc&) {
    std::cerr << "tfprof-analyze: error: out of memory (try --max-events to read part of the capture)\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "tfprof-analyze: internal error: " << e.what() << " (please report this)\n";
    return kExitInternal;
  }
}
