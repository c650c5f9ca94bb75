// The report commands read Chrome trace JSON keeping only the args the
// analyses and the reader's conventions read (chrome_trace_arg_filter.h).
// This fails when an analysis or a convention reads an arg missing from
// those lists: on real traces of each writer (PyTorch/Kineto of several
// versions and vendors, TensorFlow's and JAX's trace viewer JSON, TF1
// timelines, Perfetto's JSON), every summary part must come out
// byte-identical from the filtered model and from the whole one.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "lib/summary/analysed_event_stats.h"
#include "tests/support/corpus.h"
#include "tests/support/filtered_summary.h"
#include "tests/support/skip.h"
#include "tests/support/xspace_builder.h"

namespace tfprof {
namespace {

namespace fs = std::filesystem;
using testing::CommandParts;
using testing::SummariseKeeping;

// Args left out over all the parts.
uint64_t CheckSameSummaries(const std::string& path, const std::vector<AnalysisOptions>& variants) {
  uint64_t dropped = 0;
  for (const AnalysisOptions& analysis : variants) {
    for (SummaryParts parts : CommandParts()) {
      INFO(path << " parts " << parts.bits << " compat " << static_cast<int>(analysis.compat));
      const testing::FilteredSummary filtered = SummariseKeeping(path, parts, EventStatsFor(parts, analysis), analysis);
      CHECK(filtered.bytes == SummariseKeeping(path, parts, EventStatFilter(), analysis).bytes);
      dropped += filtered.stats_dropped;
    }
  }
  return dropped;
}

std::vector<AnalysisOptions> Variants() {
  std::vector<AnalysisOptions> out(2);
  out[1].compat = Compat::kXprof;
  return out;
}

TEST_CASE("Summaries of the JSON test captures are the same read with only the analysed args",
          "[filter][summary][json]") {
  // Every JSON capture of testdata/captures: Kineto from current PyTorch
  // on a GPU (AMP, compile, CUDA graphs, DDP, memory events, FP8, ...), JAX's
  // trace viewer and Perfetto JSON, a TF1 timeline series.
  std::vector<std::string> inputs;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(testing::SourcePath("testdata/captures"))) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && (name.ends_with("trace.json.gz") || name == "trace.json"))
      inputs.push_back(e.path().string());
  }
  inputs.push_back(testing::SourcePath("testdata/captures/tf1_timeline"));
  std::sort(inputs.begin(), inputs.end());
  inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
  REQUIRE(inputs.size() >= 15);
  uint64_t dropped = 0;
  for (const std::string& input : inputs) dropped += CheckSameSummaries(input, Variants());
  CHECK(dropped > 10'000);  // There was something to leave out.
}

