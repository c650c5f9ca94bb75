#include "lib/read/byte_source.h"

#include <fcntl.h>
#include <isa-l/igzip_lib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
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
  GzipChunkReader(std::string path, int fd, uint64_t size) : path_(std::move(path)), fd_(fd), in_(kInputBlock) {
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
      if (rc < 0 || rc == ISAL_NEED_DICT)
        throw InputError(path_, "gzip data is corrupt (inflate error " + std::to_string(rc) + ")");
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

// Mappings being read, for the SIGBUS handler. A fixed table of atomics:
// the handler may run on any decoding thread at any moment, so it can
// neither lock nor allocate.
struct GuardedMapping {
  std::atomic<uintptr_t> begin{0};  // 0: a free slot.
  std::atomic<size_t> size{0};
  std::atomic<bool> shrank{false};
};
constexpr int kGuardSlots = 64;
GuardedMapping g_guarded[kGuardSlots];
struct sigaction g_previous_sigbus {};
size_t g_page_size = 4096;
void (*g_mapped_hook)(const std::string&) = nullptr;

void OnSigbus(int signal, siginfo_t* info, void* context) {
  const auto addr = reinterpret_cast<uintptr_t>(info->si_addr);
  for (GuardedMapping& m : g_guarded) {
    uintptr_t begin = m.begin.load(std::memory_order_acquire);
    size_t size = m.size.load(std::memory_order_acquire);
    if (begin == 0 || addr < begin || addr >= begin + size) continue;
    // The file ends before this page now. Zero pages from here to the end
    // of the mapping let the reader run on to an error, which Shrank()
    // then explains. (mmap is a plain system call: safe in a handler.)
    uintptr_t page = addr & ~(uintptr_t{g_page_size} - 1);
    uintptr_t end = (begin + size + g_page_size - 1) & ~(uintptr_t{g_page_size} - 1);
    void* p =
        ::mmap(reinterpret_cast<void*>(page), end - page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (p != MAP_FAILED) {
      m.shrank.store(true, std::memory_order_release);
      return;  // The faulting read is retried, and now reads zeros.
    }
    break;
  }
  // Not a mapping of ours (or the zero pages failed): what the handler this
  // one replaced would have done.
  if (g_previous_sigbus.sa_flags & SA_SIGINFO) {
    if (g_previous_sigbus.sa_sigaction) return g_previous_sigbus.sa_sigaction(signal, info, context);
  } else if (g_previous_sigbus.sa_handler != SIG_DFL && g_previous_sigbus.sa_handler != SIG_IGN) {
    return g_previous_sigbus.sa_handler(signal);
  }
  // The default: returning retries the access, which now kills the process.
  ::signal(SIGBUS, SIG_DFL);
}

// Installs OnSigbus unless it is the handler already (checked on every
// Open: something else may have replaced it since).
void InstallSigbusHandler() {
  static const size_t page = [] {
    long p = ::sysconf(_SC_PAGESIZE);
    return p > 0 ? static_cast<size_t>(p) : size_t{4096};
  }();
  g_page_size = page;
  struct sigaction current {};
  if (::sigaction(SIGBUS, nullptr, &current) == 0 && (current.sa_flags & SA_SIGINFO) &&
      current.sa_sigaction == OnSigbus)
    return;
  struct sigaction action {};
  action.sa_sigaction = OnSigbus;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGBUS, &action, &g_previous_sigbus);
}

int ClaimGuardSlot(const char* data, size_t size) {
  for (int i = 0; i < kGuardSlots; ++i) {
    uintptr_t expected = 0;
    if (g_guarded[i].begin.compare_exchange_strong(expected, reinterpret_cast<uintptr_t>(data))) {
      g_guarded[i].shrank.store(false);
      g_guarded[i].size.store(size, std::memory_order_release);
      return i;
    }
  }
  return -1;
}

}  // namespace

void SetMappedFileHookForTesting(void (*hook)(const std::string& path)) { g_mapped_hook = hook; }

bool LooksGzipped(std::string_view head) {
  return head.size() >= 2 && static_cast<uint8_t>(head[0]) == 0x1f && static_cast<uint8_t>(head[1]) == 0x8b;
}

std::unique_ptr<MappedFile> MappedFile::Open(const std::string& path) {
  uint64_t size = 0;
  int fd = OpenReadOnly(path, &size);
  std::unique_ptr<MappedFile> f(new MappedFile());
  f->fd_ = fd;  // Closed by the destructor from here on.
  f->size_ = size;
  if (size == 0) return f;
  InstallSigbusHandler();
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) throw InputError(path, "cannot map file: " + ErrnoText());
  f->data_ = static_cast<const char*>(p);
  f->mapped_ = true;
  f->guard_slot_ = ClaimGuardSlot(f->data_, size);
  if (f->guard_slot_ < 0) {
    // More files mapped at once than the handler watches (never, in this
    // tool): read this one into memory instead, where SIGBUS cannot happen.
    ::munmap(p, size);
    f->mapped_ = false;
    f->owned_.resize(size);
    size_t got = 0;
    while (got < size) {
      ssize_t n = ::pread(fd, f->owned_.data() + got, size - got, static_cast<off_t>(got));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw InputError(path, "read failed: " + ErrnoText());
      if (n == 0) break;  // Shrank since fstat: Shrank() says so.
      got += static_cast<size_t>(n);
    }
    f->data_ = f->owned_.data();
    return f;
  }
  ::madvise(p, size, MADV_SEQUENTIAL);
  if (g_mapped_hook) g_mapped_hook(path);
  return f;
}

MappedFile::~MappedFile() {
  if (guard_slot_ >= 0) {
    g_guarded[guard_slot_].size.store(0, std::memory_order_release);
    g_guarded[guard_slot_].begin.store(0, std::memory_order_release);
  }
  if (mapped_) ::munmap(const_cast<char*>(data_), size_);
  if (fd_ >= 0) ::close(fd_);
}

bool MappedFile::Shrank() const {
  if (guard_slot_ >= 0 && g_guarded[guard_slot_].shrank.load(std::memory_order_acquire)) return true;
  struct stat st {};
  return fd_ >= 0 && ::fstat(fd_, &st) == 0 && static_cast<uint64_t>(st.st_size) < size_;
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

std::string ReadWholeFile(const std::string& path, uint64_t max_bytes, bool* was_gzipped,
                          const std::string& limit_problem) {
  auto reader = ChunkReader::Open(path);
  if (was_gzipped) *was_gzipped = reader->gzipped();
  std::string out;
  if (!reader->gzipped()) {
    if (reader->file_size() > max_bytes)
      throw InputError(path, "file is larger than the " + std::to_string(max_bytes >> 20) + " MiB limit");
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
