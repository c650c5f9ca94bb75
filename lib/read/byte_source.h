// Getting bytes off disk: memory-mapped files for the protobuf reader, and a
// streaming chunk reader (plain or gzip, inflated with ISA-L) for JSON.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tfprof {

// A read-only view of a whole file. Files are memory-mapped, so the pages a
// reader has finished with can be released (Release) and peak memory stays
// near the size of the model rather than the file.
//
// A mapped file that another process truncates while it is read would kill
// this one with SIGBUS at the first page past the new end. A SIGBUS handler
// (installed by Open unless it is in place, passing faults elsewhere on to
// the handler it replaced) puts zero pages in place of the rest of the
// mapping instead and marks the file: the reader then sees zeros, and
// Shrank() tells it why.
class MappedFile {
 public:
  static std::unique_ptr<MappedFile> Open(const std::string& path);  // Throws InputError.
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::string_view bytes() const { return {data_, size_}; }
  // Tells the kernel the pages wholly inside [begin, end) are no longer
  // needed (they are re-read from the file if touched again). Thread-safe.
  void Release(size_t begin, size_t end) const;
  // Whether the file is now shorter than when it was mapped (then bytes()
  // holds zeros past some point): the content read is not the file's.
  bool Shrank() const;

 private:
  MappedFile() = default;
  const char* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;
  int fd_ = -1;          // Kept open to compare the size at the end.
  int guard_slot_ = -1;  // This mapping's entry in the SIGBUS handler's table.
  std::string owned_;    // The content, when it could not be mapped under the handler.
};

// For tests: called with the path of every file MappedFile::Open maps, after
// mapping it and before any of it is read (to shrink it there). nullptr:
// none.
void SetMappedFileHookForTesting(void (*hook)(const std::string& path));

bool LooksGzipped(std::string_view head);

// Streams a file's content, inflating gzip transparently (detected from the
// magic bytes, not the name).
class ChunkReader {
 public:
  static std::unique_ptr<ChunkReader> Open(const std::string& path);  // Throws InputError.
  virtual ~ChunkReader() = default;
  // Fills up to `capacity` bytes; returns 0 at the end. Throws InputError on
  // a read or inflate failure.
  virtual size_t Read(char* out, size_t capacity) = 0;
  virtual bool gzipped() const = 0;
  // Bytes consumed from the file so far (compressed bytes for gzip).
  virtual uint64_t file_offset() const = 0;
  uint64_t file_size() const { return file_size_; }

 protected:
  uint64_t file_size_ = 0;
};

// Reads a whole file into memory, inflating gzip. Refuses output larger than
// `max_bytes` (a gzip bomb, or a file larger than memory allows).
// `limit_problem` is the error text when gzip content exceeds it.
std::string ReadWholeFile(const std::string& path, uint64_t max_bytes, bool* was_gzipped = nullptr,
                          const std::string& limit_problem = "");

// The first `n` bytes of the content (inflated if gzipped), for format
// detection.
std::string PeekContent(const std::string& path, size_t n, bool* was_gzipped = nullptr);

}  // namespace tfprof
