// Errors that end a command, each with the exit code the README documents.
#pragma once

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

// An input problem: `path` names the file or folder, `problem` says what is
// wrong with it in one line.
class InputError : public std::runtime_error {
 public:
  InputError(std::string path, const std::string& problem, ExitCode code = kExitBadInput)
      : std::runtime_error(path.empty() ? problem : path + ": " + problem), path_(std::move(path)), code_(code) {}
  const std::string& path() const { return path_; }
  ExitCode code() const { return code_; }

 private:
  std::string path_;
  ExitCode code_;
};

}  // namespace tfprof
