// Summaries stored apart combine into the same bytes whatever the order:
// the run summary file is what a scaled-out run's hosts hand in.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "lib/read/capture_discovery.h"
#include "lib/read/capture_loader.h"
#include "lib/summary/host_to_run_summary.h"
#include "lib/summary/run_summary_combine.h"
#include "lib/summary/run_summary_file.h"
#include "tests/support/corpus.h"

namespace tfprof {
namespace {

// One summary per host of tf_two_hosts, each as its own file's bytes.
std::vector<std::string> HostSummaryFiles() {
  const DiscoveredInput input = DiscoverInput(testing::SourcePath("testdata/captures/tf_two_hosts"));
  std::vector<std::string> files;
  for (size_t i = 0; i < input.selected.files.size(); ++i) {
    Diagnostics read;
    Host host = LoadCapture(input.selected.files[i], read);
    SummaryOptions options;
    options.parts = SummaryParts::All();
    options.order = static_cast<uint32_t>(i);
    RunSummary one = HostToRunSummary(host, options);
    files.push_back(RunSummaryToBytes(one));
  }
  return files;
}

RunSummary Combined(const std::vector<std::string>& files, const std::vector<size_t>& order) {
  RunSummary run;
  for (size_t i : order) CombineRunSummaries(run, RunSummaryFromBytes(files[i], "host" + std::to_string(i)));
  return run;
}

TEST_CASE("run summary file: hosts stored apart combine into the same bytes in either order", "[summary][proto]") {
  const std::vector<std::string> files = HostSummaryFiles();
  REQUIRE(files.size() == 2);
  CHECK(files[0] != files[1]);
  const RunSummary forward = Combined(files, {0, 1});
  const RunSummary reverse = Combined(files, {1, 0});
  REQUIRE(forward.hosts.size() == 2);
  CHECK(forward.hosts[0].order == 0);
  CHECK(forward.hosts[1].order == 1);
  const std::string bytes = RunSummaryToBytes(forward);
  CHECK(RunSummaryToBytes(reverse) == bytes);
  // Combined, stored and read back: still the same bytes.
  CHECK(RunSummaryToBytes(RunSummaryFromBytes(bytes, "combined")) == bytes);
}

}  // namespace
}  // namespace tfprof