TEST_CASE("Summaries of the corpus's JSON traces are the same read with only the analysed args",
          "[filter][summary][json][corpus]") {
  // One trace of each writer and vintage in the corpus.
  const char* kTraces[] = {
      "hta/negative_queue_length_values_check/rank0.json.gz",                  // A100, Kineto 2023.
      "hta/mtia_inference_trace/mtia_inference_rank_0.json.gz",                // MTIA.
      "hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",  // ns timestamps.
      "kineto/samples/resnet50_num_workers_0/worker0.pt.trace.json.gz",        // Kineto 2021.
      "tracelens/mi300/gaunernst_bert-small-uncased__1016001.json.gz",         // ROCm.
      "tracelens/b200/eager_trace.json.gz",                                    // B200.
      "e4040-2023fall-assign2-hd2551/logs/fit/20231107-184716/train/plugins/profile/2023_11_07_18_47_18/"
      "instance-2.trace.json.gz",                // TensorFlow's trace viewer.
      "tf1_timelines/dlprof/timeline.ctf.json",  // TF1 timelines.
      "tf1_timelines/mnist-xla/timeline.ctf.json",
  };
  size_t found = 0;
  uint64_t dropped = 0;
  for (const char* trace : kTraces) {
    const std::string path = testing::CorpusPath(trace);
    if (path.empty()) continue;
    ++found;
    dropped += CheckSameSummaries(path, {AnalysisOptions()});
  }
  if (found == 0) {
    testing::SkipTest("no corpus (set TFPROF_CORPUS)");
    return;
  }
  CHECK(found == std::size(kTraces));
  CHECK(dropped > 100'000);
}

TEST_CASE("A trace with what the captures lack summarises the same filtered: guards, E args",
          "[filter][summary][json]") {
  // What no test capture has: TF-viewer GPU processes whose events carry
  // `annotation` with `tf_op` or with `level 0` (the `level 0` convention
  // must see either and stand down), a Kineto GPU process whose kernels carry their
  // own `tf_op` (Kineto's op attribution must stand down), and E events
  // with args (counted as ignored whether or not the args were read).
  const std::string json = R"({"traceEvents": [
    {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "/device:GPU:0"}},
    {"ph": "X", "name": "fusion", "pid": 1, "tid": 1, "ts": 10, "dur": 5,
     "args": {"annotation": "train/dense/MatMul:MatMul", "tf_op": "dense/MatMul:MatMul", "queued": 1}},
    {"ph": "M", "name": "process_name", "pid": 4, "args": {"name": "/device:GPU:1"}},
    {"ph": "X", "name": "fusion.2", "pid": 4, "tid": 1, "ts": 12, "dur": 5,
     "args": {"annotation": "train/dense/Relu:Relu", "level 0": "dense/Relu:Relu"}},
    {"ph": "M", "name": "process_labels", "pid": 2, "args": {"labels": "GPU 1"}},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 2, "tid": 7, "ts": 20, "dur": 5,
     "args": {"correlation": 5, "tf_op": "mine", "stream": 7, "cbid": 3}},
    {"ph": "B", "name": "step", "pid": 3, "tid": 1, "ts": 0},
    {"ph": "E", "pid": 3, "tid": 1, "ts": 50, "args": {"cbid": 1}}
  ]})";
  const std::string path = testing::TempDir() + "/guards.trace.json";
  std::ofstream(path, std::ios::binary) << json;
  uint64_t dropped = 0;
  for (SummaryParts parts : CommandParts()) {
    INFO("parts " << parts.bits);
    const testing::FilteredSummary filtered = SummariseKeeping(path, parts, EventStatsFor(parts, {}), {});
    CHECK(filtered.bytes == SummariseKeeping(path, parts, EventStatFilter(), {}).bytes);
    dropped += filtered.stats_dropped;
  }
  // `queued` and the kernel's `cbid` in every read; the E's args are never
  // stats (json.end_args_ignored says they were there).
  CHECK(dropped == 2 * CommandParts().size());
}

TEST_CASE("The JSON summary comparison sees a dropped arg an analysis reads", "[filter][summary][json]") {
  // The checks above have teeth: with no analysed name kept, a Kineto
  // trace's kernel stats lose their registers and shared memory, and its
  // memory profile its sizes.
  const std::string kineto = testing::SourcePath("testdata/captures/torch_gpu_memory_near_capacity");
  const SummaryParts all = SummaryParts::All();
  CHECK(SummariseKeeping(kineto, all, EventStatFilter::Only({}), {}).bytes !=
        SummariseKeeping(kineto, all, EventStatFilter(), {}).bytes);
  CHECK(SummariseKeeping(kineto, SummaryPart::kKernels, EventStatFilter::Only({}), {}).bytes !=
        SummariseKeeping(kineto, SummaryPart::kKernels, EventStatFilter(), {}).bytes);
  CHECK(SummariseKeeping(kineto, SummaryPart::kMemory, EventStatsFor(SummaryPart::kKernels, {}), {}).bytes !=
        SummariseKeeping(kineto, SummaryPart::kMemory, EventStatFilter(), {}).bytes);
}

}  // namespace
}  // namespace tfprof
