// PyTorch's ProfilerStep#N numbers its step N (issue #14: the steps table
// said 0, 1, 2, ... whatever N was). Checked against the raw trace JSON: each
// step row is a ProfilerStep#N user annotation of the trace, and its number
// is that N, in the trace's time order.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "lib/read/byte_source.h"
#include "nlohmann/json.hpp"
#include "tests/support/corpus.h"
#include "tests/support/run_tool.h"
#include "tests/support/skip.h"

using tfprof::testing::RunTool;

namespace {

// name -> (N, start) of the trace's host ProfilerStep#N annotations, read
// straight from the JSON (category user_annotation; Operator in 2021 builds;
// not the GPU's copies, gpu_user_annotation).
std::map<std::string, std::pair<int64_t, double>> ProfilerSteps(const std::string& path) {
  nlohmann::json doc = nlohmann::json::parse(tfprof::ReadWholeFile(path, 1u << 30));
  std::map<std::string, std::pair<int64_t, double>> out;
  for (const auto& e : doc["traceEvents"]) {
    const std::string cat = e.value("cat", "");
    if ((cat != "user_annotation" && cat != "Operator") || e.value("ph", "") != "X") continue;
    const std::string name = e.value("name", "");
    if (name.rfind("ProfilerStep#", 0) != 0) continue;
    out[name] = {std::stoll(name.substr(13)), e["ts"].get<double>()};
  }
  return out;
}

void CheckNumbers(const std::string& path, const std::vector<int64_t>& expected) {
  const auto steps = ProfilerSteps(path);
  auto r = RunTool("steps -f json '" + path + "'");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json rows = nlohmann::json::parse(r.out)["tables"]["steps"];
  REQUIRE(rows.size() == expected.size());
  double previous = -1;
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string name = rows[i]["step"];
    INFO(name);
    REQUIRE(steps.count(name) == 1);
    CHECK(rows[i]["step_number"] == steps.at(name).first);
    CHECK(rows[i]["step_number"] == expected[i]);
    CHECK(steps.at(name).second > previous);  // In the trace's order.
    previous = steps.at(name).second;
  }
}

}  // namespace

TEST_CASE("torch_mlp: ProfilerStep#2..#5 are steps 2..5", "[steps][kineto]") {
  // The trace's annotations are ProfilerStep#2..#5 (#0 and #1 were the
  // profiler's wait and warm-up steps, not recorded).
  CheckNumbers(tfprof::testing::SourcePath("testdata/captures/torch_mlp/trace.json"), {2, 3, 4, 5});
}

TEST_CASE("A Kineto GPU trace: ProfilerStep#6..#9 are steps 6..9", "[steps][kineto][corpus]") {
  // ProfilerStep#5..#10 in the trace; with more than five steps the first
  // and last are dropped, as TensorFlow does (tests/analyze/kineto_steps_test.cc).
  REQUIRE_CORPUS(path, "kineto/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz");
  CheckNumbers(path, {6, 7, 8, 9});
}
