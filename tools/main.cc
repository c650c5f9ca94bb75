// tfprof-analyze: offline analysis of TensorFlow / JAX / PyTorch profiler
// captures. Thin: parse the command line, run the chosen subcommand, and turn
// errors into one line on stderr and a documented exit code.
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <iostream>

#include "lib/model/errors.h"
#include "lib/render/output_file.h"
#include "lib/render/terminal_text.h"
#include "lib/util/version.h"
#include "tools/cli_common.h"
#include "tools/commands.h"
#include "tools/hints_to_text.h"

namespace {

using namespace tfprof;

// The one error line. Messages carry file names and names from captures:
// escaped, so that neither can split the line or drive the terminal.
int Fail(int code, const std::string& message, const char* prefix = "error") {
  std::cout.flush();  // What the report printed comes first on a terminal.
  std::cerr << "tfprof-analyze: " << prefix << ": " << EscapeForTerminal(message) << "\n";
  return code;
}

// std::cout writes through this buffer (see main), which keeps the first
// write error: a report that did not reach stdout (`> /dev/full`, a closed
// stdout) is a failure with its reason, not exit 0 with the output lost.
FdStreamBuf* stdout_buffer = nullptr;

// The errno of the first failed write to stdout, 0 when none failed.
int StdoutError() {
  std::cout.flush();
  return stdout_buffer ? stdout_buffer->error() : 0;
}

int FailStdout(int err) {
  return Fail(kExitOutputFailed, std::string("standard output: write failed (") + std::strerror(err) + ")");
}

int RunCommand(cli::Command* command) {
  try {
    cli::DeclareOutputs();
    if (command) command->Run();
    return kExitOk;
  } catch (const InputError& e) {
    // A failed check whose report was lost: that the report was lost is
    // the one line (and exit 1).
    if (int err = e.code() == kExitCheckFailed ? StdoutError() : 0) return FailStdout(err);
    return Fail(e.code(), std::string(e.what()) + InputHintText(e.hint()));
  } catch (const std::invalid_argument& e) {
    return Fail(kExitUsage, e.what());
  } catch (const std::bad_alloc&) {
    return Fail(kExitBadInput, "out of memory (try --max-events to read part of the capture)");
  } catch (const std::exception& e) {
    return Fail(kExitInternal, std::string(e.what()) + " (please report this)", "internal error");
  }
}

int Main(int argc, char** argv) {
  CLI::App app{"tfprof-analyze: what the TensorFlow Profiler would show, from the command line"};
  app.set_version_flag("--version", std::string(kToolVersion));
  app.require_subcommand(1);
  // The commands hold their options: they live until the chosen one has run.
  const std::vector<std::unique_ptr<cli::Command>> commands = cli::AllCommands();
  // Declaring every command's options takes CLI11 about a millisecond and a
  // half, a tenth of a 100 MB capture's `op-stats`; a command line naming
  // its command first (every one but `--help`, `--version` and usage
  // errors) parses only that command's options, so the others need none.
  const bool named =
      argc > 1 && std::any_of(commands.begin(), commands.end(), [&](const auto& c) { return c->name() == argv[1]; });
  cli::Command* chosen = nullptr;
  for (const std::unique_ptr<cli::Command>& command : commands) {
    CLI::App* sub = app.add_subcommand(command->name(), command->description());
    if (!named || command->name() == argv[1]) command->AddOptions(sub);
    sub->callback([&chosen, c = command.get()] { chosen = c; });
  }

  auto all = app.get_subcommands([](CLI::App*) { return true; });
  bool known = argc > 1 && std::any_of(all.begin(), all.end(), [&](CLI::App* s) { return s->get_name() == argv[1]; });
  if (argc > 1 && argv[1][0] != '-' && !known) {
    std::string names;
    for (const CLI::App* sub : all) names += (names.empty() ? "" : ", ") + sub->get_name();
    return Fail(kExitUsage, std::string("unknown command '") + argv[1] + "' (commands: " + names + ")");
  }
  int code = kExitOk;
  try {
    app.parse(argc, argv);
    code = RunCommand(chosen);
  } catch (const CLI::Success& e) {
    app.exit(e);  // --help and --version: to stdout, exit 0.
  } catch (const CLI::ParseError& e) {
    // CLI11 prints its message and a second line pointing at --help; ours
    // is one line like every other error.
    std::string where = "--help";
    for (const CLI::App* sub : app.get_subcommands()) where = sub->get_name() + " --help";
    code = Fail(kExitUsage, std::string(e.what()) + " (see tfprof-analyze " + where + ")");
  }
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  // Blocks of 1 MiB and more are mapped on their own and given back when
  // freed. glibc otherwise raises that threshold to the largest block freed
  // so far (up to 32 MiB): the XSpace reader's per-chunk stat pools, freed
  // as each line is joined, then stay in the heap beside the line's own
  // pool, and the peak of a 1 GB capture's `overview` varied from 1.01 to
  // 1.11 GiB between runs; fixed, it is 1.00 GiB every time (docs/performance.md).
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  FdStreamBuf buffer(STDOUT_FILENO);
  std::streambuf* const previous = std::cout.rdbuf(&buffer);
  stdout_buffer = &buffer;
  int code = Main(argc, argv);
  if (int err = StdoutError(); err != 0 && code == kExitOk) code = FailStdout(err);
  std::cout.rdbuf(previous);
  stdout_buffer = nullptr;
  return code;
}
