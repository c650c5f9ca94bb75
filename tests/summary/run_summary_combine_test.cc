// CombineRunSummaries: hosts summarised apart and combined in any order or
// grouping give the run the one-pass loader gives, report for report.
#include <catch2/catch.hpp>

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "lib/analyze/metrics_report.h"
#include "lib/analyze/overview_analysis.h"
#include "lib/analyze/overview_report.h"
#include "lib/analyze/run_summary_to_metrics.h"
#include "lib/analyze/step_summary.h"
#include "lib/analyze/steps_report.h"
#include "lib/analyze/tf_data_pipelines_to_report.h"
#include "lib/analyze/tf_stats_report.h"
#include "lib/read/capture_discovery.h"
#include "lib/read/capture_loader.h"
#include "lib/render/render.h"
#include "lib/summary/captures_to_run_summary.h"
#include "lib/summary/host_to_run_summary.h"
#include "lib/summary/run_summary_combine.h"
#include "tests/support/corpus.h"
#include "tests/support/skip.h"

namespace tfprof {
namespace {

std::string Json(const Report& report) {
  RenderOptions options;
  options.format = OutputFormat::kJson;
  options.verbose = true;
  std::ostringstream out;
  Render(report, options, out);
  return out.str();
}

// What the commands that read these parts would print, as one text: the
// metrics (and with them the overview), op-stats, steps, tf-data, and every
// diagnostic.
std::string Reports(const RunSummary& run) {
  std::string out;
  Report metrics = BuildMetricsReport(RunSummaryToMetrics(run));
  metrics.diagnostics = RunDiagnostics(run);
  out += Json(metrics);
  out += Json(BuildOverviewReport(RunSummaryToOverview(run), run.run));
  TfStatsOptions stats;
  stats.analysis = run.options;
  out += Json(BuildTfStatsReport(CombineHostOps(run), stats));
  out += Json(BuildStepsReport(SummarizeSteps(CombineRunSteps(run))));
  out += Json(BuildTfDataReport(CombineRunTfData(run), TfDataReportOptions{}));
  return out;
}

// Each host of a run folder summarised on its own, as another process would.
std::vector<RunSummary> SummariesPerHost(const std::string& folder, const AnalysisOptions& analysis) {
  const DiscoveredInput input = DiscoverInput(folder, "", /*keep_duplicates=*/analysis.xprof());
  std::vector<RunSummary> out;
  for (size_t i = 0; i < input.selected.files.size(); ++i) {
    Diagnostics read;
    const Host host = LoadCapture(input.selected.files[i], read);
    SummaryOptions options;
    options.analysis = analysis;
    options.parts = SummaryParts::All();
    options.order = static_cast<uint32_t>(i);
    RunSummary one = HostToRunSummary(host, options);
    one.run = input.selected.name;
    one.hosts.front().read_diagnostics = std::move(read);
    out.push_back(std::move(one));
  }
  return out;
}

RunSummary OnePass(const std::string& folder, const AnalysisOptions& analysis) {
  SummaryOptions options;
  options.analysis = analysis;
  options.parts = SummaryParts::All();
  return CapturesToRunSummary(DiscoverInput(folder, "", analysis.xprof()), RunReadOptions{}, options);
}

// The hosts' summaries combined into an empty one in the order `indices`
// gives.
RunSummary Fold(const std::string& folder, const AnalysisOptions& analysis, const std::vector<size_t>& indices) {
  std::vector<RunSummary> fresh = SummariesPerHost(folder, analysis);
  RunSummary into;
  for (size_t i : indices) CombineRunSummaries(into, std::move(fresh[i]));
  return into;
}

std::vector<std::string> HostNames(const RunSummary& run) {
  std::vector<std::string> names;
  for (const HostPartials& h : run.hosts) names.push_back(h.host);
  return names;
}

}  // namespace

TEST_CASE("Two hosts combined in either order give the one-pass run's reports", "[run_summary]") {
  const std::string folder = testing::SourcePath("testdata/captures/tf_two_hosts");
  const AnalysisOptions analysis;
  REQUIRE(SummariesPerHost(folder, analysis).size() == 2);

  const RunSummary one_pass = OnePass(folder, analysis);
  const RunSummary forward = Fold(folder, analysis, {0, 1});
  const RunSummary reverse = Fold(folder, analysis, {1, 0});
  // Discovery order (file names), whatever the combining order.
  const std::vector<std::string> expected = {"localhost_6101", "localhost_6102"};
  CHECK(HostNames(one_pass) == expected);
  CHECK(HostNames(forward) == expected);
  CHECK(HostNames(reverse) == expected);
  CHECK(RunSummaryToMetrics(reverse).Find("run.hosts")->value == 2);

  const std::string reports = Reports(one_pass);
  CHECK(Reports(forward) == reports);
  CHECK(Reports(reverse) == reports);

  // Why the order is kept rather than the partials merged as they come:
  // both XSpaces name one machine, so tf.data merges the two hosts into one,
  // and the merge keeps the later host's call figures. Folded in reverse,
  // the figures differ.
  TfDataAnalysis backwards;
  for (size_t i = reverse.hosts.size(); i-- > 0;) CombineTfData(backwards, reverse.hosts[i].tf_data);
  FinalizeTfData(backwards);
  const TfDataAnalysis kept = CombineRunTfData(reverse);
  REQUIRE(kept.hosts.size() == 1);
  REQUIRE(backwards.hosts.size() == 1);
  CHECK(Json(BuildTfDataReport(backwards, TfDataReportOptions{})) !=
        Json(BuildTfDataReport(kept, TfDataReportOptions{})));
}

TEST_CASE("Combining is associative: any grouping of three hosts gives one run", "[run_summary]") {
  // The third host is the first file read again as another host of the run
  // (order 2), as --compat xprof reads a byte-identical copy.
  const std::string folder = testing::SourcePath("testdata/captures/tf_two_hosts");
  const AnalysisOptions analysis;
  auto three = [&] {
    std::vector<RunSummary> s = SummariesPerHost(folder, analysis);
    std::vector<RunSummary> again = SummariesPerHost(folder, analysis);
    again[0].hosts.front().order = 2;
    s.push_back(std::move(again[0]));
    return s;
  };
  std::vector<RunSummary> a = three();
  RunSummary left;  // (0 + 1) + 2
  CombineRunSummaries(left, std::move(a[0]));
  CombineRunSummaries(left, std::move(a[1]));
  CombineRunSummaries(left, std::move(a[2]));
  std::vector<RunSummary> b = three();
  RunSummary right = std::move(b[2]);  // 2 + (1 + 0)
  RunSummary inner = std::move(b[1]);
  CombineRunSummaries(inner, std::move(b[0]));
  CombineRunSummaries(right, std::move(inner));
  REQUIRE(right.hosts.size() == 3);
  CHECK(right.hosts[2].host == "localhost_6101");
  CHECK(Reports(left) == Reports(right));
}

TEST_CASE("Summaries that cannot be one run do not combine", "[run_summary]") {
  const std::string folder = testing::SourcePath("testdata/captures/tf_two_hosts");
  SECTION("the same host twice") {
    std::vector<RunSummary> a = SummariesPerHost(folder, {}), b = SummariesPerHost(folder, {});
    CHECK_THROWS_AS(CombineRunSummaries(a[0], std::move(b[0])), std::invalid_argument);
    CHECK(HostNames(a[0]) == std::vector<std::string>{"localhost_6101"});  // Left whole.
    // Out of order, merged rather than appended: the same check.
    CombineRunSummaries(a[1], std::move(a[0]));
    CHECK(HostNames(a[1]) == (std::vector<std::string>{"localhost_6101", "localhost_6102"}));
    CHECK_THROWS_AS(CombineRunSummaries(a[1], std::move(b[1])), std::invalid_argument);
    CHECK(a[1].hosts.size() == 2);
  }
  SECTION("different options") {
    std::vector<RunSummary> a = SummariesPerHost(folder, {}),
                            b = SummariesPerHost(folder, AnalysisOptions{Compat::kXprof});
    CHECK_THROWS_AS(CombineRunSummaries(a[0], std::move(b[1])), std::invalid_argument);
  }
  SECTION("another schema version") {
    std::vector<RunSummary> a = SummariesPerHost(folder, {}), b = SummariesPerHost(folder, {});
    b[1].schema_version = kRunSummarySchemaVersion + 1;
    CHECK_THROWS_AS(CombineRunSummaries(a[0], std::move(b[1])), std::invalid_argument);
  }
}

TEST_CASE("The 8x V100 run's two host files combine in either order (corpus)", "[run_summary][corpus]") {
  REQUIRE_CORPUS(folder, "tfprofiler_demo/plugins/profile/GPU-multi-worker");
  // --compat xprof reads the two byte-identical host files as two hosts.
  const AnalysisOptions xprof{Compat::kXprof};
  REQUIRE(SummariesPerHost(folder, xprof).size() == 2);
  const RunSummary forward = Fold(folder, xprof, {0, 1});
  const RunSummary reverse = Fold(folder, xprof, {1, 0});
  CHECK(HostNames(reverse) == std::vector<std::string>{"34.83.195.179_6003", "34.83.195.180_6003"});
  CHECK(RunSummaryToMetrics(reverse).Find("run.devices")->value == 16);  // 8 GPUs per host file.
  CHECK(Reports(forward) == Reports(reverse));
  CHECK(Reports(reverse) == Reports(OnePass(folder, xprof)));
}

}  // namespace tfprof
