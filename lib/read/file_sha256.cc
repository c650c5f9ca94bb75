#include "lib/read/file_sha256.h"

#include <fcntl.h>
#include <nettle/sha2.h>
#include <nettle/version.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "lib/model/errors.h"

namespace tfprof {
namespace {

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string FilesSha256Hex(const std::vector<std::string>& paths) {
  sha256_ctx ctx;
  sha256_init(&ctx);
  std::vector<uint8_t> block(size_t{1} << 20);
  for (const std::string& path : paths) {
    Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    if (file.fd < 0) throw InputError(path, std::string("cannot read: ") + std::strerror(errno));
    for (;;) {
      const ssize_t n = ::read(file.fd, block.data(), block.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw InputError(path, std::string("cannot read: ") + std::strerror(errno));
      if (n == 0) break;
      sha256_update(&ctx, static_cast<size_t>(n), block.data());
    }
  }
  uint8_t digest[SHA256_DIGEST_SIZE];
#if NETTLE_VERSION_MAJOR >= 4
  sha256_digest(&ctx, digest);  // Nettle 4 dropped the length argument.
#else
  sha256_digest(&ctx, sizeof digest, digest);
#endif
  const size_t length = sizeof digest;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * length);
  for (size_t i = 0; i < length; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 0xf];
  }
  return hex;
}

}  // namespace tfprof
