// --steps-between: steps as the windows between marker events, for PyTorch
// loops profiled without ProfilerStep#N.
//
// Expected numbers come from scripts/reference/kineto_steps.py
// --steps-between 'enumerate\(DataLoader\)' TRACE (a Python reading of the
// raw JSON in exact decimal picoseconds, written from the rules in
// lib/summary/steps_between.h and docs/overview.md), not from this program.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "lib/analyze/step_summary.h"
#include "lib/read/chrome_trace_reader.h"
#include "lib/summary/event_grouping.h"
#include "lib/summary/planes_to_step_db.h"
#include "tests/support/corpus.h"
#include "tests/support/skip.h"
#include "tests/support/step_rows.h"

using namespace tfprof;
using tfprof::testing::CheckStepRows;
using tfprof::testing::ExpectedStep;

namespace {

constexpr const char* kDataLoader = "enumerate\\(DataLoader\\)";

AnalysisOptions Between(const std::string& pattern) {
  AnalysisOptions o;
  o.steps_between = pattern;
  return o;
}

StepSummary Summary(const Host& host, const EventGroups& groups, const AnalysisOptions& options, Diagnostics& diag) {
  std::vector<StepDb> dbs;
  dbs.push_back(BuildStepDb(host, groups, options, diag));
  return SummarizeSteps(CombineHostSteps(std::move(dbs)));
}

}  // namespace

TEST_CASE("steps-between: the H100 DataLoader loop without ProfilerStep#N", "[steps][kineto][steps_between]") {
  // torch_gpu_fp32_nosched: 5 batches, no schedule and no prof.step(); the
  // loop's six `enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__`
  // calls (the sixth ends the loop with StopIteration) are the markers.
  Diagnostics diag;
  Host host = ReadChromeTraceFile(testing::SourcePath("testdata/captures/torch_gpu_fp32_nosched/trace.json.gz"), diag);
  const AnalysisOptions options = Between(kDataLoader);
  EventGroups groups = GroupEvents(host, diag, options);
  REQUIRE(groups.groups.size() == 6);
  REQUIRE(groups.marker_windows.size() == 6);
  CHECK(groups.from_marker);
  CHECK(groups.note.find("--steps-between") != std::string::npos);
  // The windows in absolute picoseconds (the script's host_begin_ps /
  // host_end_ps: marker i's ts, marker i+1's ts, and for the last the latest
  // end of a host or device event, the trace's end: the closing
  // cudaDeviceSynchronize, not Kineto's own "PyTorch Profiler (0)" span 27 us
  // later on its "Spans" process).
  const int64_t want[7] = {4544500362364568000, 4544500464178277000, 4544500477673796000, 4544500488811307000,
                           4544500499752549000, 4544500510255338000, 4544500530319212000};
  const int64_t origin_ps = host.time_origin_ns * 1000;
  for (size_t i = 0; i < 6; ++i) {
    INFO("window " << i);
    CHECK(groups.groups[i].name == "step " + std::to_string(i + 1));
    CHECK(origin_ps + groups.marker_windows[i].first == want[i]);
    CHECK(origin_ps + groups.marker_windows[i].second == want[i + 1]);
  }
  // Five steps with device compute; the sixth window (StopIteration, then
  // the end of profiling) launched nothing and is dropped as incomplete.
  // With five steps none is dropped for being first or last. The first
  // iteration waits for the DataLoader's two workers to start.
  StepSummary s = Summary(host, groups, options, diag);
  CHECK(s.has_device);
  CheckStepRows(s, {{"step 1", 101.813709, 0.790403},
                    {"step 2", 13.495519, 0.738459},
                    {"step 3", 11.137511, 0.739391},
                    {"step 4", 10.941242, 0.738467},
                    {"step 5", 10.502789, 0.737378}});
  CHECK(s.step_time_ms.avg == Approx(29.578154).margin(1e-6));
  CHECK(s.note.find("--steps-between") != std::string::npos);
}

TEST_CASE("steps-between: 2021 Kineto ResNet50 loops (autograd API, no ProfilerStep#N)",
          "[steps][kineto][steps_between][corpus]") {
  // Six DataLoader calls, each starting a real iteration (profiling stopped
  // inside the loop): six steps, the first and the last dropped as the
  // TensorFlow Profiler drops them with more than five.
  struct Case {
    const char* path;
    std::vector<ExpectedStep> rows;
    double avg_ms;
  };
  const Case cases[] = {
      {"kineto/samples/resnet50_autograd_api_num_workers_0/worker0.pt.trace.json.gz",
       {{"step 2", 175.125, 100.402},
        {"step 3", 154.804, 99.990},
        {"step 4", 162.798, 100.186},
        {"step 5", 206.824, 100.170}},
       174.88775},
      {"kineto/samples/resnet50_autograd_api_num_workers_4/worker0.pt.trace.json.gz",
       {{"step 2", 122.379, 100.756},
        {"step 3", 123.684, 100.671},
        {"step 4", 133.677, 100.547},
        {"step 5", 124.730, 100.822}},
       126.1175},
  };
  for (const Case& c : cases) {
    INFO(c.path);
    REQUIRE_CORPUS(path, c.path);
    Diagnostics diag;
    Host host = ReadChromeTraceFile(path, diag);
    // Without the option the trace has no steps, and the reason says what to try.
    EventGroups none = GroupEvents(host, diag);
    CHECK(none.empty());
    CHECK(none.no_groups_reason.find("--steps-between") != std::string::npos);
    const AnalysisOptions options = Between(kDataLoader);
    EventGroups groups = GroupEvents(host, diag, options);
    CHECK(groups.groups.size() == 6);
    StepSummary s = Summary(host, groups, options, diag);
    CheckStepRows(s, c.rows);
    CHECK(s.step_time_ms.avg == Approx(c.avg_ms).margin(1e-6));
  }
}

