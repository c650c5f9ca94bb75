// A host file that is listed like any other but cannot be opened for
// reading, for the tests of the "skip it with a warning" paths.
//
// chmod 000 stops every user but root, and tests usually run as root (in
// CI containers): there the file is instead a symlink to a kernel file that
// is write-only even for root (/proc/sys/vm/drop_caches, mode 0200: root's
// open for reading fails with "Permission denied" too). Both are regular
// files to stat(), so the code under test sees what a user sees for a
// capture copied without read permission.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace tfprof::testing {

inline bool CanOpenForReading(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

// Makes `path` such a file; false when neither way works on this system.
inline bool MakeUnopenableFile(const std::string& path) {
  namespace fs = std::filesystem;
  std::ofstream(path, std::ios::binary) << "an XSpace nobody may read";
  fs::permissions(path, fs::perms::none);
  if (!CanOpenForReading(path)) return true;  // Not root: chmod 000 is enough.
  fs::remove(path);
  fs::create_symlink("/proc/sys/vm/drop_caches", path);
  return fs::is_regular_file(path) && !CanOpenForReading(path);
}

}  // namespace tfprof::testing
