// The parity tests' loop: every case of one analysis against one reference
// (parity_cases.cc), each a CHECK that names the case when it fails.
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "tests/parity/parity.h"
#include "tests/support/corpus.h"

namespace tfprof::parity {

// Returns how many cases ran. With `need_matches`, a case that compared no
// value fails too (the reference exists but nothing lined up).
inline size_t CheckCases(const std::string& analysis, const std::string& reference, bool need_matches) {
  size_t ran = 0;
  for (Case& c : AllCases(TFPROF_SOURCE_DIR, tfprof::testing::CorpusDir())) {
    if (c.analysis != analysis || c.reference != reference) continue;
    Tally t = c.run();
    INFO(c.capture << " " << c.analysis << " vs " << c.reference << ": " << t.Summary());
    CHECK(t.ok());
    if (need_matches) CHECK(t.matched > 0);
    ++ran;
  }
  return ran;
}

}  // namespace tfprof::parity
