// Catch2 main that lets a test report "skipped" to ctest: a test whose data is
// absent (the shared corpus) calls SkipTest(why); when it otherwise passed, the
// process exits with 77, which ctest shows as "Skipped".
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "tests/support/skip.h"

namespace tfprof::testing {
bool g_skipped = false;
}

int main(int argc, char* argv[]) {
  int failures = Catch::Session().run(argc, argv);
  if (failures == 0 && tfprof::testing::g_skipped) return 77;
  return failures;
}
