#include "lib/render/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

#include "fmt/format.h"
#include "lib/model/errors.h"

namespace tfprof {
namespace {

namespace fs = std::filesystem;

// The file a write to `path` replaces: the absolute path with every symlink
// that exists resolved, the last component included (writing through a
// link replaces its target, as writing in place always did).
fs::path Destination(const std::string& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  if (ec) return fs::path(path);
  fs::path resolved = fs::weakly_canonical(absolute, ec);
  return ec ? absolute.lexically_normal() : resolved;
}

bool SameFile(const struct stat& st, dev_t dev, ino_t ino) { return st.st_dev == dev && st.st_ino == ino; }

std::string ErrnoText(int err) { return std::strerror(err); }

}  // namespace

void OutputGuard::AddInput(const std::string& path) {
  struct stat st;
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return;
  (S_ISDIR(st.st_mode) ? input_folders_ : input_files_).push_back({st.st_dev, st.st_ino, path});
  for (const std::string& output : outputs_) CheckOutput(output);
}

void OutputGuard::AddOutput(const std::string& path) {
  CheckOutput(path);
  const fs::path destination = Destination(path);
  for (const std::string& other : outputs_)
    if (Destination(other) == destination)
      throw InputError(path,
                       fmt::format("is also the file of another output of this command ({}); give each its own", other),
                       kExitUsage);
  outputs_.push_back(path);
}

void OutputGuard::CheckOutput(const std::string& output) const {
  const fs::path destination = Destination(output);
  struct stat st;
  if (::stat(destination.c_str(), &st) == 0) {
    for (const Identity& in : input_files_)
      if (SameFile(st, in.dev, in.ino))
        throw InputError(output, fmt::format("is an input of this command ({}); refusing to overwrite it", in.path),
                         kExitUsage);
    for (const Identity& in : input_folders_)
      if (SameFile(st, in.dev, in.ino))
        throw InputError(output, fmt::format("is the input folder {}; refusing to write there", in.path), kExitUsage);
  }
  // The folder the file would be created in, and every folder above it: a
  // file written into a logdir or run folder could be read as a capture by
  // the next run, so nothing is written anywhere inside one.
  for (fs::path dir = destination.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if (::stat(dir.c_str(), &st) == 0)
      for (const Identity& in : input_folders_)
        if (SameFile(st, in.dev, in.ino))
          throw InputError(output, fmt::format("lies inside the input folder {}; refusing to write there", in.path),
                           kExitUsage);
    if (dir == dir.root_path()) break;
  }
}

FdStreamBuf::FdStreamBuf(int fd) : fd_(fd), buffer_(size_t{1} << 16) {
  setp(buffer_.data(), buffer_.data() + buffer_.size());
}

FdStreamBuf::int_type FdStreamBuf::overflow(int_type ch) {
  if (!Drain()) return traits_type::eof();
  if (!traits_type::eq_int_type(ch, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(ch);
    pbump(1);
  }
  return traits_type::not_eof(ch);
}

int FdStreamBuf::sync() { return Drain() ? 0 : -1; }

// Writes out the buffer; after the first error, drops what follows (the
// output is lost either way) and keeps reporting it.
bool FdStreamBuf::Drain() {
  const char* p = pbase();
  while (error_ == 0 && p < pptr()) {
    const ssize_t n = ::write(fd_, p, static_cast<size_t>(pptr() - p));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) error_ = n < 0 ? errno : EIO;
    else p += n;
  }
  setp(buffer_.data(), buffer_.data() + buffer_.size());
  return error_ == 0;
}

OutputFile::OutputFile(const std::string& path, const OutputGuard& guard) : path_(path) {
  guard.CheckOutput(path);
  const fs::path destination = Destination(path);
  destination_ = destination.string();
  struct stat st;
  const bool exists = ::stat(destination_.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) throw InputError(path, "is a folder; cannot write the output there", kExitUsage);
  if (exists && !S_ISREG(st.st_mode)) {
    // /dev/null, a terminal, a FIFO: nothing to replace, so write in place.
    // O_NONBLOCK keeps open() from waiting for a FIFO's reader forever.
    fd_ = ::open(destination_.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd_ < 0)
      throw InputError(path,
                       S_ISFIFO(st.st_mode) && errno == ENXIO ? std::string("is a FIFO nobody reads")
                                                              : "cannot open for writing (" + ErrnoText(errno) + ")",
                       kExitUsage);
    ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
  } else {
    // Short name, so that a long file name still leaves room; the random
    // part keeps concurrent runs writing the same output apart.
    const std::string stem = destination.filename().string().substr(0, 64);
    std::random_device random;
    for (int attempt = 0; attempt < 16; ++attempt) {
      temp_ = (destination.parent_path() / fmt::format(".{}.{:08x}.tmp", stem, random())).string();
      fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY | O_CLOEXEC, 0666);
      if (fd_ >= 0 || errno != EEXIST) break;
    }
    if (fd_ < 0) {
      const int err = errno;
      temp_.clear();
      throw InputError(path, "cannot open for writing (" + ErrnoText(err) + ")", kExitUsage);
    }
    // A replaced file keeps its permissions; a new one gets 0666 less the
    // umask, as a plain open() would have given it.
    if (exists) ::fchmod(fd_, st.st_mode & 07777);
  }
  buf_ = std::make_unique<FdStreamBuf>(fd_);
  stream_ = std::make_unique<std::ostream>(buf_.get());
}

OutputFile::~OutputFile() {
  stream_.reset();
  buf_.reset();
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
}

std::ostream& OutputFile::stream() { return *stream_; }

void OutputFile::Commit() {
  stream_->flush();
  int err = buf_->error();
  if (err == 0 && !*stream_) err = EIO;
  // The data reaches the disk before the rename makes it the file, so a
  // crash leaves the old file or the complete new one.
  if (err == 0 && !temp_.empty() && ::fsync(fd_) != 0) err = errno;
  if (::close(fd_) != 0 && err == 0 && errno != EINTR) err = errno;
  fd_ = -1;
  if (err != 0) throw InputError(path_, "write failed (" + ErrnoText(err) + ")", kExitOutputFailed);
  if (!temp_.empty() && ::rename(temp_.c_str(), destination_.c_str()) != 0)
    throw InputError(path_, "write failed: cannot replace the file (" + ErrnoText(errno) + ")", kExitOutputFailed);
  committed_ = true;
}

}  // namespace tfprof
