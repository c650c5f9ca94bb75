// Whole-file reads and writes for tests: the inputs they make and the
// outputs they compare.
#pragma once

#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace tfprof::testing {

// A file's bytes ("" when it cannot be read).
inline std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Writes `bytes` to `path`, creating its folders.
inline void WriteFile(const std::filesystem::path& path, const std::string& bytes) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

// Writes `bytes` gzip-compressed (zlib `mode`, e.g. "wb9" for level 9);
// false when zlib fails.
inline bool WriteGzipFile(const std::filesystem::path& path, const std::string& bytes, const char* mode = "wb") {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  gzFile gz = gzopen(path.c_str(), mode);
  if (!gz) return false;
  const bool written = gzwrite(gz, bytes.data(), static_cast<unsigned>(bytes.size())) == static_cast<int>(bytes.size());
  return gzclose(gz) == Z_OK && written;
}

}  // namespace tfprof::testing
