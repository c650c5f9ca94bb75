// TensorFlow 1 timelines on the command line: the analyses work without
// options, and --whole-trace is never answered with advice to use
// --whole-trace.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "nlohmann/json.hpp"
#include "tests/support/corpus.h"
#include "tests/support/run_tool.h"
#include "tests/support/skip.h"
#include "tests/support/xspace_builder.h"

using tfprof::testing::RunTool;

TEST_CASE("TF1 GPU timeline: op-stats, placement, overview and kernel-stats without options", "[cli][tf1][corpus]") {
  REQUIRE_CORPUS(path, "tf1_timelines/dlprof/misc/timelines/feeddict/timeline_01.json");
  for (std::string command : {"op-stats", "placement", "overview", "kernel-stats", "steps"}) {
    INFO(command);
    auto r = RunTool(command + " -f json " + path);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.empty());
  }
  auto overview = nlohmann::json::parse(RunTool("overview -f json " + path).out);
  // One GPU (the trace has 14 processes about it), one step: the session.run
  // from 1523836907451598 to 1523836907471853 us (first and last event).
  const std::string head = overview["statements"][0];
  CHECK_THAT(head, Catch::Contains("1 GPU (GPU) · 1 step profiled"));
  auto steps = nlohmann::json::parse(RunTool("steps -f json " + path).out);
  REQUIRE(steps["tables"]["steps"].size() == 1);
  CHECK(steps["tables"]["steps"][0]["step_time_ms"].get<double>() == Approx(20.255).epsilon(1e-12));
}

TEST_CASE("Whole-trace step of a TF1 GPU timeline is measured", "[cli][tf1][corpus]") {
  // The timeline's device events carry no correlation ids; --whole-trace used
  // to drop its one step and then advise --whole-trace.
  REQUIRE_CORPUS(path, "tf1_timelines/dlprof/misc/timelines/feeddict/timeline_01.json");
  auto r = RunTool("steps --whole-trace -f json " + path);
  REQUIRE(r.exit_code == 0);
  auto steps = nlohmann::json::parse(r.out);
  REQUIRE(steps["tables"]["steps"].size() == 1);
  CHECK(steps["tables"]["steps"][0]["step_time_ms"].get<double>() == Approx(20.255).epsilon(1e-12));
}

TEST_CASE("Whole-trace that finds no step says why, without advising the option again", "[cli][steps]") {
  // A GPU run whose device did no compute: only a copy.
  tfprof::testing::XSpaceBuilder b;
  b.Hostname("box");
  b.Plane("/host:CPU").Line(1, "python3", 1000).Event("MatMul:MatMul", 0, 5'000'000);
  b.Plane("/device:GPU:0", 1)
      .Line(7, "Stream #7", 1000)
      .Event("MEMCPYHtoD", 1'000'000, 2'000'000, {{"correlation_id", int64_t{3}}});
  const std::string path = b.WriteTemp("box.xplane.pb");

  auto steps = RunTool("steps --whole-trace " + path);
  CHECK(steps.exit_code == 4);
  CHECK_THAT(steps.err, Catch::Contains("--whole-trace makes one step of the capture, but it has no device compute"));
  CHECK_THAT(steps.err, !Catch::Contains("try"));
  CHECK(std::count(steps.err.begin(), steps.err.end(), '\n') == 1);

  auto overview = RunTool("overview --whole-trace " + path);
  REQUIRE(overview.exit_code == 0);
  CHECK_THAT(overview.out, Catch::Contains("no device compute (GPU kernel) event to measure."));
  CHECK_THAT(overview.out, !Catch::Contains("Use --step-marker"));

  // Without the option, both fallbacks are still suggested.
  auto plain = RunTool("steps " + path);
  CHECK(plain.exit_code == 4);
  CHECK_THAT(plain.err, Catch::Contains("(try --step-marker REGEX or --whole-trace, or --steps-between REGEX)"));
}

TEST_CASE("A folder of numbered TF1 timelines is one host with a step per file", "[cli][tf1]") {
  const std::string folder = std::string(TFPROF_SOURCE_DIR) + "/testdata/captures/tf1_timeline";
  auto r = RunTool("steps -f json " + folder);
  REQUIRE(r.exit_code == 0);
  auto steps = nlohmann::json::parse(r.out)["tables"]["steps"];
  REQUIRE(steps.size() == 3);
  // scripts/reference/tf1_timeline_facts.py: each file's first to last event,
  // 610, 700 and 692 us.
  const double want_ms[] = {0.610, 0.700, 0.692};
  for (size_t i = 0; i < 3; ++i) {
    INFO(i);
    CHECK(steps[i]["step"] == "timeline_0" + std::to_string(i + 1));
    CHECK(steps[i]["host"] == "timeline");
    CHECK(steps[i]["step_time_ms"].get<double>() == Approx(want_ms[i]).epsilon(1e-12));
  }
}

TEST_CASE("A numbered timeline that is not a TF1 timeline is one error line naming it", "[cli][tf1][bad_input]") {
  const std::filesystem::path dir = tfprof::testing::TempDir();
  const std::filesystem::path source = std::string(TFPROF_SOURCE_DIR) + "/testdata/captures/tf1_timeline";
  for (const char* f : {"timeline_01.json", "timeline_02.json"}) std::filesystem::copy_file(source / f, dir / f);
  std::ofstream(dir / "timeline_03.json")
      << R"({"traceEvents":[{"ph":"X","name":"x","pid":1,"tid":1,"ts":1,"dur":1}]})";
  auto r = RunTool("steps " + dir.string());
  CHECK(r.exit_code == 3);
  CHECK(r.out.empty());
  CHECK(r.err == "tfprof-analyze: error: " + (dir / "timeline_03.json").string() +
                     ": is numbered as a step of a TensorFlow 1 timeline series (timeline_01.json, ...) but is not a "
                     "TF1 timeline\n");
}
