// The run summary's parts survive their protobuf form exactly: for real
// captures of every format, the reports built from parts read back from
// bytes are byte-identical to the reports built from the parts themselves,
// and the bytes are canonical (the same part always gives the same bytes).
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "lib/analyze/kernel_stats_report.h"
#include "lib/analyze/memory_profile_report.h"
#include "lib/analyze/metrics_report.h"
#include "lib/analyze/overview_analysis.h"
#include "lib/analyze/overview_report.h"
#include "lib/analyze/placement_report.h"
#include "lib/analyze/run_summary_to_metrics.h"
#include "lib/analyze/step_summary.h"
#include "lib/analyze/steps_report.h"
#include "lib/analyze/tf_data_pipelines_to_report.h"
#include "lib/analyze/tf_stats_report.h"
#include "lib/model/diagnostic_kinds.h"
#include "lib/model/errors.h"
#include "lib/read/capture_discovery.h"
#include "lib/read/capture_loader.h"
#include "lib/render/render.h"
#include "lib/summary/captures_to_run_summary.h"
#include "lib/summary/run_summary_combine.h"
#include "lib/summary/run_summary_file.h"
#include "lib/summary/run_summary_proto.h"
#include "tests/support/corpus.h"

namespace tfprof {
namespace {

using testing::SourcePath;

// One capture's summary with every part, as the commands load it.
RunSummary SummarizeCapture(const std::string& path) {
  SummaryOptions options;
  options.parts = SummaryParts::All();
  return CapturesToRunSummary(DiscoverInput(path), {}, options);
}

std::string Json(const Report& report) {
  std::ostringstream out;
  RenderJson(report, out);
  RenderOptions text;
  text.verbose = true;
  RenderText(report, text, out);
  return out.str();
}

std::string DiagnosticsText(const Diagnostics& diagnostics) {
  std::string out;
  for (const DiagnosticEntry& e : diagnostics.Entries())
    out += std::string(SeverityName(e.severity)) + " " + e.kind + " " + std::to_string(e.count) + " " + e.message +
           " | " + e.example + "\n";
  return out;
}

// Every report the commands print from a summary (JSON and text), and the
// diagnostics, as one text.
// (By value: memory profiles cannot be copied, and the report reads them
// as one vector.)
std::string ReportsOf(RunSummary run) {
  std::string out = run.run + "\n" + DiagnosticsText(RunDiagnostics(run));
  // metrics, check and diff read this.
  out += Json(BuildMetricsReport(RunSummaryToMetrics(run)));
  const HostSummary combined = CombineHostOps(run);
  out += Json(BuildTfStatsReport(combined, {}));
  TfStatsOptions by_type;
  by_type.by_type = true;
  out += Json(BuildTfStatsReport(combined, by_type));
  if (!combined.kernels.empty()) {
    out += Json(BuildKernelStatsReport(combined, {}));
    KernelStatsOptions by_op;
    by_op.by_op = true;
    out += Json(BuildKernelStatsReport(combined, by_op));
  } else {
    out += NoKernelsReason(combined);
  }
  std::vector<Placement> placement;
  for (const HostPartials& h : run.hosts) placement.push_back(ComputePlacement(h.ops, h.host));
  out += Json(BuildPlacementReport(placement, combined, 10));

  const StepSummary steps = SummarizeSteps(CombineRunSteps(run));
  if (!steps.rows.empty()) out += Json(BuildStepsReport(steps));
  const Overview overview = BuildOverview(combined, steps, run.options);
  out += Json(BuildOverviewReport(overview, run.run));
  out += Json(BuildInputPipelineReport(overview, run.run));

  const TfDataAnalysis tf_data = CombineRunTfData(run);
  bool pipelines = false;
  for (const TfDataHost& h : tf_data.hosts) pipelines = pipelines || !h.pipelines.empty();
  if (pipelines) out += Json(BuildTfDataReport(tf_data, {}));

  for (const HostPartials& h : run.hosts)
    out += h.host + " " + std::to_string(h.order) + " " + std::to_string(static_cast<int>(h.format)) + "\n";
  std::vector<HostMemoryProfile> memory;
  for (HostPartials& h : run.hosts) memory.push_back(std::move(h.memory));
  MemoryReportOptions options;
  options.timeline = options.breakdown = options.all_points = true;
  out += Json(BuildMemoryReport(memory, options));
  options.all_points = false;
  options.max_points = 7;  // Sampled: reads the whole timeline too.
  out += Json(BuildMemoryReport(memory, options));
  return out;
}

// Part -> bytes -> part. The bytes of the part read back are the bytes it
// was read from (canonical form), and writing the same part twice gives
// the same bytes.
template <class Message, class Part>
Part RoundTrip(const Part& in) {
  Message m;
  ToProto(in, &m);
  const std::string bytes = SerializeDeterministic(m);
  Message m2;
  ToProto(in, &m2);
  CHECK(SerializeDeterministic(m2) == bytes);
  Message read;
  REQUIRE(read.ParseFromString(bytes));
  Part out = FromProto(read);
  Message again;
  ToProto(out, &again);
  CHECK(SerializeDeterministic(again) == bytes);
  return out;
}

size_t TimelineEvents(const RunSummary& run) {
  size_t n = 0;
  for (const HostPartials& h : run.hosts)
    for (const AllocatorMemoryProfile& a : h.memory.allocators) n += a.timeline.size();
  return n;
}

TEST_CASE("run summary: every report is byte-identical after the protobuf round trip", "[summary][proto]") {
  // What each capture must hold for the comparison to mean something: the
  // host count and allocator events are the captures' own
  // (xplane_summary.json's memory_events; testdata/captures/README.md).
  struct Case {
    const char* capture;
    size_t hosts;
    size_t memory_events;  // MemoryAllocation + MemoryDeallocation events (PyTorch: [memory] events).
    bool kernels, steps, pipelines;
  };
  const Case cases[] = {
      {"tf_memory", 1, 115, false, true, false},           // TF2 xplane, CPU, allocator events.
      {"tf_prefetch", 1, 0, false, true, true},            // TF2 xplane with tf.data pipelines.
      {"tf_two_hosts", 2, 0, false, true, true},           // Two hosts of one run.
      {"torch_gpu_amp", 1, 1578, true, true, false},       // PyTorch Kineto trace, GPU: 1578 [memory] events.
      {"tf1_timeline", 1, 50, false, true, false},         // TF1 timelines: timeline_03's 25 tensors (show_memory).
      {"jax_gpu", 1, 97 * 2 + 28 * 2, true, true, false},  // JAX xplane with a GPU (expected_facts.json).
  };
  for (const Case& c : cases) {
    SECTION(c.capture) {
      const std::string path = SourcePath(std::string("testdata/captures/") + c.capture);
      RunSummary direct = SummarizeCapture(path);
      REQUIRE(direct.hosts.size() == c.hosts);

      // Every part on its own: canonical bytes, read back the same.
      for (const HostPartials& h : direct.hosts) {
        RoundTrip<summary::HostSummary>(h.ops);
        RoundTrip<summary::StepDb>(h.steps);
        RoundTrip<summary::HostMemoryProfile>(h.memory);
        RoundTrip<summary::TfDataHost>(h.tf_data);
        for (const Diagnostics* d :
             {&h.diagnostics.grouping, &h.diagnostics.ops, &h.diagnostics.ops_host, &h.diagnostics.ops_device,
              &h.diagnostics.steps, &h.diagnostics.memory, &h.diagnostics.tf_data})
          RoundTrip<summary::Diagnostics>(*d);
      }

      // The whole summary through a file.
      const std::string bytes = RunSummaryToBytes(direct);
      CHECK(RunSummaryToBytes(direct) == bytes);
      RunSummary back = RunSummaryFromBytes(bytes, "mem");
      CHECK(RunSummaryToBytes(back) == bytes);
      CHECK(back.parts == direct.parts);
      CHECK(TimelineEvents(direct) == c.memory_events);
      CHECK(TimelineEvents(back) == c.memory_events);
      CHECK(!back.hosts.front().ops.kernels.empty() == c.kernels);
      bool steps = false, pipelines = false;
      for (const HostPartials& h : back.hosts) {
        steps = steps || !h.steps.steps.empty();
        pipelines = pipelines || !h.tf_data.pipelines.empty();
      }
      CHECK(steps == c.steps);
      CHECK(pipelines == c.pipelines);
      CHECK(ReportsOf(std::move(back)) == ReportsOf(std::move(direct)));
    }
  }
}

TEST_CASE("run summary: the op metrics' diagnostics by side survive the round trip; older files have them whole",
          "[summary][proto]") {
  RunSummary run;
  run.run = "r";
  // The host side alone: its part bit is read back too.
  run.parts = SummaryPart::kHostOps | SummaryPart::kSteps;
  HostPartials& h = run.hosts.emplace_back();
  h.host = "h";
  h.diagnostics.ops_by_side = true;
  h.diagnostics.ops.Add(diag_kind::kOpStatsSpanCut, "host thread", 2);
  h.diagnostics.ops.Add(diag_kind::kOpStatsXlaDeviceOpsSkipped, "device", 3);
  h.diagnostics.ops_host.Add(diag_kind::kOpStatsSpanCut, "host thread", 2);
  h.diagnostics.ops_device.Add(diag_kind::kOpStatsXlaDeviceOpsSkipped, "device", 3);
  const RunSummary back = RunSummaryFromBytes(RunSummaryToBytes(run), "mem");
  CHECK(back.parts == run.parts);
  const PartDiagnostics& d = back.hosts.front().diagnostics;
  CHECK(d.ops_by_side);
  CHECK(d.ops.Entries().size() == 2);
  CHECK(d.ops_host.Count("op_stats.span_cut") == 2);
  CHECK(d.ops_host.Entries().size() == 1);
  CHECK(d.ops_device.Count("op_stats.xla_device_ops_skipped") == 3);
  CHECK(d.ops_device.Entries().size() == 1);
  // Written as before the split (no sides): read back without them, so
  // each side's command reports the op diagnostics whole, as it did.
  run.hosts.front().diagnostics.ops_by_side = false;
  const RunSummary old = RunSummaryFromBytes(RunSummaryToBytes(run), "mem");
  CHECK_FALSE(old.hosts.front().diagnostics.ops_by_side);
  CHECK(old.hosts.front().diagnostics.ForParts(SummaryPart::kHostOps).Entries().size() == 2);
  CHECK(old.hosts.front().diagnostics.ForParts(SummaryPart::kKernels).Entries().size() == 2);
}

// Interned strings go out as a sorted table of the strings in use: the
// bytes do not depend on the order the pool met them in.
TEST_CASE("run summary parts: memory strings are written as a sorted table", "[summary][proto]") {
  auto profile = [](bool reversed) {
    HostMemoryProfile p;
    p.host = "h";
    p.strings.Intern("unused");  // Interned, never referenced: not written.
    const StringId a = p.strings.Intern(reversed ? "b_op" : "a_op");
    const StringId b = p.strings.Intern(reversed ? "a_op" : "b_op");
    AllocatorMemoryProfile& alloc = p.allocators.emplace_back();
    alloc.memory_id = "GPU_0_bfc";
    MemorySnapshot s;
    s.op_name = reversed ? b : a;  // "a_op" either way.
    alloc.timeline.push_back(s);
    s.op_name = reversed ? a : b;  // "b_op" either way.
    alloc.timeline.push_back(s);
    return p;
  };
  summary::HostMemoryProfile forward, reversed;
  ToProto(profile(false), &forward);
  ToProto(profile(true), &reversed);
  CHECK(SerializeDeterministic(forward) == SerializeDeterministic(reversed));
  REQUIRE(forward.strings_size() == 3);
  CHECK(forward.strings(0) == "");
  CHECK(forward.strings(1) == "a_op");
  CHECK(forward.strings(2) == "b_op");
  CHECK(forward.allocators(0).timeline(0).op_name_str() == 1);
  CHECK(forward.allocators(0).timeline(1).op_name_str() == 2);
  const HostMemoryProfile back = FromProto(forward);
  CHECK(back.Str(back.allocators[0].timeline[0].op_name) == "a_op");
  CHECK(back.Str(back.allocators[0].timeline[1].op_name) == "b_op");
}

TEST_CASE("run summary parts: a message no summary gives is one input error", "[summary][proto]") {
  auto problem = [](auto&& read) -> std::string {
    try {
      read();
    } catch (const InputError& e) {
      CHECK(e.code() == kExitBadInput);
      return e.what();
    }
    return "no error";
  };
  summary::HostMemoryProfile memory;
  memory.add_strings("");
  memory.add_allocators()->add_timeline()->set_op_name_str(1);
  CHECK(problem([&] { FromProto(memory); }) == "run summary: string 1 of a memory profile's table of 1");
  memory.mutable_allocators(0)->mutable_timeline(0)->set_op_name_str(0);
  memory.mutable_allocators(0)->add_active()->set_snapshot(1);
  CHECK(problem([&] { FromProto(memory); }) == "run summary: allocation at snapshot 1 of a timeline of 1");
  memory.set_strings(0, "MatMul");
  CHECK(problem([&] { FromProto(memory); }) == "run summary: memory profile's string table does not start with \"\"");

  summary::Diagnostics diagnostics;
  diagnostics.add_entries()->set_severity(static_cast<summary::Severity>(7));
  CHECK(problem([&] { FromProto(diagnostics); }) == "run summary: unknown diagnostic severity 7");

  summary::StepDb steps;
  for (int i = 0; i < 19; ++i) steps.add_steps();
  for (int i = 0; i < 19; ++i) steps.mutable_steps(0)->add_type_ps(1);
  CHECK(problem([&] { FromProto(steps); }) == "run summary: a step has 19 event types, this version knows 18");

  summary::KernelStatsDb kernels;
  kernels.add_reports()->add_grid(1);
  CHECK(problem([&] { FromProto(kernels); }) == "run summary: kernel block has 0 dimensions, not 3");
}

}  // namespace
}  // namespace tfprof

TEST_CASE("run summary: the PyTorch runtime facts and GPU busy times survive the protobuf round trip, field by field",
          "[summary][proto]") {
  tfprof::HostSummary in;
  in.pytorch = {.single_process_loader_calls = 1,
                .single_process_loader_ps = 2,
                .worker_loader_calls = 3,
                .worker_loader_ps = 4,
                .pageable_h2d_copies = 5,
                .pageable_h2d_ps = 6,
                .pinned_h2d_copies = 7,
                .pinned_h2d_ps = 8,
                .cuda_graph_launches = 9};
  in.device_busy_ps = {10, 0, 12};
  tfprof::summary::HostSummary message;
  tfprof::ToProto(in, &message);
  CHECK(message.has_pytorch());
  const tfprof::HostSummary out = tfprof::FromProto(message);
  CHECK(out.pytorch == in.pytorch);
  CHECK(out.pytorch.cuda_graph_launches == 9);
  CHECK(out.device_busy_ps == std::vector<uint64_t>{10, 0, 12});
  // All zero (not PyTorch): nothing is written.
  tfprof::summary::HostSummary empty;
  tfprof::ToProto(tfprof::HostSummary{}, &empty);
  CHECK_FALSE(empty.has_pytorch());
}
