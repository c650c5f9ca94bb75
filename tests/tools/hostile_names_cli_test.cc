// Names from a capture and from file names on their way to the terminal:
// escape sequences and newlines are shown, never obeyed; CSV and JSON keep
// the exact bytes.
#include <catch2/catch.hpp>

#include <fstream>

#include "nlohmann/json.hpp"
#include "tests/support/run_tool.h"
#include "tests/support/xspace_builder.h"

using tfprof::testing::RunTool;

namespace {

// OSC 0 (window title) in the hostname, a newline faking a table row in the
// line name, OSC 2 and a newline in the file name (the host's name).
const std::string kHostname = "box\x1b]0;pwned\x07";
const std::string kLine = "python3\n  fake 9 9 9";
const std::string kFileHost = "ev\x1b]2;t\x07il\nname";

std::string Capture(const std::string& hostname, const std::string& line, const std::string& file_host) {
  tfprof::testing::XSpaceBuilder b;
  b.Hostname(hostname);
  b.Plane("/host:CPU").Line(7, line, 1000).Event("train", 0, 2'000'000'000);
  return b.WriteTemp(file_host + ".xplane.pb");
}

int Lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

}  // namespace

TEST_CASE("The table view shows control characters from a capture as escapes", "[cli][escape]") {
  const std::string hostile = Capture(kHostname, kLine, kFileHost);
  const std::string clean = Capture("box", "python3", "evilname");
  auto r = RunTool("info -v '" + hostile + "'");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find('\x1b') == std::string::npos);
  CHECK(r.out.find('\x07') == std::string::npos);
  CHECK_THAT(r.out, Catch::Contains("box\\x1b]0;pwned\\x07"));
  CHECK_THAT(r.out, Catch::Contains("python3\\n  fake 9 9 9"));
  CHECK_THAT(r.out, Catch::Contains("ev\\x1b]2;t\\x07il\\nname"));
  // As many lines as the same capture with plain names: no row was faked.
  auto plain = RunTool("info -v " + clean);
  REQUIRE(plain.exit_code == 0);
  CHECK(Lines(r.out) == Lines(plain.out));
}

TEST_CASE("CSV and JSON carry the names byte for byte", "[cli][escape]") {
  const std::string hostile = Capture(kHostname, kLine, kFileHost);
  auto csv = RunTool("info -f csv --table lines '" + hostile + "'");
  REQUIRE(csv.exit_code == 0);
  // RFC 4180: fields with a newline are quoted; the escape bytes are data.
  CHECK(csv.out ==
        "host,plane,line_id,line,events,span_ms\n\"" + kFileHost + "\",/host:CPU,7,\"" + kLine + "\",1,2.000\n");

  auto json = RunTool("info -f json '" + hostile + "'");
  REQUIRE(json.exit_code == 0);
  CHECK(json.out.find('\x1b') == std::string::npos);  // JSON writes control characters as \u001b.
  auto doc = nlohmann::json::parse(json.out);
  CHECK(doc["tables"]["hosts"][0]["hostname"] == kHostname);
  CHECK(doc["tables"]["hosts"][0]["host"] == kFileHost);
  CHECK(doc["tables"]["lines"][0]["line"] == kLine);
}

TEST_CASE("The csv-safe option defuses spreadsheet formulas in text cells, not in numbers", "[cli][csv]") {
  const std::string path = Capture("box", "=HYPERLINK(\"http://x\",\"y\")", "box");
  auto plain = RunTool("info -f csv --table lines " + path);
  REQUIRE(plain.exit_code == 0);
  CHECK(plain.out ==
        "host,plane,line_id,line,events,span_ms\nbox,/host:CPU,7,\"=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",1,2.000\n");
  auto safe = RunTool("info -f csv --csv-safe --table lines " + path);
  REQUIRE(safe.exit_code == 0);
  CHECK(
      safe.out ==
      "host,plane,line_id,line,events,span_ms\nbox,/host:CPU,7,\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",1,2.000\n");
}

TEST_CASE("Error lines escape file names and arguments", "[cli][escape]") {
  const std::string dir = tfprof::testing::TempDir();
  const std::string bad = dir + "/bad\x1b[2J\nname.xplane.pb";
  std::ofstream(bad, std::ios::binary) << std::string("\x0a\x50garbage", 9);
  struct Case {
    std::string args;
    int code;
    std::string err;
  };
  for (const Case& c : std::vector<Case>{
           {"info '" + bad + "'", 3,
            "tfprof-analyze: error: " + dir + "/bad\\x1b[2J\\nname.xplane.pb: not a valid XSpace protobuf"},
           {"'frob\x1b]0;x\x07'", 2, "tfprof-analyze: error: unknown command 'frob\\x1b]0;x\\x07' (commands: info"},
           {"info --format 'x\x1b[2J\ny' " + dir, 2, "tfprof-analyze: error: --format: x\\x1b[2J\\ny not in {"},
       }) {
    INFO(c.args);
    auto r = RunTool(c.args);
    CHECK(r.exit_code == c.code);
    CHECK_THAT(r.err, Catch::StartsWith(c.err));
    CHECK(Lines(r.err) == 1);
    CHECK(r.err.find('\x1b') == std::string::npos);
  }
}
