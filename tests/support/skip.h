#pragma once

#include <iostream>
#include <string>

namespace tfprof::testing {

extern bool g_skipped;

// Marks the running test as skipped (see test_main.cc) and says why.
inline void SkipTest(const std::string& why) {
  std::cout << "SKIPPED: " << why << "\n";
  g_skipped = true;
}

}  // namespace tfprof::testing

// Returns from the test when the corpus file is absent.
#define REQUIRE_CORPUS(var, relative)                                                                \
  const std::string var = ::tfprof::testing::CorpusPath(relative);                                   \
  if (var.empty()) {                                                                                 \
    ::tfprof::testing::SkipTest("corpus file absent (set TFPROF_CORPUS): " + std::string(relative)); \
    return;                                                                                          \
  }
