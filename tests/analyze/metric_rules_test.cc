// Rules, --fail-if conditions, the metric catalogue and JUnit escaping,
// without captures (the CLI tests run them on real ones).
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

#include "lib/analyze/metric_rules.h"
#include "lib/analyze/metrics_report.h"
#include "lib/analyze/run_diff.h"
#include "lib/render/junit.h"
#include "lib/render/render.h"
#include "tests/support/corpus.h"

using namespace tfprof;

namespace {

RunAnalysis FakeRun(std::vector<std::pair<std::string, double>> values) {
  RunAnalysis r;
  r.run = "fake";
  for (auto& [name, v] : values) r.metrics.push_back({name, v, FindMetricDef(name)});
  r.absent.push_back({{"kernels."}, "no kernels.* metrics: the GPU planes hold no kernels"});
  return r;
}

}  // namespace

TEST_CASE("The catalogue resolves names, placeholders included", "[metrics]") {
  REQUIRE(FindMetricDef("overview.step_time_ms.avg"));
  CHECK(FindMetricDef("overview.step_time_ms.avg")->unit == "ms");
  REQUIRE(FindMetricDef("memory.GPU_0_bfc.peak_heap_bytes"));
  CHECK(FindMetricDef("memory.GPU_0_bfc.peak_heap_bytes")->unit == "bytes");
  CHECK_FALSE(FindMetricDef("memory.GPU.0.peak_heap_bytes"));  // One segment only.
  CHECK_FALSE(FindMetricDef("memory..peak_heap_bytes"));
  CHECK_FALSE(FindMetricDef("overview.step_time_ms"));
  CHECK_FALSE(FindMetricDef("overview.input_percentage"));
}

TEST_CASE("docs/metrics.md lists every metric of the catalogue", "[metrics]") {
  std::ifstream in(tfprof::testing::SourcePath("docs/metrics.md"));
  REQUIRE(in);
  std::stringstream doc;
  doc << in.rdbuf();
  for (const MetricDef& d : MetricCatalogue()) {
    INFO(d.name);
    CHECK_THAT(doc.str(), Catch::Contains("`" + std::string(d.name) + "`"));
  }
}

TEST_CASE("Rules parse from flags and files", "[check]") {
  MetricRule max = ParseBoundFlag("overview.input_percent=20", true);
  CHECK(max.metric == "overview.input_percent");
  CHECK(max.op == RuleOp::kLe);
  CHECK(max.threshold == 20);
  CHECK(max.text == "overview.input_percent <= 20");
  CHECK(ParseBoundFlag("overview.device_compute_percent=50", false).op == RuleOp::kGe);
  CHECK_THROWS_WITH(ParseBoundFlag("overview.input_percent", true), Catch::Contains("expected METRIC=VALUE"));
  CHECK_THROWS_WITH(ParseBoundFlag("overview.input_percent=lots", true), Catch::Contains("'lots' is not a number"));
  CHECK_THROWS_WITH(ParseBoundFlag("overview.input_pct=2", true),
                    Catch::Contains("unknown metric 'overview.input_pct'"));

  const std::string text =
      "# performance budget\n"
      "\n"
      "overview.input_percent <= 20   # input-bound above this\n"
      "overview.step_time_ms.avg<15\n"
      "  memory.GPU_0_bfc.peak_heap_bytes < 6GiB\n"
      "optional kernels.tensor_core_time_percent >= 30\r\n"
      "run.hosts == 1\n";
  std::vector<MetricRule> rules = ParseRules(text, "perf.rules");
  REQUIRE(rules.size() == 5);
  CHECK(rules[0].origin == "perf.rules:3");
  CHECK(rules[1].op == RuleOp::kLt);
  CHECK(rules[1].threshold == 15);
  CHECK(rules[2].threshold == 6.0 * 1024 * 1024 * 1024);
  CHECK(rules[3].optional);
  CHECK(rules[3].text == "optional kernels.tensor_core_time_percent >= 30");
  CHECK(rules[4].op == RuleOp::kEq);

  CHECK_THROWS_WITH(ParseRules("overview.input_percent 20\n", "r"), Catch::Contains("r:1: expected 'METRIC OP VALUE'"));
  CHECK_THROWS_WITH(ParseRules("\noverview.input_percent => 20\n", "r"), Catch::Contains("r:2:"));
  CHECK_THROWS_WITH(ParseRules("overview.input_percent <= 2 parsecs\n", "r"), Catch::Contains("unknown unit"));
}

