// The command line as a user meets it: exit codes, one-line errors, formats.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "nlohmann/json.hpp"
#include "tests/support/corpus.h"
#include "tests/support/run_tool.h"
#include "tests/support/skip.h"
#include "tests/support/xspace_builder.h"

using tfprof::testing::RunTool;

namespace {

std::string SmallCapturePath() {
  tfprof::testing::XSpaceBuilder b;
  b.Hostname("box");
  b.Plane("/host:CPU").Line(7, "python3", 1000).Event("train", 0, 2'000'000'000).Event("MatMul", 10, 5'000'000);
  return b.WriteTemp("box.xplane.pb");
}

int Lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

}  // namespace

TEST_CASE("info prints a table, CSV and JSON", "[cli]") {
  std::string path = SmallCapturePath();
  auto table = RunTool("info " + path);
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::Contains("1 host (box) · no device plane (host only) · 2 events over 2.000 ms"));
  CHECK(table.err.empty());

  auto csv = RunTool("info --format csv " + path);
  REQUIRE(csv.exit_code == 0);
  CHECK(csv.out == "host,plane_id,plane,lines,events,event_names,span_ms,device\nbox,0,/host:CPU,1,2,2,2.000,\n");

  auto lines = RunTool("info -f csv --table lines " + path);
  CHECK(lines.out == "host,plane,line_id,line,events,span_ms\nbox,/host:CPU,7,python3,2,2.000\n");

  auto json = RunTool("info -f json " + path);
  REQUIRE(json.exit_code == 0);
  auto doc = nlohmann::json::parse(json.out);
  CHECK(doc["command"] == "info");
  CHECK(doc["tables"]["hosts"][0]["events"] == 2);
  CHECK(doc["tables"]["hosts"][0]["hostname"] == "box");
  CHECK(doc["tables"]["lines"][0]["line"] == "python3");
  CHECK(doc["diagnostics"].is_array());
}

TEST_CASE("The --output option writes the report to a file", "[cli]") {
  std::string path = SmallCapturePath();
  std::string out = tfprof::testing::TempDir() + "/info.csv";
  auto r = RunTool("info -f csv -o " + out + " " + path);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.empty());
  std::ifstream in(out);
  std::string header;
  std::getline(in, header);
  CHECK(header == "host,plane_id,plane,lines,events,event_names,span_ms,device");
}

TEST_CASE("Errors are one line on stderr with a documented exit code", "[cli][bad]") {
  std::string dir = tfprof::testing::TempDir();
  std::ofstream(dir + "/junk.xplane.pb", std::ios::binary) << std::string("\x0a\x50garbage", 9);

  struct Case {
    std::string args;
    int code;
    std::string contains;
  };
  for (const Case& c : std::vector<Case>{
           {"info " + dir + "/nothing", 3, "nothing: no such file or folder"},
           {"info " + dir + "/junk.xplane.pb", 3, "junk.xplane.pb: not a valid XSpace protobuf"},
           {"info", 2, "path is required"},
           {"info --format xml " + dir, 2, "--format"},
           {"frobnicate " + dir, 2, "unknown command 'frobnicate' (commands: info"},
           {"info --host nobody " + SmallCapturePath(), 2, "no host named 'nobody'"},
       }) {
    INFO(c.args);
    auto r = RunTool(c.args);
    CHECK(r.exit_code == c.code);
    CHECK_THAT(r.err, Catch::Contains(c.contains));
    if (c.code == 3) {
      CHECK(Lines(r.err) == 1);
      CHECK_THAT(r.err, Catch::StartsWith("tfprof-analyze: error: "));
    }
    CHECK(r.out.empty());
  }
}

TEST_CASE("info on a real logdir lists runs and reads the newest", "[cli][corpus]") {
  REQUIRE_CORPUS(logdir, "e4040-2023fall-assign2-hd2551/logs/fit");
  auto runs = RunTool("info --list-runs -f csv " + logdir);
  REQUIRE(runs.exit_code == 0);
  CHECK(Lines(runs.out) == 6);  // Header + 5 runs.
  auto r = RunTool("info -f csv --table hosts " + logdir);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("instance-2,instance-2,"));
  CHECK_THAT(r.out, Catch::Contains("2023_11_07_18_47_18"));
  auto old = RunTool("info -f csv --run 2023_11_07_18_18_59 " + logdir);
  CHECK_THAT(old.out, Catch::Contains("instance-2,0,/device:GPU:0,7,377,213,10.955,"));
}

TEST_CASE("Analyses a capture lacks exit with code 4 and say why", "[cli]") {
  const std::string root = TFPROF_SOURCE_DIR;
  struct Case {
    std::string args, contains;
  };
  for (const Case& c : std::vector<Case>{
           {"kernel-stats " + root + "/testdata/captures/tf_input_bound", "no GPU device plane"},
           {"steps " + root + "/testdata/captures/tf_no_steps", "--step-marker REGEX or --whole-trace"},
           {"memory " + root + "/testdata/captures/tf_input_bound", "memory"},
           {"tf-data " + root + "/testdata/captures/tf_no_steps", "no tf.data iterator events"},
       }) {
    INFO(c.args);
    auto r = RunTool(c.args);
    CHECK(r.exit_code == 4);
    CHECK_THAT(r.err, Catch::StartsWith("tfprof-analyze: error: "));
    CHECK_THAT(r.err, Catch::Contains(c.contains));
    CHECK(Lines(r.err) == 1);
  }
}

TEST_CASE("op-stats CSV keeps the TensorFlow Profiler's column labels", "[cli]") {
  auto r = RunTool("op-stats -f csv --top 1 " + std::string(TFPROF_SOURCE_DIR) + "/testdata/captures/tf_custom_loop");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("Rank,Host/device,Type,Operation,#Occurrences,Total time (us),Avg. time (us),"
                                      "Total self-time (us),Avg. self-time (us),Total self-time on Device (%),"
                                      "Cumulative total-self time on Device (%),Total self-time on Host (%),"
                                      "Cumulative total-self time on Host (%),Execution mode\n"));
  auto bad =
      RunTool("op-stats --sort nonsense " + std::string(TFPROF_SOURCE_DIR) + "/testdata/captures/tf_custom_loop");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("--sort: unknown or unsortable column 'nonsense'"));
}

TEST_CASE("The overview of a real GPU run reads as the TensorFlow Profiler's", "[cli][corpus]") {
  REQUIRE_CORPUS(run, "e4040-2023fall-assign2-hd2551/logs/fit/20231107-181856/train");
  auto r = RunTool("overview " + run);
  REQUIRE(r.exit_code == 0);
  // TensorFlow's own overview_page.pb for this run says the same.
  CHECK_THAT(r.out, Catch::Contains("verdict: POTENTIALLY input-bound"));
  CHECK_THAT(r.out, Catch::Contains("24.3% of the total step time sampled is spent on 'All Others' time"));
  CHECK_THAT(r.out,
             Catch::Contains("13.7 % of the total step time sampled is spent on 'Kernel Launch'. It could be due to "
                             "CPU contention with tf.data. In this case, you may try to set the environment variable "
                             "TF_GPU_THREAD_MODE=gpu_private."));
  CHECK_THAT(r.out, Catch::Contains("step time 10.63 ms"));
  CHECK_THAT(r.out, Catch::Contains("op placement: host 14.4% · device 85.6% of TF op executions"));
  auto xprof = RunTool("overview --compat xprof " + run);
  // Current xprof builds GPU steps from device events only: no kernel launch.
  CHECK_THAT(xprof.out, Catch::Contains("42.5% of the total step time sampled is spent on 'All Others' time"));
}
