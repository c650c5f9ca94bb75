// The commands read one RunSummary per run, built in one pass over each
// host: what grouping events met is counted once, whichever command shows it.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "nlohmann/json.hpp"
#include "tests/support/corpus.h"
#include "tests/support/run_tool.h"
#include "tests/support/xspace_builder.h"

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

TEST_CASE("input-pipeline reports the op metrics' host side alone, from a capture or a summary", "[cli][run_summary]") {
  // A JAX GPU capture: its device side counts 168 events of XLA ops and 6
  // of command buffers (op metrics' diagnostics), its host side nothing.
  // input-pipeline shows no device op, so makes and reports none of them;
  // overview does.
  const std::string path = tfprof::testing::SourcePath("testdata/captures/jax_gpu");
  const auto overview = RunTool("overview -f json " + path);
  REQUIRE(overview.exit_code == 0);
  CHECK(DiagnosticCount(overview.out, "op_stats.xla_ops") == 168);
  CHECK(DiagnosticCount(overview.out, "op_stats.xla_command_buffer") == 6);
  const auto direct = RunTool("input-pipeline -f json " + path);
  REQUIRE(direct.exit_code == 0);
  CHECK(DiagnosticCount(direct.out, "op_stats.xla_ops") == 0);
  CHECK(DiagnosticCount(direct.out, "op_stats.xla_command_buffer") == 0);
  // A summary holds every part; read by input-pipeline, it gives the same
  // page, diagnostics included.
  const std::string summary = tfprof::testing::TempDir() + "/input_pipeline_host_side.tfsum";
  REQUIRE(RunTool("summarize " + path + " -o " + summary).exit_code == 0);
  const auto from_summary = RunTool("input-pipeline -f json " + summary);
  REQUIRE(from_summary.exit_code == 0);
  CHECK(from_summary.out == direct.out);
  CHECK(nlohmann::json::parse(direct.out)["tables"].size() == 3);
}
