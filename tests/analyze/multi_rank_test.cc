// Several PyTorch ranks analysed as one run: hosts named by their rank,
// `--host` by rank or by file, and one step per report (each combined step
// is its slowest rank's, time and breakdown together). Real ranks: the two
// HTA traces of hta/trace_filter (ranks 0 and 1 of a 128-rank job). Expected
// step times come from scripts/reference/kineto_steps.py run on each rank's
// JSON, not from this program's output:
//   rank 0: ProfilerStep#551 607.312 ms (device compute 106.271),
//           ProfilerStep#552 622.928 ms (104.077)
//   rank 1: ProfilerStep#551 607.904 ms (135.562),
//           ProfilerStep#552 630.639 ms (136.442)
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <set>

#include "lib/analyze/step_summary.h"
#include "lib/read/capture_discovery.h"
#include "lib/read/capture_loader.h"
#include "lib/read/kineto_rank.h"
#include "lib/summary/captures_to_run_summary.h"
#include "lib/summary/run_summary_combine.h"
#include "tests/support/corpus.h"
#include "tests/support/run_tool.h"
#include "tests/support/skip.h"
#include "tests/support/xspace_builder.h"

using namespace tfprof;
namespace fs = std::filesystem;
using tfprof::testing::RunTool;

namespace {

// As `steps` reads a run: the library's loader, steps only.
StepSummary Steps(const std::string& folder, const AnalysisOptions& options,
                  std::vector<std::string>* hosts = nullptr) {
  SummaryOptions summary;
  summary.analysis = options;
  summary.parts = SummaryPart::kSteps;
  const RunSummary run = CapturesToRunSummary(DiscoverInput(folder), RunReadOptions{}, summary);
  if (hosts)
    for (const HostPartials& h : run.hosts) hosts->push_back(h.host);
  return SummarizeSteps(CombineRunSteps(run));
}

double Cat(const StepRow& r, Category c) { return r.category_ms[static_cast<size_t>(c)]; }

double CategoryAverages(const StepSummary& s) {
  double sum = 0;
  for (const Stats& c : s.category_ms) sum += c.avg;
  return sum;
}

}  // namespace

TEST_CASE("Two PyTorch ranks: each step is its slowest rank's, and the breakdown adds up",
          "[steps][kineto][multihost]") {
  REQUIRE_CORPUS(rank0, "hta/trace_filter/sampled_rank-0.json.gz");
  REQUIRE_CORPUS(rank1, "hta/trace_filter/sampled_rank-1.json.gz");
  const std::string run = fs::path(rank0).parent_path().string();  // The folder of both: one run.

  std::vector<std::string> hosts;
  StepSummary s = Steps(run, {}, &hosts);
  CHECK(hosts == std::vector<std::string>{"rank0", "rank1"});  // distributedInfo.rank, not the file names.
  CHECK(DiscoverInput(run).selected.files.size() == 2);        // Found by content: *.json.gz holding traceEvents.
  REQUIRE(s.rows.size() == 2);
  // Rank 1 is the slower at both steps: its times and its breakdown.
  CHECK(s.rows[0].name == "ProfilerStep#551");
  CHECK(s.rows[0].host == "rank1");
  CHECK(s.rows[0].step_time_ms == Approx(607.904).margin(1e-6));
  CHECK(Cat(s.rows[0], Category::kDeviceCompute) == Approx(135.562).margin(1e-6));
  CHECK(s.rows[1].host == "rank1");
  CHECK(s.rows[1].step_time_ms == Approx(630.639).margin(1e-6));
  CHECK(Cat(s.rows[1], Category::kDeviceCompute) == Approx(136.442).margin(1e-6));
  CHECK(s.step_time_ms.avg == Approx((607.904 + 630.639) / 2).margin(1e-6));
  CHECK(CategoryAverages(s) == Approx(s.step_time_ms.avg).margin(1e-6));  // The rows add up to the headline.
  CHECK_THAT(s.intersection_note, Catch::Contains("each step is its slowest host's"));

  // The TensorFlow Profiler's combination (--compat xprof builds steps from
  // device events only, so its step times are its own): each step's time is
  // the slower rank's, the breakdown rank 0's, adding up to rank 0's steps.
  const AnalysisOptions xprof{Compat::kXprof};
  StepSummary x = Steps(run, xprof), x0 = Steps(rank0, xprof), x1 = Steps(rank1, xprof);
  REQUIRE(x.rows.size() == 2);
  REQUIRE(x0.rows.size() == 2);
  REQUIRE(x1.rows.size() == 2);
  CHECK(x.rows[0].host == "rank0");
  CHECK(Cat(x.rows[0], Category::kDeviceCompute) == Approx(106.271).margin(1e-6));
  CHECK(Cat(x.rows[1], Category::kDeviceCompute) == Approx(104.077).margin(1e-6));
  const double slowest = (std::max(x0.rows[0].step_time_ms, x1.rows[0].step_time_ms) +
                          std::max(x0.rows[1].step_time_ms, x1.rows[1].step_time_ms)) /
                         2;
  CHECK(x.step_time_ms.avg == Approx(slowest).margin(1e-9));
  CHECK(CategoryAverages(x) == Approx(x0.step_time_ms.avg).margin(1e-6));
  CHECK(CategoryAverages(x) < x.step_time_ms.avg - 1.0);  // They do not add up.
}

