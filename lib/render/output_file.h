// Where the tool's output goes, kept apart from what it reads.
//
// OutputGuard knows every file and folder a command reads and every file it
// will write, and refuses an output that is one of the inputs (the same
// file by device and inode: hard links and symlinks included) or lies inside
// an input folder (a logdir or run folder given on the command line or
// found by discovery), whichever is registered first.
//
// OutputFile writes one output atomically: into a temporary file beside the
// destination, renamed over it only when everything was written. A reader
// (or a second run writing the same file) sees the old file or the new one,
// never a mix; a failed command leaves the old file as it was.
#pragma once

#include <sys/types.h>

#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

namespace tfprof {

class OutputGuard {
 public:
  // A file or folder the command reads. Throws InputError (exit 2) when a
  // registered output is it or lies inside it. Paths that do not exist are
  // ignored (reading them fails on its own).
  void AddInput(const std::string& path);
  // A file the command will write. Throws InputError (exit 2) when it is or
  // lies inside a registered input, or names the same file as another
  // output (`-o x --junit x`).
  void AddOutput(const std::string& path);
  // Throws InputError (exit 2) when `output` is or lies inside an input.
  void CheckOutput(const std::string& output) const;

 private:
  struct Identity {
    dev_t dev;
    ino_t ino;
    std::string path;  // As given, for the error line.
  };
  std::vector<Identity> input_files_, input_folders_;
  std::vector<std::string> outputs_;
};

// A stream buffer over a file descriptor that keeps the first write error
// (errno), so that "write failed" can say why (disk full, ...). OutputFile
// writes through one; main puts one under std::cout.
class FdStreamBuf : public std::streambuf {
 public:
  explicit FdStreamBuf(int fd);
  int error() const { return error_; }  // 0 while every write succeeded.

 protected:
  int_type overflow(int_type ch) override;
  int sync() override;

 private:
  bool Drain();
  int fd_;
  std::vector<char> buffer_;
  int error_ = 0;
};

class OutputFile {
 public:
  // Opens a temporary file beside `path` (symlinks resolved: the link's
  // target is replaced, not the link). A path that exists and is not a
  // regular file (/dev/null, a FIFO, a terminal) is written directly; a
  // FIFO without a reader is an error rather than a wait. Checks `guard`
  // first. Throws InputError: exit 2 when the path is refused or cannot be
  // created (no such folder, no permission, a folder).
  OutputFile(const std::string& path, const OutputGuard& guard);
  ~OutputFile();  // Without Commit(): removes the temporary file.
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::ostream& stream();
  // Flushes, syncs and renames the temporary file over the destination.
  // Throws InputError (exit 1) when any write failed (disk full, I/O error).
  void Commit();

 private:
  std::string path_;         // As given, for the error line.
  std::string destination_;  // Resolved: what is replaced.
  std::string temp_;         // Empty when writing directly.
  int fd_ = -1;
  std::unique_ptr<FdStreamBuf> buf_;
  std::unique_ptr<std::ostream> stream_;
  bool committed_ = false;
};

}  // namespace tfprof
