// Event names and name patterns that used to overflow the stack or take
// exponential time in std::regex (issue #13), run through the command: a
// 40,000-digit ProfilerStep#N, a 60,000-character kernel name, 30,000 nested
// parentheses, `(a+)+$` on a long name. Each must give its real answer (or
// one usage-error line), never a crash. Inputs are written here, to a
// temporary folder.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "lib/summary/name_regex.h"
#include "nlohmann/json.hpp"
#include "tests/support/corpus.h"
#include "tests/support/run_tool.h"
#include "tests/support/xspace_builder.h"

using tfprof::testing::RunTool;
using tfprof::testing::ToolResult;

namespace {

std::string WriteTrace(const std::string& file, const nlohmann::json& events) {
  const std::string path = tfprof::testing::TempDir() + "/" + file;
  std::ofstream(path) << nlohmann::json{{"traceEvents", events}}.dump();
  return path;
}

nlohmann::json Complete(const std::string& name, const char* cat, int64_t ts_us, int64_t dur_us, int pid = 1,
                        int tid = 1) {
  return {{"ph", "X"}, {"cat", cat}, {"name", name}, {"pid", pid}, {"tid", tid}, {"ts", ts_us}, {"dur", dur_us}};
}

// A PyTorch CPU step: the annotation (100 us) around one op (50 us).
std::string StepTrace(const std::string& file, const std::string& step_name) {
  return WriteTrace(file, {Complete(step_name, "user_annotation", 0, 100), Complete("aten::mm", "cpu_op", 10, 50)});
}

// A GPU trace with one step and one launch per kernel name, each kernel
// 40 us long.
std::string KernelTrace(const std::string& file, const std::vector<std::string>& kernels) {
  nlohmann::json events = {Complete("ProfilerStep#1", "user_annotation", 0, 1000)};
  int64_t t = 10;
  int correlation = 1;
  for (const std::string& k : kernels) {
    nlohmann::json launch = Complete("cudaLaunchKernel", "cuda_runtime", t, 5);
    launch["args"] = {{"correlation", correlation}};
    nlohmann::json kernel = Complete(k, "kernel", t + 20, 40, 0, 7);
    kernel["args"] = {{"device", 0},       {"stream", 7},          {"correlation", correlation},
                      {"grid", {1, 1, 1}}, {"block", {128, 1, 1}}, {"registers per thread", 32},
                      {"shared memory", 0}};
    events.push_back(launch);
    events.push_back(kernel);
    t += 100;
    ++correlation;
  }
  return WriteTrace(file, events);
}

nlohmann::json Json(const ToolResult& r) {
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}

void CheckUsageError(const ToolResult& r, const std::string& text) {
  INFO("stderr: " << r.err.substr(0, 400));
  CHECK(r.exit_code == 2);
  REQUIRE(!r.err.empty());
  CHECK(r.err.find('\n') == r.err.size() - 1);  // Exactly one line,
  CHECK(r.err.size() < 400);                    // a short one.
  CHECK(r.err.rfind("tfprof-analyze: error: ", 0) == 0);
  CHECK(r.err.find(text) != std::string::npos);
  CHECK(r.out.empty());
}

}  // namespace

TEST_CASE("A ProfilerStep# with 40,000 digits is a step, in every command", "[regex][cli]") {
  const std::string name = "ProfilerStep#" + std::string(40000, '7');
  const std::string trace = StepTrace("digits.trace.json", name);
  for (const char* cmd : {"overview", "input-pipeline", "metrics"}) {
    INFO(cmd);
    ToolResult r = RunTool(std::string(cmd) + " -f json '" + trace + "'");
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
  }
  nlohmann::json steps = Json(RunTool("steps -f json '" + trace + "'"));
  REQUIRE(steps["tables"]["steps"].size() == 1);
  const auto& row = steps["tables"]["steps"][0];
  CHECK(row["step"] == name);
  CHECK(row["step_time_ms"].get<double>() == Approx(0.1));  // The annotation's 100 us.
  CHECK(row["step_number"] == 0);                           // N does not fit in 64 bits: the step's index.
  ToolResult check = RunTool("check --max overview.steps=1 --min overview.steps=1 '" + trace + "'");
  INFO(check.err);
  CHECK(check.exit_code == 0);
  ToolResult diff = RunTool("diff --fail-if 'overview.step_time_ms.avg>+1%' '" + trace + "' '" + trace + "'");
  INFO(diff.err);
  CHECK(diff.exit_code == 0);
}

TEST_CASE("ProfilerStep#N numbers its step N, other names are not PyTorch steps", "[regex][cli]") {
  nlohmann::json steps = Json(RunTool("steps -f json '" + StepTrace("step12.trace.json", "ProfilerStep#12") + "'"));
  REQUIRE(steps["tables"]["steps"].size() == 1);
  CHECK(steps["tables"]["steps"][0]["step_number"] == 12);
  // The default marker is the whole name: a digit-less, prefixed or
  // suffixed name is not a PyTorch step.
  for (const char* other : {"ProfilerStep#", "ProfilerStep#3 x", "xProfilerStep#3", "ProfilerStep#-3"}) {
    INFO(other);
    ToolResult r = RunTool("steps -f json '" + StepTrace("other.trace.json", other) + "'");
    CHECK(r.exit_code == 4);  // Analysis unavailable: no steps.
  }
}