TEST_CASE("steps-between: no match and a bad pattern", "[steps][steps_between]") {
  Diagnostics diag;
  Host host = ReadChromeTraceFile(testing::SourcePath("testdata/captures/torch_gpu_fp32_nosched/trace.json.gz"), diag);
  EventGroups none = GroupEvents(host, diag, Between("^no such event$"));
  CHECK(none.empty());
  CHECK(none.no_groups_reason == "no host event matches --steps-between '^no such event$'");
  CHECK_THROWS_AS(GroupEvents(host, diag, Between("enumerate(")), std::invalid_argument);
}

TEST_CASE("steps-between: nested markers, markers on two threads, device work follows its launch",
          "[steps][steps_between]") {
  // Times in us. Markers "iter": 100 (thread 1, 10 long), 102 (nested in
  // it: no step), 120 on threads 1 and 2 (one step). The kernel launched at
  // 105 runs at 121, after the second marker: it stays in step 1. The
  // memset's launch is not in the trace: it takes the step of the kernel
  // before it (step 2).
  // aten::mm at 90 is before the first marker: no step.
  const std::string json = R"json({"traceEvents":[
    {"ph":"M","name":"process_labels","pid":1,"tid":0,"args":{"labels":"CPU"}},
    {"ph":"M","name":"process_labels","pid":0,"tid":0,"args":{"labels":"GPU 0"}},
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":90,"dur":2},
    {"ph":"X","cat":"user_annotation","name":"iter","pid":1,"tid":1,"ts":100,"dur":10},
    {"ph":"X","cat":"user_annotation","name":"iter","pid":1,"tid":1,"ts":102,"dur":1},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":105,"dur":1,"args":{"correlation":1}},
    {"ph":"X","cat":"user_annotation","name":"iter","pid":1,"tid":1,"ts":120,"dur":5},
    {"ph":"X","cat":"user_annotation","name":"iter","pid":1,"tid":2,"ts":120,"dur":3},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":122,"dur":1,"args":{"correlation":2}},
    {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":121,"dur":4,"args":{"correlation":1,"device":0,"stream":7}},
    {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":130,"dur":2,"args":{"correlation":2,"device":0,"stream":7}},
    {"ph":"X","cat":"gpu_memset","name":"Memset (Device)","pid":0,"tid":7,"ts":133,"dur":1,"args":{"correlation":3,"device":0,"stream":7}}
  ]})json";
  Diagnostics diag;
  Host host = ReadChromeTraceText(json, "nested.json", diag);
  EventGroups groups = GroupEvents(host, diag, Between("^iter$"));
  REQUIRE(groups.groups.size() == 2);
  // Windows [100, 120) and [120, 134]: 134 us is the memset's end.
  const int64_t us = 1000000;
  CHECK(groups.marker_windows[1].first - groups.marker_windows[0].first == 20 * us);
  CHECK(groups.marker_windows[1].second - groups.marker_windows[1].first == 14 * us);
  auto group_of = [&](std::string_view name, int64_t ts_us) {
    for (size_t p = 0; p < host.planes.size(); ++p)
      for (size_t l = 0; l < host.planes[p].lines.size(); ++l)
        for (size_t e = 0; e < host.planes[p].lines[l].events.size(); ++e) {
          const Event& ev = host.planes[p].lines[l].events[e];
          const std::string_view ev_name = host.Str(host.planes[p].event_metadata[ev.metadata].name);
          if (ev_name == name && ev.start_ps - groups.marker_windows[0].first == (ts_us - 100) * us)
            return groups.Of(p, l, e);
        }
    FAIL("no event " << name << " at " << ts_us);
    return kNoGroup;
  };
  CHECK(group_of("aten::mm", 90) == kNoGroup);
  CHECK(group_of("iter", 102) == 0);
  CHECK(group_of("k1", 121) == 0);
  CHECK(group_of("k2", 130) == 1);
  CHECK(group_of("MEMSET", 133) == 1);
  // Step 1 spans its window and its kernel: 100..125 us; step 2 its window,
  // which holds its device work: 120..134 us.
  StepSummary s = Summary(host, groups, Between("^iter$"), diag);
  CheckStepRows(s, {{"step 1", 0.025, 0.004}, {"step 2", 0.014, 0.003}});
}
