// The H100 captures made to show one problem each (scripts/capture/
// gpu_torch_advise.py; testdata/captures/README.md): the numbers the
// analyses give equal the independent facts counted from the raw traces
// (scripts/reference/kineto_gpu_facts.py -> expected_facts.json).
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <string>

#include "nlohmann/json.hpp"
#include "tests/support/corpus.h"
#include "tests/support/run_tool.h"

using tfprof::testing::RunTool;
using tfprof::testing::SourcePath;

namespace {

nlohmann::json Facts(const std::string& capture) {
  std::ifstream in(SourcePath("testdata/captures/" + capture + "/expected_facts.json"));
  return nlohmann::json::parse(in);
}

// metric -> value of `metrics -f json`.
nlohmann::json Metrics(const std::string& capture) {
  const auto r = RunTool("metrics -f json " + SourcePath("testdata/captures/" + capture));
  REQUIRE(r.exit_code == 0);
  nlohmann::json out;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  for (const auto& row : doc["tables"]["metrics"]) out[row["metric"].get<std::string>()] = row["value"];
  return out;
}

double StepAvgMs(const nlohmann::json& facts) {
  double sum = 0;
  for (const auto& s : facts["profiler_steps"]) sum += s["dur_ns"].get<double>();
  return sum / static_cast<double>(facts["profiler_steps"].size()) / 1e6;
}

}  // namespace

TEST_CASE("Launch-bound capture: 1,803 tiny kernels in 3 steps of ~14.5 ms", "[cli][gpu_captures]") {
  const nlohmann::json facts = Facts("torch_gpu_launch_bound"), m = Metrics("torch_gpu_launch_bound");
  CHECK(facts["kernels"]["count"] == 1803);  // 3 steps x (600 elementwise + 1 matmul).
  CHECK(m["kernels.launches"] == facts["kernels"]["count"]);
  CHECK(m["kernels.time_ms"].get<double>() == Approx(facts["kernels"]["total_ns"].get<double>() / 1e6).margin(0.0005));
  CHECK(m["overview.steps"] == 3);
  CHECK(m["overview.step_time_ms.avg"].get<double>() == Approx(StepAvgMs(facts)).margin(0.0005));
  // The GPU is busy a small part of each step: kernels 2.16 ms of 43.4 ms.
  CHECK(m["kernels.time_ms"].get<double>() < 0.06 * 3 * m["overview.step_time_ms.avg"].get<double>());
}

TEST_CASE("DataLoader-bound capture: the steps wait for a slow single-process loader", "[cli][gpu_captures]") {
  const nlohmann::json facts = Facts("torch_gpu_dataloader_bound"), m = Metrics("torch_gpu_dataloader_bound");
  CHECK(m["kernels.launches"] == facts["kernels"]["count"]);
  CHECK(m["kernels.time_ms"].get<double>() == Approx(facts["kernels"]["total_ns"].get<double>() / 1e6).margin(0.0005));
  CHECK(m["overview.step_time_ms.avg"].get<double>() == Approx(StepAvgMs(facts)).margin(0.0005));
  // 4 samples x 3 ms of sleep per step, in the DataLoader's __next__: Input.
  CHECK(m["overview.input_ms.avg"].get<double>() > 12.0);
  CHECK(m["overview.input_percent"].get<double>() > 70.0);
}

TEST_CASE("Memory-near-capacity capture: 90% of the H100 reserved", "[cli][gpu_captures]") {
  const nlohmann::json facts = Facts("torch_gpu_memory_near_capacity"), m = Metrics("torch_gpu_memory_near_capacity");
  const nlohmann::json& device = facts["memory_events"]["by_device"]["1:0"];
  CHECK(m["memory.cuda_0.peak_usage_bytes"] == device["peak_total_allocated"]);
  CHECK(m["memory.cuda_0.capacity_bytes"] == device["peak_total_reserved"]);
  CHECK(m["memory.cuda_0.allocations"] == device["allocations"]);
  // 76.6 GB of the card's 85.0 GB (capture_info.json: device_total_bytes).
  CHECK(device["peak_total_reserved"].get<double>() / 85017493504.0 == Approx(0.9015).margin(0.001));
}
