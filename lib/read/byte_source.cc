#include "lib/read/byte_source.h"

#include <fcntl.h>
#include <isa-l/igzip_lib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "lib/model/errors.h"

namespace tfprof {
namespace {

std::string ErrnoText() { return std::strerror(errno); }

int OpenReadOnly(const std::string& path, uint64_t* size) {
  // O_NONBLOCK: opening a FIFO (or a device) must not wait for a writer;
  // it is refused below. Reads of regular files ignore the flag.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw InputError(path, "cannot open: " + ErrnoText());
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    std::string why = ErrnoText();
    ::close(fd);
    throw InputError(path, "cannot stat: " + why);
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw InputError(path, "is a directory, expected a file");
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw InputError(path, "is not a regular file (a FIFO, socket or device), expected a capture file");
  }
  *size = static_cast<uint64_t>(st.st_size);
  return fd;
}

class PlainChunkReader : public ChunkReader {
 public:
  PlainChunkReader(std::string path, int fd, uint64_t size) : path_(std::move(path)), fd_(fd) { file_size_ = size; }
  ~PlainChunkReader() override { ::close(fd_); }
  size_t Read(char* out, size_t capacity) override {
    size_t got = 0;
    while (got < capacity) {
      ssize_t n = ::read(fd_, out + got, capacity - got);
      if (n < 0) {
        if (errno == EINTR) continue;
        throw InputError(path_, "read failed: " + ErrnoText());
      }
      if (n == 0) break;
      got += static_cast<size_t>(n);
    }
    offset_ += got;
    return got;
  }
  bool gzipped() const override { return false; }
  uint64_t file_offset() const override { return offset_; }

 private:
  std::string path_;
  int fd_;
  uint64_t offset_ = 0;
};

// ISA-L's igzip inflates about 3x faster than zlib on this hardware (see
// docs/performance.md). Handles multi-member gzip files.
class GzipChunkReader : public ChunkReader {
 public:
  GzipChunkReader(std::string path, int fd, uint64_t size)
      : path_(std::move(path)), fd_(fd), in_(kInputBlock) {
    file_size_ = size;
    ResetMember();
  }
  ~GzipChunkReader() override { ::close(fd_); }

  size_t Read(char* out, size_t capacity) override {
    size_t produced = 0;
    while (produced < capacity && !done_) {
      if (state_.avail_in == 0 && !eof_) Refill();
      state_.next_out = reinterpret_cast<uint8_t*>(out + produced);
      state_.avail_out = static_cast<uint32_t>(std::min<size_t>(capacity - produced, UINT32_MAX));
      uint32_t before = state_.avail_out;
      int rc = isal_inflate(&state_);
      produced += before - state_.avail_out;
      if (rc < 0 || rc == ISAL_NEED_DICT) throw InputError(path_, "gzip data is corrupt (inflate error " + std::to_string(rc) + ")");
      if (state_.block_state == ISAL_BLOCK_FINISH) {
        // End of one gzip member: another may follow (concatenated gzip).
        if (state_.avail_in == 0 && !eof_) Refill();
        if (state_.avail_in == 0) {
          done_ = true;
        } else {
          uint8_t* rest = state_.next_in;
          uint32_t rest_n = state_.avail_in;
          ResetMember();
          state_.next_in = rest;
          state_.avail_in = rest_n;
        }
      } else if (before == state_.avail_out && state_.avail_in == 0 && eof_) {
        throw InputError(path_, "gzip data is truncated (unexpected end of file)");
      }
    }
    return produced;
  }
  bool gzipped() const override { return true; }
  uint64_t file_offset() const override { return consumed_; }

 private:
  static constexpr size_t kInputBlock = 1 << 20;

  void ResetMember() {
    isal_inflate_init(&state_);
    state_.crc_flag = ISAL_GZIP;
  }
  void Refill() {
    ssize_t n;
    do n = ::read(fd_, in_.data(), in_.size());
    while (n < 0 && errno == EINTR);
    if (n < 0) throw InputError(path_, "read failed: " + ErrnoText());
    if (n == 0) eof_ = true;
    consumed_ += static_cast<uint64_t>(n);
    state_.next_in = in_.data();
    state_.avail_in = static_cast<uint32_t>(n);
  }

