#include "lib/read/memory_guard.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "lib/model/errors.h"
#include "lib/read/byte_source.h"

namespace tfprof {
namespace {

std::optional<uint64_t> ParseSize(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (end == text.c_str()) return std::nullopt;
  std::string suffix(end);
  uint64_t scale = 1;
  if (suffix == "K" || suffix == "k") scale = uint64_t{1} << 10;
  else if (suffix == "M" || suffix == "m") scale = uint64_t{1} << 20;
  else if (suffix == "G" || suffix == "g") scale = uint64_t{1} << 30;
  else if (!suffix.empty()) return std::nullopt;
  return static_cast<uint64_t>(v) * scale;
}

std::optional<uint64_t> MemAvailable() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kb;
  std::string unit;
  while (in >> key >> kb) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return kb << 10;
  }
  long pages = ::sysconf(_SC_AVPHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
  return std::nullopt;
}

// Room left under a cgroup v2 memory limit, if one is set.
std::optional<uint64_t> CgroupRoom() {
  std::ifstream max_in("/sys/fs/cgroup/memory.max"), cur_in("/sys/fs/cgroup/memory.current");
  std::string max_text;
  uint64_t current = 0;
  if (!(max_in >> max_text) || max_text == "max" || !(cur_in >> current)) return std::nullopt;
  auto max = ParseSize(max_text);
  if (!max) return std::nullopt;
  return *max > current ? *max - current : 0;
}

std::string Size(uint64_t bytes) {
  char text[32];
  if (bytes >= (uint64_t{1} << 30)) std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1 << 30));
  else if (bytes >= (uint64_t{1} << 20)) std::snprintf(text, sizeof text, "%llu MiB", static_cast<unsigned long long>(bytes >> 20));
  else std::snprintf(text, sizeof text, "%llu KiB", static_cast<unsigned long long>(bytes >> 10));
  return text;
}

}  // namespace

std::optional<uint64_t> AvailableMemoryBytes() {
  if (const char* env = std::getenv("TFPROF_MEMORY_LIMIT"); env && *env) return ParseSize(env);
  std::optional<uint64_t> avail = MemAvailable();
  if (std::optional<uint64_t> room = CgroupRoom(); room && (!avail || *room < *avail)) avail = room;
  return avail;
}

uint64_t EstimatedReadBytes(CaptureFormat format, uint64_t file_bytes) {
  return format == CaptureFormat::kXSpace ? file_bytes + file_bytes / 2 : file_bytes / 2;
}

void CheckMemoryFor(const std::string& path, CaptureFormat format, ReadOptions& options) {
  std::optional<uint64_t> available = AvailableMemoryBytes();
  if (!available || options.max_events) return;  // --max-events bounds the model instead.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;  // The reader reports it.
  const uint64_t file_bytes = static_cast<uint64_t>(st.st_size);
  bool gzipped = false;
  try {
    PeekContent(path, 2, &gzipped);
  } catch (const InputError&) {
    return;  // The reader reports it.
  }
  if (gzipped) {
    // Inflated size unknown: bound the inflation by what memory allows.
    uint64_t room = format == CaptureFormat::kXSpace ? *available / 5 * 2 : *available * 2;
    if (room < options.max_inflated_bytes) {
      options.max_inflated_bytes = room;
      options.inflate_limit_from_memory = true;
    }
    return;
  }
  uint64_t need = EstimatedReadBytes(format, file_bytes);
  if (need > *available)
    throw InputError(path, "reading this " + Size(file_bytes) + " capture needs about " + Size(need) +
                               " of memory, but only " + Size(*available) +
                               " is available; read part of it with --max-events N");
}

}  // namespace tfprof