TEST_CASE("Option host takes a PyTorch rank (rank<N>) or the file's host name", "[cli][kineto][multihost]") {
  REQUIRE_CORPUS(rank0, "hta/trace_filter/sampled_rank-0.json.gz");
  REQUIRE_CORPUS(rank1, "hta/trace_filter/sampled_rank-1.json.gz");
  const std::string run = fs::path(rank0).parent_path().string();  // The folder of both: one run.
  auto by_rank = RunTool("steps '" + run + "' --host rank1 -f csv");
  REQUIRE(by_rank.exit_code == 0);
  CHECK_THAT(by_rank.out, Catch::Contains("ProfilerStep#551,551,rank1,607.904"));
  CHECK_THAT(by_rank.out, Catch::Contains("ProfilerStep#552,552,rank1,630.639"));
  auto by_file = RunTool("steps '" + run + "' --host sampled_rank-0 -f csv");
  REQUIRE(by_file.exit_code == 0);
  CHECK_THAT(by_file.out, Catch::Contains("ProfilerStep#551,551,rank0,607.312"));
  auto none = RunTool("steps '" + run + "' --host rank7");
  CHECK(none.exit_code == 2);
  CHECK_THAT(none.err, Catch::Contains("no host named 'rank7'"));
  // The hosts are listed as the reports name them, each file's name beside.
  CHECK_THAT(none.err, Catch::Contains("(hosts: rank0 (sampled_rank-0), rank1 (sampled_rank-1);"));

  // distributedInfo at the end of the file (rank 0): found by reading it.
  REQUIRE_CORPUS(tail, "hta/cupti_profiler/benchmark_result_924719_1679055439_trace.json.gz");
  {
    // A run of it and rank 1's trace (links in a temporary folder): the
    // error names it as the reports do, rank0, from the read that looked
    // for rank 7 in it; rank 1 from its file's head.
    const std::string dir = tfprof::testing::TempDir();
    fs::create_symlink(tail, fs::path(dir) / fs::path(tail).filename());
    fs::create_symlink(rank1, fs::path(dir) / fs::path(rank1).filename());
    auto missing = RunTool("steps '" + dir + "' --host rank7");
    CHECK(missing.exit_code == 2);
    CHECK_THAT(missing.err, Catch::Contains("(hosts: rank0 (benchmark_result_924719_1679055439_trace), rank1 "
                                            "(sampled_rank-1); no trace of that PyTorch rank either)"));
  }
  CHECK(PeekRank(tail).state == PeekedRank::kUnknown);
  auto late = RunTool("info '" + tail + "' --host rank0 -f csv --table hosts");
  CHECK(late.exit_code == 0);
  CHECK_THAT(late.out, Catch::Contains("rank0"));
  CHECK(RunTool("info '" + tail + "' --host rank1").exit_code == 2);
}

