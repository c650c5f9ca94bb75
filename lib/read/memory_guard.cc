#include "lib/read/memory_guard.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "lib/model/errors.h"
#include "lib/read/byte_source.h"
#include "lib/read/capture_formats.h"
#include "lib/read/memory_budget.h"

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

// The number in a cgroup file; nullopt when absent or "max" (no limit).
std::optional<uint64_t> ReadCgroupNumber(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max") return std::nullopt;
  return ParseSize(text);
}

// A counter of a cgroup's memory.stat ("inactive_file 12345" lines).
std::optional<uint64_t> ReadCgroupStat(const std::string& path, std::string_view key) {
  std::ifstream in(path);
  std::string name;
  uint64_t value;
  while (in >> name >> value)
    if (name == key) return value;
  return std::nullopt;
}

std::string ReadAll(const char* path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::optional<uint64_t> CgroupMemoryRoom(const std::string& cgroup_root, std::string_view proc_self_cgroup) {
  std::optional<uint64_t> room;
  // v1 writes "no limit" as a huge page-rounded number (9223372036854771712).
  constexpr uint64_t kUnlimited = uint64_t{1} << 60;
  auto consider = [&](const std::string& dir, const char* limit_file, const char* usage_file) {
    std::optional<uint64_t> limit = ReadCgroupNumber(dir + "/" + limit_file);
    if (!limit || *limit >= kUnlimited) return;
    uint64_t usage = ReadCgroupNumber(dir + "/" + usage_file).value_or(0);
    // Usage counts the page cache too; its inactive part is reclaimed before
    // the limit kills anything (what container runtimes call the working
    // set). v1 names the hierarchical counter total_inactive_file.
    const bool v1 = std::string_view(limit_file) == "memory.limit_in_bytes";
    std::optional<uint64_t> inactive =
        ReadCgroupStat(dir + "/memory.stat", v1 ? "total_inactive_file" : "inactive_file");
    if (inactive) usage -= std::min(usage, *inactive);
    uint64_t r = *limit > usage ? *limit - usage : 0;
    if (!room || r < *room) room = r;
  };
  // From the cgroup's own folder up to the mount's root.
  auto each_level = [&](const std::string& base, std::string path, const char* limit_file, const char* usage_file) {
    for (;;) {
      while (!path.empty() && path.back() == '/') path.pop_back();
      consider(base + path, limit_file, usage_file);
      if (path.empty()) return;
      path.erase(path.rfind('/') == std::string::npos ? 0 : path.rfind('/'));
    }
  };
  bool any = false;
  std::istringstream lines{std::string(proc_self_cgroup)};
  for (std::string line; std::getline(lines, line);) {
    // "hierarchy-id:controllers:path"; v2 is "0::path".
    size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    std::string id = line.substr(0, a), controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    if (id == "0" && controllers.empty()) {
      each_level(cgroup_root, path, "memory.max", "memory.current");
      any = true;
    } else if (("," + controllers + ",").find(",memory,") != std::string::npos) {
      each_level(cgroup_root + "/memory", path, "memory.limit_in_bytes", "memory.usage_in_bytes");
      any = true;
    }
  }
  if (!any) {  // No /proc/self/cgroup: the mount roots alone.
    consider(cgroup_root, "memory.max", "memory.current");
    consider(cgroup_root + "/memory", "memory.limit_in_bytes", "memory.usage_in_bytes");
  }
  return room;
}

std::optional<uint64_t> AvailableMemoryBytes(bool* from_env) {
  if (from_env) *from_env = false;
  if (const char* env = std::getenv("TFPROF_MEMORY_LIMIT"); env && *env) {
    if (from_env) *from_env = true;
    return ParseSize(env);
  }
  std::optional<uint64_t> avail = MemAvailable();
  std::optional<uint64_t> room = CgroupMemoryRoom("/sys/fs/cgroup", ReadAll("/proc/self/cgroup"));
  if (room && (!avail || *room < *avail)) avail = room;
  return avail;
}

uint64_t EstimatedReadBytes(CaptureFormat format, uint64_t file_bytes) {
  return FormatRow(format).estimated_read_bytes(file_bytes);
}

void CheckMemoryFor(const std::string& path, CaptureFormat format, ReadOptions& options) {
  bool from_env = false;
  std::optional<uint64_t> available = AvailableMemoryBytes(&from_env);
  if (!available) return;
  // The readers charge what they build against it; --max-events bounds only
  // the events, not planes, lines, names or inflation.
  options.memory_limit_bytes = std::max<uint64_t>(*available, 1);
  options.memory_limit_from_env = from_env;
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
    uint64_t room = FormatRow(format).inflate_room(*available);
    if (room < options.max_inflated_bytes) {
      options.max_inflated_bytes = room;
      options.inflate_limit_from_memory = true;
    }
    return;
  }
  if (options.max_events) return;  // The estimate assumes every event is read.
  uint64_t need = EstimatedReadBytes(format, file_bytes);
  if (need > *available)
    throw InputError(path,
                     "reading this " + MemorySize(file_bytes) + " capture needs about " + MemorySize(need) +
                         " of memory, but only " + MemorySize(*available) + " is available; read part of it",
                     kExitBadInput, InputHint::kReadPartOfTheEvents);
}

}  // namespace tfprof
