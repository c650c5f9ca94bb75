// HostToRunSummary: one pass per host, computing only the parts asked for
// and grouping the events at most once.
#include <catch2/catch.hpp>

#include <string>

#include "lib/model/diagnostic_kinds.h"
#include "lib/read/capture_discovery.h"
#include "lib/read/capture_loader.h"
#include "lib/summary/host_to_run_summary.h"
#include "lib/summary/run_summary_combine.h"
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

namespace tfprof {
namespace {

TEST_CASE("The op metrics' two sides are halves of the op part", "[run_summary]") {
  const SummaryParts ops = SummaryPart::kOps, kernels = SummaryPart::kKernels, host = SummaryPart::kHostOps;
  const SummaryParts both = SummaryPart::kKernels | SummaryPart::kHostOps;
  CHECK(ops.Has(SummaryPart::kKernels));
  CHECK(ops.Has(SummaryPart::kHostOps));
  CHECK(both.Has(SummaryPart::kOps));
  CHECK_FALSE(host.Has(SummaryPart::kOps));
  CHECK_FALSE(host.Has(SummaryPart::kKernels));
  CHECK_FALSE(kernels.Has(SummaryPart::kHostOps));
  CHECK(ops.Covers(host));
  CHECK(ops.Covers(both));
  CHECK(both.Covers(ops));
  CHECK(both.Covers(host));
  CHECK_FALSE(host.Covers(ops));
  CHECK_FALSE(host.Covers(kernels));
  CHECK_FALSE(kernels.Covers(host));
  CHECK_FALSE(host.Covers(both));
  CHECK((host | SummaryPart::kSteps).Covers(SummaryPart::kHostOps | SummaryPart::kSteps));
  CHECK_FALSE(host.Covers(SummaryPart::kHostOps | SummaryPart::kSteps));
  // Known to this version: a summary of the host side alone reads back
  // with its parts (RunSummaryFromBytes keeps only known bits).
  CHECK((SummaryParts::Known().bits & static_cast<uint32_t>(SummaryPart::kHostOps)) != 0);
}

TEST_CASE("A command showing one side of the op metrics reports that side's diagnostics", "[run_summary]") {
  PartDiagnostics d;
  d.ops_by_side = true;
  d.ops.Add(diag_kind::kOpStatsSpanCut, "host");
  d.ops.Add(diag_kind::kOpStatsSpanCut, "device");
  d.ops.Add(diag_kind::kOpStatsHostOpNotClosed, "host");
  d.ops_host.Add(diag_kind::kOpStatsSpanCut, "host");
  d.ops_host.Add(diag_kind::kOpStatsHostOpNotClosed, "host");
  d.ops_device.Add(diag_kind::kOpStatsSpanCut, "device");
  const SummaryParts host = SummaryPart::kHostOps, kernels = SummaryPart::kKernels, ops = SummaryPart::kOps;
  CHECK(d.ForParts(ops).Count("op_stats.span_cut") == 2);
  CHECK(d.ForParts(SummaryPart::kKernels | SummaryPart::kHostOps).Count("op_stats.span_cut") == 2);
  CHECK(d.ForParts(host).Count("op_stats.span_cut") == 1);
  CHECK(d.ForParts(host).Entries().size() == 2);
  CHECK(d.ForParts(kernels).Count("op_stats.span_cut") == 1);
  CHECK(d.ForParts(kernels).Entries().size() == 1);
  CHECK(d.ForParts(kernels).Entries().front().example == "device");
  CHECK(d.ForParts(SummaryPart::kSteps).empty());
  // A summary written before the split holds the op diagnostics whole
  // (and so does a PartDiagnostics not made by HostToRunSummary): either
  // side reports all of them, as it did then.
  d.ops_by_side = false;
  CHECK(d.ForParts(host).Count("op_stats.span_cut") == 2);
  CHECK(d.ForParts(kernels).Count("op_stats.span_cut") == 2);
}

}  // namespace
}  // namespace tfprof
