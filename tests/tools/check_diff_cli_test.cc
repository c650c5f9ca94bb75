// `metrics`, `check` and `diff` on the real captures: the input-bound run
// and its cache+prefetch twin (testdata/captures/README.md).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "nlohmann/json.hpp"
#include "tests/support/corpus.h"
#include "tests/support/files.h"
#include "tests/support/run_tool.h"
#include "tests/support/skip.h"
#include "tests/support/xspace_builder.h"

using tfprof::testing::RunTool;
using tfprof::testing::SourcePath;

namespace {

const std::string kInputBound = SourcePath("testdata/captures/tf_input_bound");
const std::string kPrefetch = SourcePath("testdata/captures/tf_prefetch");

double MetricValue(const nlohmann::json& doc, const std::string& table, const std::string& metric,
                   const std::string& key) {
  for (const auto& row : doc["tables"][table])
    if (row["metric"] == metric) return row[key].get<double>();
  FAIL("no metric " << metric << " in table " << table);
  return 0;
}

}  // namespace

TEST_CASE("metrics lists the input-bound capture's numbers", "[metrics]") {
  auto r = RunTool("metrics -f json " + kInputBound);
  REQUIRE(r.exit_code == 0);
  auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["command"] == "metrics");
  CHECK(MetricValue(doc, "metrics", "overview.steps", "value") == 5);
  CHECK(MetricValue(doc, "metrics", "overview.step_time_ms.avg", "value") == Approx(12.960).margin(0.001));
  CHECK(MetricValue(doc, "metrics", "overview.input_percent", "value") == Approx(53.79).margin(0.01));
  CHECK(MetricValue(doc, "metrics", "placement.host_op_percent", "value") == 100);
  CHECK(MetricValue(doc, "metrics", "tf_data.input_bound", "value") == 1);
  // A CPU run without BFC allocator events: no kernel or memory metrics, and
  // the notes say why.
  for (const auto& row : doc["tables"]["metrics"]) {
    const std::string name = row["metric"];
    CHECK(name.rfind("kernels.", 0) != 0);
    CHECK(name.rfind("memory.", 0) != 0);
    CHECK(name.rfind("overview.device_", 0) != 0);  // Device categories are absent, not 0.
    CHECK(name.rfind("op_stats.device.", 0) != 0);
  }
  CHECK_THAT(doc["notes"].dump(),
             Catch::Contains("no kernels.* metrics: no GPU kernels: the capture has no GPU device plane"));

  auto csv = RunTool("metrics -f csv " + kPrefetch);
  REQUIRE(csv.exit_code == 0);
  CHECK(csv.out.rfind("metric,value,unit,command,meaning\nrun.hosts,1,count,info,", 0) == 0);
  CHECK_THAT(csv.out, Catch::Contains("\noverview.step_time_ms.avg,3.695,ms,overview,"));
}

TEST_CASE("check passes a budget the run meets", "[check]") {
  auto r = RunTool("check " + kPrefetch + " --max overview.input_percent=20 --max overview.step_time_ms.avg=5");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("2 rules: 2 passed, 0 failed, 0 skipped"));
  CHECK_THAT(r.out, Catch::Contains("overview.input_percent = 0.861 %"));
  CHECK(r.err.empty());
}

TEST_CASE("check fails an input-bound run with exit code 5", "[check]") {
  std::string junit = tfprof::testing::TempDir() + "/check.xml";
  auto r = RunTool("check " + kInputBound + " --max overview.input_percent=20 --min overview.steps=5 --junit " + junit);
  CHECK(r.exit_code == 5);
  CHECK_THAT(r.out, Catch::Contains("2 rules: 1 passed, 1 failed, 0 skipped"));
  CHECK_THAT(r.out, Catch::Contains("check: FAILED"));
  CHECK(r.err == "tfprof-analyze: error: " + kInputBound +
                     ": check failed: 1 of 2 rules failed: overview.input_percent = 53.794 %, not <= 20\n");
  const std::string xml = tfprof::testing::Slurp(junit);
  CHECK_THAT(xml, Catch::Contains("tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\""));
  CHECK_THAT(xml, Catch::Contains("name=\"overview.input_percent &lt;= 20\""));
  CHECK_THAT(xml, Catch::Contains("<failure message=\"overview.input_percent = 53.794 %, not &lt;= 20\""));
}

