// The SHA-256 a run summary records of its capture's files
// (lib/read/file_sha256.h): the digests of FIPS 180-2's examples, the
// files' bytes taken one after another, and one clear error for a file
// that cannot be read.
#include <catch2/catch.hpp>

#include <string>

#include "lib/model/errors.h"
#include "lib/read/file_sha256.h"
#include "tests/support/files.h"
#include "tests/support/xspace_builder.h"

using namespace tfprof;
using tfprof::testing::TempDir;
using tfprof::testing::WriteFile;

TEST_CASE("FilesSha256Hex gives the standard digests, over the files one after another", "[read]") {
  const std::string dir = TempDir();
  WriteFile(dir + "/abc", "abc");
  WriteFile(dir + "/a", "a");
  WriteFile(dir + "/bc", "bc");
  WriteFile(dir + "/empty", "");
  const std::string abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
  CHECK(FilesSha256Hex({dir + "/abc"}) == abc);
  CHECK(FilesSha256Hex({dir + "/a", dir + "/empty", dir + "/bc"}) == abc);
  const std::string empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
  CHECK(FilesSha256Hex({}) == empty);
  CHECK(FilesSha256Hex({dir + "/empty"}) == empty);
  // Longer than one read block (1 MiB): a million 'a's.
  WriteFile(dir + "/million", std::string(1'000'000, 'a'));
  WriteFile(dir + "/x3m", std::string(3'000'000, 'x'));
  CHECK(FilesSha256Hex({dir + "/million"}) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // Three blocks, the last part of one (hashlib's digest).
  CHECK(FilesSha256Hex({dir + "/x3m"}) == "e55b8bdf621ddaa8f462c74745db9680d3bb7536a9cf854f8d6668b34a287890");
  CHECK_THROWS_WITH(FilesSha256Hex({dir + "/missing"}), Catch::Contains("missing") && Catch::Contains("cannot read"));
}