TEST_CASE("Ranks of real traces: named by distributedInfo.rank when the trace says it", "[read][kineto]") {
  struct Case {
    const char* path;
    PeekedRank::State peeked;
    std::string name;
  };
  // HTA's fixtures for traces without a usable rank keep their file names.
  for (const Case& c : std::vector<Case>{
           {"hta/trace_filter/sampled_rank-1.json.gz", PeekedRank::kRank, "rank1"},
           {"hta/rank_non_gpu/rank_non_gpu.json.gz", PeekedRank::kRank, "rank0"},
           {"hta/rank_unavailable/rank_not_found.json.gz", PeekedRank::kNone, "rank_not_found"},
           {"hta/distributed_info_unavailable/distributed_info_not_found.json.gz", PeekedRank::kUnknown,
            "distributed_info_not_found"},
           {"hta/df_index_resolver/df_index_resolver.json.gz", PeekedRank::kRank, "rank1"},
       }) {
    INFO(c.path);
    REQUIRE_CORPUS(path, c.path);
    CHECK(PeekRank(path).state == c.peeked);
    DiscoveredInput d = DiscoverInput(path);
    Diagnostics diag;
    CHECK(LoadCapture(d.selected.files.at(0), diag).name == c.name);
  }
}

TEST_CASE("distributedInfo text: the rank, or none", "[read][kineto]") {
  CHECK(RankOfDistributedInfo(R"({"backend": "nccl", "rank": 3, "world_size": 8})") == 3);
  CHECK(RankOfDistributedInfo(R"({"pg_config": [{"ranks": [0, 1]}], "rank": 1})") == 1);
  CHECK_FALSE(RankOfDistributedInfo(R"({"backend": "nccl"})").has_value());
  CHECK_FALSE(RankOfDistributedInfo(R"({"rank": null})").has_value());
  CHECK_FALSE(RankOfDistributedInfo(R"({"rank": "1"})").has_value());
  CHECK_FALSE(RankOfDistributedInfo(R"({"rank": -1})").has_value());
  CHECK_FALSE(RankOfDistributedInfo(R"({"rank": 1.5})").has_value());
  CHECK_FALSE(RankOfDistributedInfo(R"([1])").has_value());
  CHECK(IsRankHostName("rank12"));
  CHECK_FALSE(IsRankHostName("rank"));
  CHECK_FALSE(IsRankHostName("rank-1"));
  CHECK_FALSE(IsRankHostName("worker0"));
}

TEST_CASE("Two TensorFlow hosts: steps named as the first host names them, each the slower host's",
          "[steps][multihost]") {
  // tf_two_hosts: two workers whose step numbers differ by one at the same
  // time ("train 47" on one is "train 48" on the other).
  const std::string run = tfprof::testing::SourcePath("testdata/captures/tf_two_hosts");
  const std::string folder = DiscoverInput(run).selected.path;
  StepSummary s = Steps(folder, {}), x = Steps(folder, AnalysisOptions{Compat::kXprof});
  // Each host alone, to find the slower one per step.
  DiscoveredInput d = DiscoverInput(folder);
  REQUIRE(d.selected.files.size() == 2);
  REQUIRE(s.rows.size() == x.rows.size());
  REQUIRE(s.rows.size() == 11);
  std::set<std::string> names, hosts;
  for (size_t i = 0; i < s.rows.size(); ++i) {
    INFO("step " << i);
    CHECK(s.rows[i].name == x.rows[i].name);  // The first host's names in both modes.
    names.insert(s.rows[i].name);
    hosts.insert(s.rows[i].host);
    double categories = 0;
    for (double c : s.rows[i].category_ms) categories += c;
    CHECK(categories == Approx(s.rows[i].step_time_ms).margin(1e-6));  // Its own host's breakdown.
  }
  CHECK(names.size() == s.rows.size());
  CHECK(hosts.size() == 2);                                              // Each host is the slower one at some step.
  CHECK(s.step_time_ms.avg == Approx(x.step_time_ms.avg).margin(1e-9));  // Both: the slower host's time.
}