TEST_CASE("check reads a rules file and reports missing metrics", "[check]") {
  std::string rules = tfprof::testing::TempDir() + "/perf.rules";
  {
    std::ofstream out(rules);
    out << "# budget\n"
           "overview.step_time_ms.avg < 15   # ms\n"
           "kernels.tensor_core_time_percent >= 30\n"
           "optional memory.GPU_0_bfc.peak_heap_bytes < 6GiB\n";
  }
  auto fail = RunTool("check " + kInputBound + " --rules " + rules + " -f json");
  CHECK(fail.exit_code == 5);
  auto doc = nlohmann::json::parse(fail.out);
  const auto& checks = doc["tables"]["checks"];
  REQUIRE(checks.size() == 3);
  CHECK(checks[0]["status"] == "pass");
  CHECK(checks[0]["origin"] == rules + ":2");
  CHECK(checks[1]["status"] == "FAIL");
  CHECK(checks[1]["value"].is_null());
  CHECK_THAT(checks[1]["message"].get<std::string>(), Catch::Contains("not in this capture (no kernels.* metrics"));
  CHECK(checks[2]["status"] == "skip");
  CHECK_THAT(fail.err,
             Catch::Contains("1 of 3 rules failed: kernels.tensor_core_time_percent >= 30: not in this capture"));

  auto skip = RunTool("check " + kInputBound + " --rules " + rules + " --missing skip");
  CHECK(skip.exit_code == 0);
  CHECK_THAT(skip.out, Catch::Contains("3 rules: 1 passed, 0 failed, 2 skipped"));
}

TEST_CASE("check: bad rules are usage errors", "[check]") {
  auto typo = RunTool("check " + kInputBound + " --max overview.input_pct=20");
  CHECK(typo.exit_code == 2);
  CHECK_THAT(typo.err, Catch::Contains("--max: unknown metric 'overview.input_pct'"));
  auto none = RunTool("check " + kInputBound);
  CHECK(none.exit_code == 2);
  CHECK_THAT(none.err, Catch::Contains("check needs at least one rule"));
  auto file = RunTool("check " + kInputBound + " --rules /nonexistent/perf.rules");
  CHECK(file.exit_code == 2);
  CHECK_THAT(file.err, Catch::Contains("/nonexistent/perf.rules: cannot read the rules file"));
}

TEST_CASE("diff: cache+prefetch cuts step and input time", "[diff]") {
  auto r = RunTool("diff " + kInputBound + " " + kPrefetch + " -f json --top 0");
  REQUIRE(r.exit_code == 0);
  auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["command"] == "diff");
  CHECK(MetricValue(doc, "overview", "overview.step_time_ms.avg", "base_value") == Approx(12.960).margin(0.001));
  CHECK(MetricValue(doc, "overview", "overview.step_time_ms.avg", "new_value") == Approx(3.695).margin(0.001));
  CHECK(MetricValue(doc, "overview", "overview.step_time_ms.avg", "delta") == Approx(-9.265).margin(0.001));
  CHECK(MetricValue(doc, "overview", "overview.step_time_ms.avg", "delta_percent") == Approx(-71.5).margin(0.1));
  CHECK(MetricValue(doc, "overview", "overview.input_percent", "new_value") == Approx(0.861).margin(0.001));
  CHECK(MetricValue(doc, "overview", "overview.input_ms.avg", "delta") < -6.9);
  CHECK(MetricValue(doc, "metrics", "run.hosts", "delta") == 0);  // Every metric is in `metrics`.

  // The ops: the slow map's ops ran in every step before; with cache they
  // ran once, before the profile; prefetch is new.
  const auto& ops = doc["tables"]["ops"];
  REQUIRE(ops.size() > 20);
  CHECK(ops[0]["change"] == "removed");
  CHECK(ops[0]["op_name"] == "Iterator::Root::MapAndBatch");
  CHECK(ops[0]["new_self_time_us"] == 0);
  bool prefetch_added = false;
  double last = 1e18;
  for (const auto& row : ops) {
    prefetch_added = prefetch_added || (row["op_name"] == "Iterator::Root::Prefetch" && row["change"] == "added");
    const double d = std::fabs(row["delta_us"].get<double>());
    CHECK(d <= last);  // Largest change first.
    last = d;
  }
  CHECK(prefetch_added);
  CHECK_FALSE(doc["tables"].contains("kernels"));  // Neither run has GPU kernels.

  auto text = RunTool("diff " + kInputBound + " " + kPrefetch);
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("step time: 12.96 → 3.695 ms (-9.265 ms, -71.5%)"));
  CHECK_THAT(text.out, Catch::Contains("input: 53.794 → 0.861 % (-52.934 points, -98.4%)"));
  CHECK_THAT(text.out, Catch::Contains("note: ops: "));
}

