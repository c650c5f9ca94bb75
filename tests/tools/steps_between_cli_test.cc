// --steps-between on the command line: the steps of a PyTorch loop without
// ProfilerStep#N, the options it cannot be combined with, and what the
// commands say when it finds nothing.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "nlohmann/json.hpp"
#include "tests/support/corpus.h"
#include "tests/support/run_tool.h"
#include "tests/support/xspace_builder.h"

using tfprof::testing::RunTool;

namespace {

const std::string kTrace = tfprof::testing::SourcePath("testdata/captures/torch_gpu_fp32_nosched");
const std::string kDataLoader = " --steps-between 'enumerate\\(DataLoader\\)'";

size_t Lines(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

}  // namespace

TEST_CASE("steps and overview with --steps-between", "[cli][steps_between]") {
  // scripts/reference/kineto_steps.py --steps-between 'enumerate\(DataLoader\)':
  // five steps, 29.578154 ms on average.
  auto steps = RunTool("steps -f json " + kTrace + kDataLoader);
  REQUIRE(steps.exit_code == 0);
  auto j = nlohmann::json::parse(steps.out);
  REQUIRE(j["tables"]["steps"].size() == 5);
  CHECK(j["tables"]["steps"][0]["step"] == "step 1");
  CHECK(j["tables"]["steps"][0]["step_number"] == 1);
  CHECK(j["tables"]["steps"][4]["step_time_ms"].get<double>() == Approx(10.502789).margin(1e-6));

  auto overview = RunTool("overview " + kTrace + kDataLoader);
  REQUIRE(overview.exit_code == 0);
  CHECK_THAT(overview.out, Catch::Contains("· 5 steps profiled"));
  CHECK_THAT(overview.out, Catch::Contains("steps: between the 6 host events matching --steps-between"));

  for (const char* command : {"input-pipeline", "metrics"}) {
    INFO(command);
    CHECK(RunTool(std::string(command) + " -f json " + kTrace + kDataLoader).exit_code == 0);
  }
}

TEST_CASE("steps-between: usage errors and no steps", "[cli][steps_between]") {
  // One way of finding steps at a time.
  for (const char* other : {" --step-marker x", " --whole-trace"}) {
    INFO(other);
    auto r = RunTool("steps " + kTrace + kDataLoader + other);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("excludes"));
  }
  auto bad = RunTool("steps " + kTrace + " --steps-between 'enumerate('");
  CHECK(bad.exit_code == 2);
  CHECK(Lines(bad.err) == 1);

  auto none = RunTool("steps " + kTrace + " --steps-between '^nope$'");
  CHECK(none.exit_code == 4);
  CHECK(Lines(none.err) == 1);
  CHECK_THAT(none.err, Catch::Contains("no host event matches --steps-between '^nope$'"));
  CHECK_THAT(none.err, Catch::Contains("(try another --steps-between REGEX or --whole-trace)"));

  // Without options a PyTorch trace without ProfilerStep#N suggests it.
  auto plain = RunTool("steps " + kTrace);
  CHECK(plain.exit_code == 4);
  CHECK_THAT(plain.err, Catch::Contains("no ProfilerStep#N annotation"));
  CHECK_THAT(plain.err,
             Catch::Contains("for a DataLoader loop without them: --steps-between 'enumerate\\(DataLoader\\)'"));
  auto overview = RunTool("overview " + kTrace);
  REQUIRE(overview.exit_code == 0);
  CHECK_THAT(overview.out, Catch::Contains("--steps-between REGEX"));
}

TEST_CASE("A folder of freely named traces is analysed", "[cli][discovery][sniff]") {
  namespace fs = std::filesystem;
  fs::path dir = tfprof::testing::TempDir();
  fs::copy_file(tfprof::testing::SourcePath("testdata/captures/torch_mlp/trace.json"), dir / "train.json");
  auto info = RunTool("info -f json " + dir.string());
  REQUIRE(info.exit_code == 0);
  auto j = nlohmann::json::parse(info.out);
  REQUIRE(j["tables"]["hosts"].size() == 1);
  CHECK(j["tables"]["hosts"][0]["host"] == "train");

  std::ofstream(dir / "train.json", std::ios::trunc) << R"({"lr": 0.1})";
  auto none = RunTool("info " + dir.string());
  CHECK(none.exit_code == 3);
  CHECK(Lines(none.err) == 1);
  CHECK_THAT(none.err, Catch::Contains("no captures found: recognised are"));
}