  std::string path_;
  int fd_;
  std::vector<uint8_t> in_;
  inflate_state state_{};
  bool eof_ = false;
  bool done_ = false;
  uint64_t consumed_ = 0;
};

}  // namespace

bool LooksGzipped(std::string_view head) {
  return head.size() >= 2 && static_cast<uint8_t>(head[0]) == 0x1f && static_cast<uint8_t>(head[1]) == 0x8b;
}

std::unique_ptr<MappedFile> MappedFile::Open(const std::string& path) {
  uint64_t size = 0;
  int fd = OpenReadOnly(path, &size);
  std::unique_ptr<MappedFile> f(new MappedFile());
  f->size_ = size;
  if (size > 0) {
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      std::string why = ErrnoText();
      ::close(fd);
      throw InputError(path, "cannot map file: " + why);
    }
    ::madvise(p, size, MADV_SEQUENTIAL);
    f->data_ = static_cast<const char*>(p);
    f->mapped_ = true;
  }
  ::close(fd);
  return f;
}

MappedFile::~MappedFile() {
  if (mapped_) ::munmap(const_cast<char*>(data_), size_);
}

void MappedFile::Release(size_t begin, size_t end) const {
  if (!mapped_) return;
  static const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  begin = (begin + page - 1) / page * page;
  end = std::min(end, size_) / page * page;
  if (end > begin) ::madvise(const_cast<char*>(data_) + begin, end - begin, MADV_DONTNEED);
}

std::unique_ptr<ChunkReader> ChunkReader::Open(const std::string& path) {
  uint64_t size = 0;
  int fd = OpenReadOnly(path, &size);
  unsigned char magic[2] = {0, 0};
  ssize_t n = ::pread(fd, magic, 2, 0);
  if (n == 2 && magic[0] == 0x1f && magic[1] == 0x8b) return std::make_unique<GzipChunkReader>(path, fd, size);
  return std::make_unique<PlainChunkReader>(path, fd, size);
}

std::string ReadWholeFile(const std::string& path, uint64_t max_bytes, bool* was_gzipped, const std::string& limit_problem) {
  auto reader = ChunkReader::Open(path);
  if (was_gzipped) *was_gzipped = reader->gzipped();
  std::string out;
  if (!reader->gzipped()) {
    if (reader->file_size() > max_bytes) throw InputError(path, "file is larger than the " + std::to_string(max_bytes >> 20) + " MiB limit");
    out.resize(reader->file_size());
    out.resize(reader->Read(out.data(), out.size()));
    return out;
  }
  size_t used = 0;
  out.resize(std::min<uint64_t>(std::max<uint64_t>(reader->file_size() * 4, 1 << 16), max_bytes));
  for (;;) {
    if (used == out.size()) {
      if (out.size() >= max_bytes) {
        char probe;
        if (reader->Read(&probe, 1) == 0) break;
        throw InputError(path, !limit_problem.empty() ? limit_problem
                                                      : "gzip content inflates beyond the " +
                                                            std::to_string(max_bytes >> 20) + " MiB limit");
      }
      out.resize(std::min<uint64_t>(out.size() * 2, max_bytes));
    }
    size_t n = reader->Read(out.data() + used, out.size() - used);
    if (n == 0) break;
    used += n;
  }
  out.resize(used);
  return out;
}

std::string PeekContent(const std::string& path, size_t n, bool* was_gzipped) {
  auto reader = ChunkReader::Open(path);
  if (was_gzipped) *was_gzipped = reader->gzipped();
  std::string out(n, '\0');
  size_t got = 0;
  try {
    while (got < n) {
      size_t k = reader->Read(out.data() + got, n - got);
      if (k == 0) break;
      got += k;
    }
  } catch (const InputError&) {
    if (got == 0) throw;  // A peek tolerates a problem past what it needs.
  }
  out.resize(got);
  return out;
}

}  // namespace tfprof