TEST_CASE("Step marker '.*' over a 60,000-character event name", "[regex][cli]") {
  const std::string name(60000, 'x');
  const std::string trace = StepTrace("long_marker.trace.json", name);
  nlohmann::json steps = Json(RunTool("steps -f json --step-marker '.*' '" + trace + "'"));
  // Every event matches; aten::mm is inside the long one, so one step,
  // named "<marker> <group id>".
  REQUIRE(steps["tables"]["steps"].size() == 1);
  CHECK(steps["tables"]["steps"][0]["step"] == name + " 0");
  CHECK(steps["tables"]["steps"][0]["step_time_ms"].get<double>() == Approx(0.1));
  nlohmann::json tail = Json(RunTool("steps -f json --step-marker 'x{1000}$' '" + trace + "'"));
  CHECK(tail["tables"]["steps"].size() == 1);
}

TEST_CASE("kernel-stats --kernel against a 60,000-character kernel name", "[regex][cli]") {
  const std::string long_kernel = "gemm_" + std::string(60000, 'x');
  const std::string trace = KernelTrace("long_kernel.trace.json", {long_kernel, "gemm_float_kernel", "relu_kernel"});
  nlohmann::json all = Json(RunTool("kernel-stats -f json '" + trace + "'"));
  CHECK(all["tables"]["kernel_stats"].size() == 3);
  nlohmann::json gemm = Json(RunTool("kernel-stats -f json --kernel 'gemm.*float' '" + trace + "'"));
  REQUIRE(gemm["tables"]["kernel_stats"].size() == 1);
  CHECK(gemm["tables"]["kernel_stats"][0]["kernel_name"] == "gemm_float_kernel");
  nlohmann::json x = Json(RunTool("kernel-stats -f json --kernel '^gemm_x+$' '" + trace + "'"));
  REQUIRE(x["tables"]["kernel_stats"].size() == 1);
  CHECK(x["tables"]["kernel_stats"][0]["kernel_name"] == long_kernel);
  CHECK(x["tables"]["kernel_stats"][0]["total_duration_us"].get<double>() == Approx(40.0));
}

TEST_CASE("(a+)+$ on a long name gives its answer at once", "[regex][cli]") {
  // Backtracking tries 2^n ways to split the a's before failing on '!';
  // std::regex took 0.55 s at 20 a's, 2.5 s at 22, 7.2 s at 24.
  const std::string no_match = std::string(10000, 'a') + "!";
  const std::string trace = WriteTrace(
      "nested.trace.json", {Complete(no_match, "user_annotation", 0, 100), Complete("aten::mm", "cpu_op", 10, 50),
                            Complete("baaa", "user_annotation", 200, 300), Complete("aten::add", "cpu_op", 210, 50)});
  nlohmann::json steps = Json(RunTool("steps -f json --step-marker '(a+)+$' '" + trace + "'"));
  REQUIRE(steps["tables"]["steps"].size() == 1);
  CHECK(steps["tables"]["steps"][0]["step"] == "baaa 0");
  CHECK(steps["tables"]["steps"][0]["step_time_ms"].get<double>() == Approx(0.3));
}

TEST_CASE("Nested parentheses: 1,500 levels work, 30,000 are one usage error", "[regex][cli]") {
  const std::string trace = StepTrace("parens.trace.json", "ProfilerStep#1");
  const std::string deep = std::string(1500, '(') + "ProfilerStep" + std::string(1500, ')');
  REQUIRE(deep.size() < tfprof::kMaxNameRegexBytes);
  nlohmann::json steps = Json(RunTool("steps -f json --step-marker '" + deep + "' '" + trace + "'"));
  CHECK(steps["tables"]["steps"].size() == 1);

  const std::string deeper = std::string(30000, '(') + "a" + std::string(30000, ')');
  CheckUsageError(RunTool("steps --step-marker '" + deeper + "' '" + trace + "'"),
                  "--step-marker: regular expression too long (60001 bytes; at most 4096)");
  CheckUsageError(RunTool("steps --step-marker '" + std::string(30000, '(') + "' '" + trace + "'"),
                  "--step-marker: regular expression too long");
}

TEST_CASE("Patterns RE2 refuses are one usage-error line", "[regex][cli]") {
  const std::string trace = KernelTrace("refused.trace.json", {"gemm_float_kernel"});
  // Compiles to more than RE2's memory budget (kNameRegexMaxMem).
  CheckUsageError(RunTool("kernel-stats --kernel '\\pL{1000}' '" + trace + "'"),
                  "--kernel: bad regular expression '\\pL{1000}': pattern too large - compile failed");
  // RE2 syntax has no backreferences or lookaround (docs/kernel-stats.md).
  CheckUsageError(RunTool("kernel-stats --op '(a)\\1' '" + trace + "'"),
                  "--op: bad regular expression '(a)\\1': invalid escape sequence: \\1");
  CheckUsageError(RunTool("steps --step-marker 'Step(?=#)' '" + trace + "'"),
                  "--step-marker: bad regular expression 'Step(?=#)': invalid perl operator: (?=");
  CheckUsageError(RunTool("steps --step-marker '(unclosed' '" + trace + "'"), "missing ): (unclosed");
}

TEST_CASE("A bad pattern is a usage error before the capture is read", "[regex][cli]") {
  // A CPU-only capture has no kernels (exit 4) and an empty file is bad
  // input (exit 3), but the pattern is wrong first.
  const std::string cpu_only = tfprof::testing::SourcePath("testdata/captures/tf_no_steps");
  CheckUsageError(RunTool("kernel-stats --kernel '(' '" + cpu_only + "'"), "--kernel: bad regular expression '('");
  CheckUsageError(RunTool("kernel-stats --op 'a**' '" + cpu_only + "'"), "--op: bad regular expression 'a**'");
  const std::string empty = tfprof::testing::TempDir() + "/empty.xplane.pb";
  std::ofstream{empty};
  CheckUsageError(RunTool("overview --step-marker '[' '" + empty + "'"), "--step-marker: bad regular expression '['");
}
