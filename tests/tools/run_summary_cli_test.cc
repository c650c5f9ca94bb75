// The commands read one RunSummary per run, built in one pass over each
// host: what grouping events met is counted once, whichever command shows it.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "nlohmann/json.hpp"
#include "tests/support/corpus.h"
#include "tests/support/run_tool.h"

using tfprof::testing::RunTool;

namespace {

uint64_t DiagnosticCount(const std::string& json_text, const std::string& kind) {
  const nlohmann::json doc = nlohmann::json::parse(json_text);
  for (const nlohmann::json& d : doc["diagnostics"])
    if (d["kind"] == kind) return d["count"].get<uint64_t>();
  return 0;
}

}  // namespace

TEST_CASE("metrics groups a host's events once, memory profile included", "[cli][run_summary]") {
  // One PyTorch host with [memory] events and three ProfilerStep#N markers
  // (#2, #3, #4: each once on the CPU and once as a GPU user annotation),
  // taken as the steps: one info diagnostic counting the 3 steps. Before the
  // one-pass summary the memory profile grouped the events a second time
  // and `metrics` counted 6.
  const std::string path = tfprof::testing::SourcePath("testdata/captures/torch_gpu_amp");
  const auto metrics = RunTool("metrics -f json " + path);
  REQUIRE(metrics.exit_code == 0);
  CHECK(DiagnosticCount(metrics.out, "steps.profiler_step_marker") == 3);
  const auto memory = RunTool("memory -f json " + path);
  REQUIRE(memory.exit_code == 0);
  CHECK(DiagnosticCount(memory.out, "steps.profiler_step_marker") == 3);
  const auto steps = RunTool("steps -f json " + path);
  REQUIRE(steps.exit_code == 0);
  CHECK(DiagnosticCount(steps.out, "steps.profiler_step_marker") == 3);
}
