// A mapped capture that shrinks while it is read (another process truncates
// or rewrites it) must end in one clear error, not SIGBUS (exit 135).
// Truncating from another process at the right moment cannot be made
// deterministic, so these tests shrink the file at fixed points instead:
// after it is mapped and before a byte of it is read (through the test
// hook), and between two reads of the mapping.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>

#include "lib/model/errors.h"
#include "lib/read/byte_source.h"
#include "lib/read/xplane_reader.h"
#include "tests/support/xspace_builder.h"

using namespace tfprof;
using tfprof::testing::XSpaceBuilder;

namespace {

std::string WriteBytes(const std::string& name, const std::string& bytes) {
  std::string path = tfprof::testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// A capture of a few hundred KiB: one line of 20,000 events.
std::string WriteCapture() {
  XSpaceBuilder space;
  auto line = space.Plane("/host:CPU").Line(1, "python3", 1000);
  for (int i = 0; i < 20000; ++i) line.Event("op" + std::to_string(i % 50), i * 1000, 500, {{"step_num", int64_t{i}}});
  return space.WriteTemp("big.xplane.pb");
}

uint64_t g_shrink_to = 0;
void ShrinkToConfigured(const std::string& path) {
  REQUIRE(::truncate(path.c_str(), static_cast<off_t>(g_shrink_to)) == 0);
}

struct HookScope {
  explicit HookScope(uint64_t size) {
    g_shrink_to = size;
    SetMappedFileHookForTesting(ShrinkToConfigured);
  }
  ~HookScope() { SetMappedFileHookForTesting(nullptr); }
};

}  // namespace

TEST_CASE("Pages of a mapped file lost to truncation read as zeros, and the file says it shrank", "[mapped_file]") {
  const long page = ::sysconf(_SC_PAGESIZE);
  const std::string path = WriteBytes("three_pages.bin", std::string(3 * page, 'x'));
  auto file = MappedFile::Open(path);
  CHECK(file->bytes()[0] == 'x');
  CHECK_FALSE(file->Shrank());
  REQUIRE(::truncate(path.c_str(), page) == 0);
  // Before the handler this read was SIGBUS.
  CHECK(file->bytes()[2 * page + 10] == '\0');
  CHECK(file->bytes()[page - 1] == 'x');  // Within the new size: still the file.
  CHECK(file->Shrank());

  // A handler put in place since (here: the default back) is replaced again
  // by the next Open.
  struct sigaction ours {};
  REQUIRE(::sigaction(SIGBUS, nullptr, &ours) == 0);
  ::signal(SIGBUS, SIG_DFL);
  const std::string again = WriteBytes("two_pages.bin", std::string(2 * page, 'z'));
  auto second = MappedFile::Open(again);
  REQUIRE(::truncate(again.c_str(), 0) == 0);
  CHECK(second->bytes()[page] == '\0');
  CHECK(second->Shrank());
  ::sigaction(SIGBUS, &ours, nullptr);
}

TEST_CASE("A capture that shrinks after it is mapped ends in one error, exit 3", "[mapped_file]") {
  const std::string path = WriteCapture();
  REQUIRE(std::filesystem::file_size(path) > 200'000);
  for (uint64_t size : {uint64_t{0}, uint64_t{100}, uint64_t{64 << 10}}) {
    const std::string copy = WriteBytes("copy.xplane.pb", [&] {
      std::ifstream in(path, std::ios::binary);
      return std::string(std::istreambuf_iterator<char>(in), {});
    }());
    HookScope shrink(size);
    Diagnostics diag;
    INFO("shrunk to " << size << " bytes");
    try {
      ReadXSpaceFile(copy, diag);
      FAIL("read a capture that shrank under the reader");
    } catch (const InputError& e) {
      CHECK(e.code() == kExitBadInput);
      CHECK(std::string(e.what()) == copy +
                                         ": the file shrank while it was being read (another process truncated or "
                                         "rewrote it); read it again once it is complete");
    }
  }
}

TEST_CASE("The SIGBUS handler leaves faults outside the mapped captures deadly", "[mapped_file]") {
  const long page = ::sysconf(_SC_PAGESIZE);
  const std::string ours = WriteBytes("ours.bin", std::string(page, 'x'));
  const std::string other = WriteBytes("other.bin", std::string(2 * page, 'y'));
  auto file = MappedFile::Open(ours);  // Installs the handler.
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    int fd = ::open(other.c_str(), O_RDONLY);
    void* p = ::mmap(nullptr, 2 * page, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED || ::truncate(other.c_str(), 0) != 0) ::_exit(2);
    volatile char c = static_cast<const char*>(p)[page + 1];  // Not a capture's mapping: SIGBUS kills.
    (void)c;
    ::_exit(0);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  // Killed by SIGBUS (or, under AddressSanitizer, whose handler it passes
  // the fault to, ended with its report): never carried on as if read.
  CHECK_FALSE((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  CHECK_FALSE((WIFEXITED(status) && WEXITSTATUS(status) == 2));
#if defined(__SANITIZE_ADDRESS__)
  // ASan reports the fault and aborts (abort_on_error=1).
  if (WIFSIGNALED(status)) CHECK((WTERMSIG(status) == SIGBUS || WTERMSIG(status) == SIGABRT));
#else
  if (WIFSIGNALED(status)) CHECK(WTERMSIG(status) == SIGBUS);
#endif
}
