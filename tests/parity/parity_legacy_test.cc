// Parity with the per-tool files TensorFlow wrote beside the corpus captures.
#include <catch2/catch.hpp>

#include "tests/parity/check_cases.h"
#include "tests/support/corpus.h"
#include "tests/support/skip.h"

using namespace tfprof::parity;

namespace {

void RunAll(const std::string& analysis, const std::string& reference = "TF legacy .pb") {
  const size_t ran = CheckCases(analysis, reference, /*need_matches=*/false);
  if (ran == 0) tfprof::testing::SkipTest("no corpus at " + tfprof::testing::CorpusDir() + " (set TFPROF_CORPUS)");
}

}  // namespace

TEST_CASE("op-stats matches TensorFlow's tensorflow_stats.pb on every corpus run", "[parity]") { RunAll("op-stats"); }
TEST_CASE("kernel-stats matches TensorFlow's kernel_stats.pb on every corpus run", "[parity]") {
  RunAll("kernel-stats");
}
TEST_CASE("memory matches TensorFlow's memory_profile.json.gz on every corpus run", "[parity][memory]") {
  RunAll("memory", "TF legacy .json.gz");
}
