// HostToRunSummary: one pass per host, computing only the parts asked for
// and grouping the events at most once.
#include <catch2/catch.hpp>

#include <string>

#include "lib/read/capture_discovery.h"
#include "lib/read/capture_loader.h"
#include "lib/summary/host_to_run_summary.h"
#include "tests/support/corpus.h"

namespace tfprof {
namespace {

// torch_mlp: a PyTorch CPU trace with four ProfilerStep#N annotations
// (ProfilerStep#2..#5, taken as the steps) and no [memory] events.
Host TorchMlp() {
  const DiscoveredInput input = DiscoverInput(testing::SourcePath("testdata/captures/torch_mlp"));
  REQUIRE(!input.selected.files.empty());
  Diagnostics read;
  return LoadCapture(input.selected.files.front(), read);
}

RunSummary Summarise(const Host& host, SummaryParts parts) {
  SummaryOptions options;
  options.parts = parts;
  return HostToRunSummary(host, options);
}

// Grouping says once per grouping that it took the ProfilerStep#N markers
// as the steps, counting them: how many times the events were grouped shows.
uint64_t StepMarkerCount(const RunSummary& s) {
  return s.hosts.front().diagnostics.ForParts(s.parts).Count("steps.profiler_step_marker");
}

}  // namespace

TEST_CASE("A host's summary holds only the parts asked for", "[run_summary]") {
  const Host host = TorchMlp();

  const RunSummary steps = Summarise(host, SummaryPart::kSteps);
  REQUIRE(steps.hosts.size() == 1);
  CHECK(steps.hosts.front().host == host.name);
  CHECK(steps.hosts.front().steps.steps.size() == 4);
  CHECK(StepMarkerCount(steps) == 4);
  CHECK(steps.hosts.front().ops.env.hosts.empty());  // No op summary.

  const RunSummary ops = Summarise(host, SummaryPart::kOps);
  CHECK(ops.hosts.front().ops.has_host_plane);
  CHECK(ops.hosts.front().steps.steps.empty());
  CHECK(StepMarkerCount(ops) == 0);  // Op metrics without eager marks group nothing.

  // No allocator events: the memory profile says why, and groups nothing.
  const RunSummary memory = Summarise(host, SummaryPart::kMemory);
  CHECK(memory.hosts.front().memory.allocators.empty());
  CHECK_THAT(memory.hosts.front().memory.no_profile_reason, Catch::Contains("no PyTorch [memory] events"));
  CHECK(StepMarkerCount(memory) == 0);

  // Everything: one grouping serves the steps, the eager marks and the
  // memory profile.
  const RunSummary all = Summarise(host, SummaryParts::All());
  CHECK(all.parts == SummaryParts::All());
  CHECK(all.schema_version == kRunSummarySchemaVersion);
  CHECK(all.hosts.front().steps.steps.size() == 4);
  CHECK(all.hosts.front().ops.has_host_plane);
  CHECK(StepMarkerCount(all) == 4);
}

}  // namespace tfprof
