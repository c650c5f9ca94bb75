// Where the real captures of ../shared/corpus are, for tests that read them.
// Tests that need the corpus call CorpusPathOrSkip(), which prints why and
// returns empty when the corpus is absent.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace tfprof::testing {

inline std::string CorpusDir() {
  if (const char* env = std::getenv("TFPROF_CORPUS"); env && *env) return env;
  return TFPROF_CORPUS_DIR_DEFAULT;
}

// The absolute path of `relative` inside the corpus, or "" when absent.
inline std::string CorpusPath(const std::string& relative) {
  std::filesystem::path p = std::filesystem::path(CorpusDir()) / relative;
  return std::filesystem::exists(p) ? p.string() : std::string();
}

inline std::string SourcePath(const std::string& relative) { return std::string(TFPROF_SOURCE_DIR) + "/" + relative; }

}  // namespace tfprof::testing
