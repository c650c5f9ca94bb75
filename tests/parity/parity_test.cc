// Parity with the TensorFlow Profiler, number by number (ctest label
// "parity"). Each case is one run × analysis × reference; the tolerances
// are in parity.h and docs/parity.md.
#include <catch2/catch.hpp>

#include "tests/parity/check_cases.h"
#include "tests/support/corpus.h"

using namespace tfprof::parity;

namespace {

void RunAll(const std::string& analysis, const std::string& reference) {
  CHECK(CheckCases(analysis, reference, /*need_matches=*/true) >
        0);  // testdata/ always has cases; the corpus adds more.
}

}  // namespace

TEST_CASE("op-stats matches xprof on every run with a reference", "[parity]") { RunAll("op-stats", "xprof 2.24.2"); }
TEST_CASE("kernel-stats matches xprof on every run with a reference", "[parity]") {
  RunAll("kernel-stats", "xprof 2.24.2");
}
TEST_CASE("memory matches xprof on every host with a reference", "[parity][memory]") {
  RunAll("memory", "xprof 2.24.2");
}