TEST_CASE("Rules evaluate to pass, fail and missing", "[check]") {
  RunAnalysis run = FakeRun({{"overview.input_percent", 53.8}, {"overview.step_time_ms.avg", 12.96}});
  std::vector<MetricRule> rules = ParseRules(
      "overview.input_percent <= 20\n"
      "overview.step_time_ms.avg < 15\n"
      "kernels.time_ms < 10\n"
      "optional kernels.rows > 0\n",
      "r");
  auto fail = EvaluateRules(rules, run, MissingPolicy::kFail);
  REQUIRE(fail.size() == 4);
  CHECK(fail[0].status == OutcomeStatus::kFail);
  CHECK(fail[0].message == "overview.input_percent = 53.8 %, not <= 20");
  CHECK(fail[1].status == OutcomeStatus::kPass);
  CHECK(fail[2].status == OutcomeStatus::kFail);
  CHECK(fail[2].missing);
  CHECK_THAT(fail[2].message, Catch::Contains("not in this capture (no kernels.* metrics"));
  CHECK(fail[3].status == OutcomeStatus::kSkip);  // `optional`
  auto skip = EvaluateRules(rules, run, MissingPolicy::kSkip);
  CHECK(skip[2].status == OutcomeStatus::kSkip);
}

TEST_CASE("The --fail-if conditions parse and compare changes", "[diff]") {
  DeltaCondition rel = ParseDeltaCondition("overview.step_time_ms.avg>+5%");
  CHECK(rel.relative);
  CHECK(rel.op == RuleOp::kGt);
  CHECK(rel.amount == 5);
  CHECK(rel.text == "overview.step_time_ms.avg > +5%");
  DeltaCondition abs = ParseDeltaCondition(" overview.input_percent >= 2 ");
  CHECK_FALSE(abs.relative);
  CHECK(abs.op == RuleOp::kGe);
  CHECK(ParseDeltaCondition("overview.step_time_ms.avg<-10%").amount == -10);
  CHECK_THROWS_WITH(ParseDeltaCondition("overview.step_time_ms.avg+5%"), Catch::Contains("expected METRIC OP CHANGE"));
  CHECK_THROWS_WITH(ParseDeltaCondition("overview.step_time_ms.avg>5MiB"),
                    Catch::Contains("expected METRIC OP CHANGE"));
  CHECK_THROWS_WITH(ParseDeltaCondition("overview.step_tme>5%"), Catch::Contains("unknown metric"));

  RunAnalysis base = FakeRun({{"overview.step_time_ms.avg", 10}, {"overview.input_percent", 0}});
  RunAnalysis next = FakeRun({{"overview.step_time_ms.avg", 10.4}, {"overview.input_percent", 3}});
  auto deltas = DiffMetrics(base, next);
  REQUIRE(deltas.size() == 2);
  CHECK(deltas[0].delta_percent() == Approx(4.0));
  CHECK(std::isinf(deltas[1].delta_percent()));  // From 0.
  auto out = EvaluateDeltaConditions(
      {ParseDeltaCondition("overview.step_time_ms.avg>+5%"), ParseDeltaCondition("overview.step_time_ms.avg>+3%"),
       ParseDeltaCondition("overview.input_percent>+2"), ParseDeltaCondition("kernels.time_ms>+1")},
      deltas, base, next, MissingPolicy::kFail);
  CHECK(out[0].status == OutcomeStatus::kPass);
  CHECK(out[1].status == OutcomeStatus::kFail);
  CHECK(out[1].message == "overview.step_time_ms.avg 10 -> 10.4 ms (+4%), > +3%");
  CHECK(out[2].status == OutcomeStatus::kFail);
  CHECK(out[3].status == OutcomeStatus::kFail);
  CHECK(out[3].missing);
}

TEST_CASE("Thresholds take size units", "[check]") {
  CHECK(ParseThreshold("1.5KiB", "x") == 1536);
  CHECK(ParseThreshold(" 2 GB ", "x") == 2e9);
  CHECK(ParseThreshold("20%", "x") == 20);
  CHECK(ParseThreshold("-3e2", "x") == -300);
  CHECK_THROWS(ParseThreshold("", "x"));
  CHECK_THROWS(ParseThreshold("nan", "x"));
}

TEST_CASE("JUnit XML escapes names and messages", "[check]") {
  CHECK(XmlEscape("a<b & \"c\" 'd'>") == "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;");
  CHECK(XmlEscape(std::string("x\x01y\tz", 5)) == "x\xEF\xBF\xBDy\tz");
  JUnitSuite s;
  s.name = "tfprof-analyze check";
  s.cases.push_back({"tfprof.check", "overview.input_percent <= 20", JUnitCase::Status::kFail, "53.8 % > 20", ""});
  s.cases.push_back({"tfprof.check", "kernels.rows > 0", JUnitCase::Status::kSkip, "not in this capture", ""});
  s.cases.push_back({"tfprof.check", "run.hosts == 1", JUnitCase::Status::kPass, "", ""});
  std::ostringstream out;
  WriteJUnit(s, out);
  const std::string xml = out.str();
  CHECK_THAT(xml,
             Catch::Contains(
                 "<testsuite name=\"tfprof-analyze check\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\""));
  CHECK_THAT(xml, Catch::Contains(
                      "<testcase classname=\"tfprof.check\" name=\"overview.input_percent &lt;= 20\" time=\"0\">"));
  CHECK_THAT(xml, Catch::Contains("<failure message=\"53.8 % &gt; 20\" type=\"threshold\">"));
  CHECK_THAT(xml, Catch::Contains("<skipped message=\"not in this capture\"/>"));
  CHECK_THAT(xml, Catch::Contains("name=\"run.hosts == 1\" time=\"0\"/>"));
}

