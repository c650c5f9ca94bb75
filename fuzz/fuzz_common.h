// Shared by the libFuzzer targets: what a reader may do with bad input is
// throw InputError (exit 3 in the command); anything else escaping is a bug
// and aborts, so libFuzzer reports it as a crash.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "lib/model/errors.h"
#include "lib/read/read_options.h"

namespace tfprof::fuzz {

// Bounds every target reads under: enough to reach every code path on
// fuzz-sized inputs, small enough that a bug shows as a crash, not an OOM.
inline ReadOptions FuzzReadOptions() {
  ReadOptions o;
  o.max_events = 100000;
  o.max_inflated_bytes = 64u << 20;
  return o;
}

template <class F>
void ExpectOnlyInputErrors(F&& f) {
  try {
    f();
  } catch (const InputError&) {
    // Expected: bad input is reported, not crashed on.
  } catch (const std::exception& e) {
    std::fprintf(stderr, "unexpected exception (not an InputError): %s\n", e.what());
    std::abort();
  }
}

// An anonymous in-memory file holding `bytes`, reachable by path, for the
// readers that take a path.
class MemFile {
 public:
  explicit MemFile(std::string_view bytes) {
    fd_ = ::memfd_create("fuzz", MFD_CLOEXEC);
    if (fd_ < 0) std::abort();
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
      if (n <= 0) std::abort();
      done += static_cast<size_t>(n);
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~MemFile() { ::close(fd_); }
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

}  // namespace tfprof::fuzz
