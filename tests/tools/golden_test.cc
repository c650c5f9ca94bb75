// Golden CLI outputs (tests/golden/cases.txt): the command's stdout must
// equal tests/golden/<name>.out; a difference fails with `diff -u`.
#include <catch2/catch.hpp>

#include <fstream>

#include "tests/support/corpus.h"
#include "tests/support/run_tool.h"

TEST_CASE("Golden outputs of the commands on the bundled captures", "[cli][golden]") {
  std::ifstream cases(tfprof::testing::SourcePath("tests/golden/cases.txt"));
  REQUIRE(cases);
  std::string line;
  int ran = 0;
  while (std::getline(cases, line)) {
    if (line.empty() || line[0] == '#') continue;
    size_t bar = line.find(" | ");
    REQUIRE(bar != std::string::npos);
    const std::string name = line.substr(0, bar), args = line.substr(bar + 3);
    INFO(name << ": tfprof-analyze " << args);
    auto r = tfprof::testing::RunToolIn(TFPROF_SOURCE_DIR, args);
    INFO("stderr: " << r.err);
    std::string diff = tfprof::testing::DiffWithGolden(tfprof::testing::SourcePath("tests/golden/" + name + ".out"), r.out);
    INFO(diff);
    CHECK(diff.empty());
    ++ran;
  }
  CHECK(ran >= 10);
}
