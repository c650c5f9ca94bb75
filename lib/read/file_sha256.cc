#include "lib/read/file_sha256.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "lib/model/errors.h"

namespace tfprof {
namespace {

struct DigestDeleter {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string FilesSha256Hex(const std::vector<std::string>& paths) {
  std::unique_ptr<EVP_MD_CTX, DigestDeleter> ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
    throw InputError("", "cannot start a SHA-256 digest (OpenSSL)");
  std::vector<char> block(size_t{1} << 20);
  for (const std::string& path : paths) {
    Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    if (file.fd < 0) throw InputError(path, std::string("cannot read: ") + std::strerror(errno));
    for (;;) {
      const ssize_t n = ::read(file.fd, block.data(), block.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw InputError(path, std::string("cannot read: ") + std::strerror(errno));
      if (n == 0) break;
      if (EVP_DigestUpdate(ctx.get(), block.data(), static_cast<size_t>(n)) != 1)
        throw InputError(path, "SHA-256 digest failed (OpenSSL)");
    }
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(ctx.get(), digest, &length) != 1) throw InputError("", "SHA-256 digest failed (OpenSSL)");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 0xf];
  }
  return hex;
}

}  // namespace tfprof
