// Bad command lines: every usage error is one line, `tfprof-analyze: error:`
// first, exit 2. Integer options take plain decimal numbers in range, rule
// thresholds finite numbers, rules files small regular files.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <fstream>

#include "tests/support/run_tool.h"
#include "tests/support/usage_errors.h"
#include "tests/support/xspace_builder.h"
#include "tests/tools/run_limited.h"

using tfprof::testing::CheckUsageErrors;
using tfprof::testing::RunLimited;
using tfprof::testing::RunTool;

namespace {

// One host, one line, 12 events "op" of 1 ms, 2 ms apart.
std::string TwelveEvents() {
  tfprof::testing::XSpaceBuilder b;
  auto line = b.Plane("/host:CPU").Line(7, "python3", 1000);
  for (int i = 0; i < 12; ++i) line.Event("op", i * 2'000'000'000LL, 1'000'000'000);
  return b.WriteTemp("box.xplane.pb");
}

}  // namespace

TEST_CASE("Integer options take whole decimal numbers in range", "[cli][usage]") {
  const std::string path = TwelveEvents();
  CheckUsageErrors({
      {"info --max-events -5 " + path,
       "--max-events: '-5' is not a whole number (digits 0-9 only) (see tfprof-analyze info --help)"},
      {"info --max-events 18446744073709551617 " + path,
       "--max-events: '18446744073709551617' is out of range (0 to 18446744073709551615) (see tfprof-analyze info "
       "--help)"},
      {"info --max-events 1e3 " + path,
       "--max-events: '1e3' is not a whole number (digits 0-9 only) (see tfprof-analyze info --help)"},
      {"info --max-events 0x10 " + path,
       "--max-events: '0x10' is not a whole number (digits 0-9 only) (see tfprof-analyze info --help)"},
      {"info --max-inflated-mb 0 " + path,
       "--max-inflated-mb: '0' is out of range (1 to 16777216) (see tfprof-analyze info --help)"},
      {"info --max-inflated-mb -1 " + path,
       "--max-inflated-mb: '-1' is not a whole number (digits 0-9 only) (see tfprof-analyze info --help)"},
      {"info --max-inflated-mb 99999999999999999999 " + path,
       "--max-inflated-mb: '99999999999999999999' is out of range (1 to 16777216) (see tfprof-analyze info --help)"},
      {"op-stats --top -1 " + path,
       "--top: '-1' is not a whole number (digits 0-9 only) (see tfprof-analyze op-stats --help)"},
      {"kernel-stats --top 2x " + path,
       "--top: '2x' is not a whole number (digits 0-9 only) (see tfprof-analyze kernel-stats --help)"},
      {"placement --top -3 " + path,
       "--top: '-3' is not a whole number (digits 0-9 only) (see tfprof-analyze placement --help)"},
      {"tf-data --execution -1 " + path,
       "--execution: '-1' is not a whole number (digits 0-9 only) (see tfprof-analyze tf-data --help)"},
      {"diff --top -1 " + path + " " + path,
       "--top: '-1' is not a whole number (digits 0-9 only) (see tfprof-analyze diff --help)"},
      {"diff --max-events -1 " + path + " " + path,
       "--max-events: '-1' is not a whole number (digits 0-9 only) (see tfprof-analyze diff --help)"},
  });
}

TEST_CASE("Leading zeros are decimal, not octal", "[cli][usage]") {
  // CLI11 on its own reads 010 as 8. Ten events: 0 to 19 ms.
  auto r = RunTool("info -f csv --max-events 010 " + TwelveEvents());
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "host,plane_id,plane,lines,events,event_names,span_ms,device\nbox,0,/host:CPU,1,10,1,19.000,\n");
}

TEST_CASE("Every usage error is one line with the prefix", "[cli][usage]") {
  const std::string path = TwelveEvents();
  CheckUsageErrors({
      {"info", "path is required (see tfprof-analyze info --help)"},
      {"info --bogus " + path, "The following argument was not expected: --bogus (see tfprof-analyze info --help)"},
      {"info " + path + " " + path,
       "The following argument was not expected: " + path + " (see tfprof-analyze info --help)"},
      {"info --format xml " + path, "--format: xml not in {table,csv,json,html,dot} (see tfprof-analyze info --help)"},
      {"", "A subcommand is required (see tfprof-analyze --help)"},
  });
  // Help is not an error: stdout, exit 0.
  auto help = RunTool("info --help");
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.out, Catch::Contains("--max-events"));
  CHECK(help.err.empty());
  auto version = RunTool("--version");
  CHECK(version.exit_code == 0);
  CHECK(version.out == "tfprof-analyze 0.1.0\n");
}