TEST_CASE("diff --fail-if turns a regression into exit code 5", "[diff]") {
  // Prefetch -> input-bound is the regression: step time up 250%.
  std::string junit = tfprof::testing::TempDir() + "/diff.xml";
  auto bad =
      RunTool("diff " + kPrefetch + " " + kInputBound +
              " --fail-if 'overview.step_time_ms.avg>+5%' --fail-if 'overview.input_percent>+60' --junit " + junit);
  CHECK(bad.exit_code == 5);
  CHECK(bad.err ==
        "tfprof-analyze: error: diff: 1 of 2 --fail-if conditions failed: overview.step_time_ms.avg 3.695 -> 12.96 ms "
        "(+250.734%), > +5%\n");
  CHECK_THAT(bad.out, Catch::Contains("overview.input_percent > +60"));
  const std::string xml = tfprof::testing::Slurp(junit);
  CHECK_THAT(xml, Catch::Contains("tests=\"2\" failures=\"1\""));
  CHECK_THAT(xml, Catch::Contains("name=\"overview.step_time_ms.avg &gt; +5%\""));

  auto good = RunTool("diff " + kInputBound + " " + kPrefetch + " --fail-if 'overview.step_time_ms.avg>+5%'");
  CHECK(good.exit_code == 0);

  auto missing = RunTool("diff " + kInputBound + " " + kPrefetch + " --fail-if 'kernels.time_ms>+5%'");
  CHECK(missing.exit_code == 5);
  CHECK_THAT(missing.err, Catch::Contains("kernels.time_ms is in neither run"));
  CHECK(
      RunTool("diff " + kInputBound + " " + kPrefetch + " --fail-if 'kernels.time_ms>+5%' --missing skip").exit_code ==
      0);

  auto malformed = RunTool("diff " + kInputBound + " " + kPrefetch + " --fail-if 'overview.step_time_ms.avg=5'");
  CHECK(malformed.exit_code == 2);
  CHECK_THAT(malformed.err, Catch::Contains("expected METRIC OP CHANGE"));
}

TEST_CASE("diff CSV has base_ and new_ columns", "[diff]") {
  auto overview = RunTool("diff -f csv " + kInputBound + " " + kPrefetch);
  REQUIRE(overview.exit_code == 0);
  CHECK(overview.out.rfind("metric,unit,base_value,new_value,delta,delta_percent,change\n", 0) == 0);
  CHECK_THAT(overview.out, Catch::Contains("\noverview.step_time_ms.avg,ms,12.960,3.695,-9.265,-71.5,down\n"));
  auto ops = RunTool("diff -f csv --table ops " + kInputBound + " " + kPrefetch);
  REQUIRE(ops.exit_code == 0);
  CHECK(ops.out.rfind("change,side,op_name,op_type,base_self_time_us,new_self_time_us,delta_us,delta_percent,"
                      "base_occurrences,new_occurrences\nremoved,host,Iterator::Root::MapAndBatch,",
                      0) == 0);
  auto missing = RunTool("diff " + kInputBound + " /nonexistent/run");
  CHECK(missing.exit_code == 3);
}

TEST_CASE("diff on GPU runs matches kernels by name", "[diff]") {
  REQUIRE_CORPUS(logs, "e4040-2023fall-assign2-hd2551/logs/fit");
  std::vector<std::string> runs;
  for (const auto& e : std::filesystem::directory_iterator(logs)) runs.push_back(e.path().filename().string());
  std::sort(runs.begin(), runs.end());
  REQUIRE(runs.size() >= 2);
  auto r = RunTool("diff -f json " + logs + "/" + runs[0] + " " + logs + "/" + runs[1]);
  REQUIRE(r.exit_code == 0);
  auto doc = nlohmann::json::parse(r.out);
  REQUIRE(doc["tables"].contains("kernels"));
  CHECK(MetricValue(doc, "metrics", "run.devices", "base_value") >= 1);
  auto m = RunTool("metrics -f json " + logs + "/" + runs[0]);
  REQUIRE(m.exit_code == 0);
  auto metrics = nlohmann::json::parse(m.out);
  CHECK(MetricValue(metrics, "metrics", "kernels.time_ms", "value") > 0);
  CHECK(MetricValue(metrics, "metrics", "memory.GPU_0_bfc.peak_heap_bytes", "value") > 0);

  // Two runs of one logdir.
  auto same = RunTool("diff " + logs + " " + logs + " --base-run 2023_11_07_18_18_59 --new-run 2023_11_07_18_25_02");
  REQUIRE(same.exit_code == 0);
  CHECK_THAT(same.out,
             Catch::Contains("base: " + logs + " · run 20231107-181856/train/2023_11_07_18_18_59 · 1 host · 1 × "));
  CHECK_THAT(same.out, Catch::Contains("step time: 10.631 → 61.227 ms (+50.596 ms, +475.9%)"));
}