TEST_CASE("The example rules file parses", "[check]") {
  const std::string path = tfprof::testing::SourcePath("docs/examples/perf.rules");
  std::ifstream in(path);
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  std::vector<MetricRule> rules = ParseRules(text.str(), path);
  CHECK(rules.size() == 6);
}

TEST_CASE("Thresholds are finite numbers, also once scaled", "[check]") {
  auto message = [](std::string_view text) {
    try {
      ParseThreshold(text, "ctx");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(message("1e308GiB") == "ctx: '1e308GiB' is out of range for a number");
  CHECK(message("1e400") == "ctx: '1e400' is out of range for a number");
  CHECK(message("-1e400") == "ctx: '-1e400' is out of range for a number");
  CHECK(message("inf") == "ctx: 'inf' is not a number");
  CHECK(message("-infinity") == "ctx: '-infinity' is not a number");
  CHECK(ParseThreshold("1e290GiB", "ctx") == 1e290 * 1073741824.0);  // Large but finite.
  CHECK(ParseThreshold("-1.7e308", "ctx") == -1.7e308);
}

TEST_CASE("A rules file's UTF-8 byte order mark is skipped", "[check]") {
  const auto rules = ParseRules("\xEF\xBB\xBFoverview.input_percent <= 20\r\noverview.steps >= 1\r\n", "bom.rules");
  REQUIRE(rules.size() == 2);
  CHECK(rules[0].metric == "overview.input_percent");
  CHECK(rules[0].origin == "bom.rules:1");
  CHECK(rules[1].text == "overview.steps >= 1");
  // Only at the start: elsewhere it is part of a (then unknown) name.
  CHECK_THROWS_WITH(ParseRules("overview.steps >= 1\n\xEF\xBB\xBFoverview.steps >= 1\n", "r"),
                    Catch::StartsWith("r:2: unknown metric '\xEF\xBB\xBFoverview.steps'"));
}

TEST_CASE("Check outcomes are a report of their own, which --junit renders", "[check]") {
  std::vector<CheckOutcome> outcomes(2);
  outcomes[0].name = "overview.input_percent <= 20";
  outcomes[0].origin = "perf.rules:3";
  outcomes[0].status = OutcomeStatus::kFail;
  outcomes[0].actual = 53.8;
  outcomes[0].message = "overview.input_percent = 53.8 %, not <= 20";
  outcomes[1].name = "kernels.time_ms <= 5";
  outcomes[1].origin = "--max";
  outcomes[1].status = OutcomeStatus::kSkip;
  outcomes[1].missing = true;
  outcomes[1].message = "kernels.time_ms is not in this capture";
  const Report r = BuildOutcomesReport("check", outcomes, {{"input", "logs/"}, {"run", "r1"}});
  CHECK(r.command == "check");
  const Table* t = r.FindTable("outcomes");
  REQUIRE(t);
  REQUIRE(t->rows.size() == 2);
  CHECK(std::get<std::string>(t->rows[0][t->ColumnIndex("status")]) == "FAIL");
  CHECK(std::get<std::string>(t->rows[1][t->ColumnIndex("origin")]) == "--max");
  REQUIRE(r.FindTable("properties"));
  CHECK(r.FindTable("properties")->rows.size() == 2);

  std::ostringstream out;
  Render(r, {.format = OutputFormat::kJUnit}, out);
  // The failure carries the message, then where the rule came from.
  CHECK(out.str() ==
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<testsuites name=\"tfprof-analyze check\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"1\">\n"
        "  <testsuite name=\"tfprof-analyze check\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"1\" time=\"0\">\n"
        "    <properties>\n"
        "      <property name=\"input\" value=\"logs/\"/>\n"
        "      <property name=\"run\" value=\"r1\"/>\n"
        "    </properties>\n"
        "    <testcase classname=\"tfprof.check\" name=\"overview.input_percent &lt;= 20\" time=\"0\">\n"
        "      <failure message=\"overview.input_percent = 53.8 %, not &lt;= 20\" type=\"threshold\">"
        "overview.input_percent = 53.8 %, not &lt;= 20\n(rule from perf.rules:3)</failure>\n"
        "    </testcase>\n"
        "    <testcase classname=\"tfprof.check\" name=\"kernels.time_ms &lt;= 5\" time=\"0\">\n"
        "      <skipped message=\"kernels.time_ms is not in this capture\"/>\n"
        "    </testcase>\n"
        "  </testsuite>\n"
        "</testsuites>\n");
}
