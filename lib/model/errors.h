// Errors that end a command, each with the exit code the README documents.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace tfprof {

enum ExitCode : int {
  kExitOk = 0,
  kExitInternal = 1,      // A bug: please report it.
  kExitOutputFailed = 1,  // The output could not be written (disk full, stdout closed).
  kExitUsage = 2,         // Bad command line.
  kExitBadInput = 3,      // Missing, unreadable, corrupt or unknown input.
  kExitUnavailable = 4,   // The analysis needs something this capture lacks.
  kExitCheckFailed = 5,   // A threshold check failed.
};

// A way out of an input problem that only the caller can word: the library
// does not know the command line's flags, so it says which way out applies
// and tools/ appends it, naming the flag (tools/hints_to_text.cc).
enum class InputHint : uint8_t {
  kNone,
  kReadPartOfTheEvents,  // "... read part of it": with a cap on the events read.
  kListRuns,             // "no run named 'x'": where the runs are listed.
  kRunNamesListed,       // "use its full name": where the full names are listed.
};

// An input problem: `path` names the file or folder, `problem` says what is
// wrong with it in one line; `hint`, a way out for the caller to word.
class InputError : public std::runtime_error {
 public:
  InputError(std::string path, const std::string& problem, ExitCode code = kExitBadInput,
             InputHint hint = InputHint::kNone)
      : std::runtime_error(path.empty() ? problem : path + ": " + problem),
        path_(std::move(path)),
        code_(code),
        hint_(hint) {}
  const std::string& path() const { return path_; }
  ExitCode code() const { return code_; }
  InputHint hint() const { return hint_; }

 private:
  std::string path_;
  ExitCode code_;
  InputHint hint_;
};

}  // namespace tfprof