TEST_CASE("Rule thresholds must be finite numbers", "[cli][usage][check]") {
  const std::string path = TwelveEvents();
  const std::string dir = tfprof::testing::TempDir();
  std::ofstream(dir + "/big.rules") << "# budget\nrun.hosts <= 1e400\n";
  CheckUsageErrors(
      {
          // Finite, but not once scaled to bytes.
          {"check " + path + " --max run.hosts=1e308GiB", "--max run.hosts: '1e308GiB' is out of range for a number"},
          {"check " + path + " --max run.hosts=1e400", "--max run.hosts: '1e400' is out of range for a number"},
          {"check " + path + " --min run.hosts=-inf", "--min run.hosts: '-inf' is not a number"},
          {"check " + path + " --max run.hosts=nan", "--max run.hosts: 'nan' is not a number"},
          {"check " + path + " --rules " + dir + "/big.rules",
           dir + "/big.rules:2: '1e400' is out of range for a number"},
          {"diff " + path + " " + path + " --fail-if 'run.hosts>+1e309%'",
           "--fail-if 'run.hosts>+1e309%': '+1e309' is out of range for a number"},
      },
      /*empty_stdout=*/false);
}

TEST_CASE("A rules file may start with a UTF-8 byte order mark", "[cli][check]") {
  const std::string dir = tfprof::testing::TempDir();
  std::ofstream(dir + "/bom.rules", std::ios::binary) << "\xEF\xBB\xBFrun.hosts <= 1\r\nrun.hosts >= 2\r\n";
  const std::string path = TwelveEvents();
  auto r = RunTool("check " + path + " --rules " + dir + "/bom.rules");
  // Both rules read: the first passes (1 host), the second fails.
  CHECK(r.exit_code == 5);
  CHECK_THAT(r.out, Catch::Contains("2 rules: 1 passed, 1 failed, 0 skipped"));
  CHECK(r.err ==
        "tfprof-analyze: error: " + path + ": check failed: 1 of 2 rules failed: run.hosts = 1 count, not >= 2\n");
}

TEST_CASE("Rules files are small regular files", "[cli][usage][check]") {
  const std::string path = TwelveEvents();
  const std::string dir = tfprof::testing::TempDir();
  REQUIRE(::mkfifo((dir + "/fifo").c_str(), 0600) == 0);
  // 1 MiB exactly is read; one byte more is refused.
  const std::string rule = "run.hosts <= 1\n";
  std::ofstream(dir + "/1mib.rules", std::ios::binary) << rule << std::string((1 << 20) - rule.size() - 1, '#') << "\n";
  std::ofstream(dir + "/over.rules", std::ios::binary) << rule << std::string((1 << 20) - rule.size(), '#') << "\n";
  const std::string not_regular = ": the rules file is not a regular file (a folder, device, FIFO or socket)";
  struct Case {
    std::string args, err;
  };
  for (const Case& c : std::vector<Case>{
           {"check " + path + " --rules /dev/zero", "/dev/zero" + not_regular},
           {"check " + path + " --rules " + dir + "/fifo", dir + "/fifo" + not_regular},
           {"check " + path + " --rules " + dir, dir + not_regular},
           {"check " + path + " --rules " + dir + "/over.rules",
            dir + "/over.rules: the rules file is larger than 1 MiB; is it the right file?"},
           {"check " + path + " --rules " + dir + "/none.rules",
            dir + "/none.rules: cannot read the rules file (No such file or directory)"},
       }) {
    INFO(c.args);
    auto r = RunLimited(c.args);
    CHECK(r.exit_code == 2);
    CHECK(r.err == "tfprof-analyze: error: " + c.err + "\n");
  }
  auto exact = RunTool("check " + path + " --rules " + dir + "/1mib.rules");
  CHECK(exact.exit_code == 0);
  CHECK_THAT(exact.out, Catch::Contains("1 rule: 1 passed, 0 failed, 0 skipped"));
}
