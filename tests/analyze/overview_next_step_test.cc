// Two overview values checked against the reference: the input-pipeline
// "next step" statement (xprof's GetSummaryNextStep: the host-side section
// is pointed to only for input-bound runs) and idle_percent of a capture
// without steps (the reference's bottleneck analysis returns before
// computing it, leaving 0).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "lib/analyze/overview_analysis.h"
#include "nlohmann/json.hpp"
#include "tests/support/corpus.h"
#include "tests/support/run_tool.h"

using namespace tfprof;
using tfprof::testing::RunTool;
using tfprof::testing::SourcePath;

namespace {

nlohmann::json ToolJson(const std::string& args) {
  auto r = RunTool(args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}

// xprof's summary_nextstep for a bundled capture (testdata/reference).
std::string XprofNextStep(const std::string& capture) {
  for (const auto& e :
       std::filesystem::recursive_directory_iterator(SourcePath("testdata/reference/captures/" + capture))) {
    if (e.path().filename() != "input_pipeline_analyzer.json") continue;
    std::ifstream in(e.path());
    nlohmann::json doc = nlohmann::json::parse(in);
    for (const auto& table : doc)
      if (table.contains("p") && table["p"].contains("summary_nextstep")) return table["p"]["summary_nextstep"];
  }
  return "(not found)";
}

bool Says(const nlohmann::json& report, const std::string& statement) {
  for (const auto& s : report["statements"])
    if (s == statement) return true;
  return false;
}

}  // namespace

TEST_CASE("No steps: idle_percent is 0, as the reference leaves it", "[overview]") {
  Bottleneck b = AnalyzeBottleneck(StepSummary{}, /*tf_data_in_use=*/true);
  CHECK(b.input_classification == "unknown");
  CHECK(b.idle_percent == 0);  // Was 100 - 0 - 0 - 0 - 0.
  CHECK(b.input_percent == 0);

  nlohmann::json doc = ToolJson("overview -f json " + SourcePath("testdata/captures/tf_no_steps"));
  bool seen = false;
  for (const auto& row : doc["tables"]["summary"])
    if (row["metric"] == "idle_percent") {
      CHECK(row["value"].get<double>() == 0.0);
      seen = true;
    }
  CHECK(seen);
}

TEST_CASE("With steps, idle_percent is what input, output, compute and collectives leave", "[overview]") {
  StepSummary s;
  s.rows.resize(1);
  s.category_percent[static_cast<size_t>(Category::kInput)] = 10;
  s.category_percent[static_cast<size_t>(Category::kDeviceCompute)] = 55;
  s.category_percent[static_cast<size_t>(Category::kOutput)] = 5;
  s.category_percent[static_cast<size_t>(Category::kDeviceCollectives)] = 10;
  CHECK(AnalyzeBottleneck(s, false).idle_percent == Approx(20));
}

TEST_CASE("The next step points to the host-side analysis only for input-bound runs", "[overview]") {
  // tf_keras3_fit uses tf.data but has no steps: xprof says there is nothing
  // more to see (we used to say "Look at Section 3 ..." whenever tf.data ran).
  const std::string skip = "You may skip the rest of this page.";
  REQUIRE(XprofNextStep("tf_keras3_fit") == skip);
  nlohmann::json keras = ToolJson("input-pipeline -f json " + SourcePath("testdata/captures/tf_keras3_fit"));
  CHECK(Says(keras, skip));
  CHECK_FALSE(Says(keras, "Look at Section 3 for the breakdown of input time on the host."));
  // tf.data did run: its preprocessing is in the input-time breakdown.
  double tf_data_us = 0;
  for (const auto& row : keras["tables"]["input_time_breakdown"])
    if (row["category"] != "Enqueue" && row["category"] != "Unclassified (non-enqueue)")
      tf_data_us += row["time_us"].get<double>();
  CHECK(tf_data_us > 0);

  // Input-bound with tf.data: the pointer to Section 3, as xprof.
  const std::string look = "Look at Section 3 for the breakdown of input time on the host.";
  REQUIRE(XprofNextStep("tf_input_bound") == look);
  nlohmann::json bound = ToolJson("input-pipeline -f json " + SourcePath("testdata/captures/tf_input_bound"));
  CHECK(Says(bound, look));
  CHECK_FALSE(Says(bound, skip));
}
