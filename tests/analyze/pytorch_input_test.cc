// The Input Pipeline Analyzer's host side on PyTorch traces, which have no
// tf.data ops: the DataLoader's fetches and the host-to-device copies
// (AnalyzePyTorchInput), against counts over the raw JSON of two corpus
// traces (Python over the JSON: the events named
// "enumerate(DataLoader)#..." and "Memcpy HtoD (...)", their number and the
// sum of their `dur`), and on facts made up here.
#include <catch2/catch.hpp>

#include <string>

#include "lib/analyze/input_pipeline_analysis.h"
#include "lib/read/chrome_trace_reader.h"
#include "lib/summary/pytorch_runtime_facts.h"
#include "tests/support/corpus.h"
#include "tests/support/skip.h"

using namespace tfprof;

namespace {

constexpr uint64_t kPsPerUs = 1'000'000;

const InputOp* Row(const InputPipelineAnalysis& a, const std::string& name) {
  for (const InputOp& op : a.ops)
    if (op.name == name) return &op;
  return nullptr;
}

const std::string kMainProcess = "enumerate(DataLoader) in the training process (num_workers=0)";
const std::string kWorkers = "enumerate(DataLoader) waiting for worker processes";
const std::string kPageable = "Memcpy HtoD (Pageable -> Device)";
const std::string kPinned = "Memcpy HtoD (Pinned -> Device)";

}  // namespace

TEST_CASE("PyTorch input ops: the DataLoader and host-to-device copies, each whole, by time", "[input][pytorch]") {
  PyTorchRuntimeFacts f;
  f.single_process_loader_calls = 3;
  f.single_process_loader_ps = 300 * kPsPerUs;
  f.worker_loader_calls = 2;
  f.worker_loader_ps = 100 * kPsPerUs;
  f.pinned_h2d_copies = 4;
  f.pinned_h2d_ps = 600 * kPsPerUs;
  const InputPipelineAnalysis a = AnalyzePyTorchInput(f);
  REQUIRE(a.ops.size() == 3);  // No pageable copies: no row.
  CHECK(a.ops[0].name == kPinned);
  CHECK(a.ops[1].name == kMainProcess);
  CHECK(a.ops[2].name == kWorkers);
  CHECK(a.ops[0].category == InputOpCategory::kEnqueue);
  CHECK(a.ops[1].category == InputOpCategory::kPreprocessing);
  CHECK(a.ops[2].category == InputOpCategory::kUnknown);
  CHECK(a.ops[0].count == 4);
  CHECK(a.ops[1].time_ms == Approx(0.3));
  CHECK(a.ops[1].self_time_ms == Approx(0.3));
  CHECK(a.ops[0].time_fraction == Approx(0.6));
  CHECK(a.ops[2].self_time_fraction == Approx(0.1));
  CHECK(a.breakdown.enqueue_us == Approx(600));
  CHECK(a.breakdown.preprocessing_us == Approx(300));
  CHECK(a.breakdown.unclassified_non_enqueue_us == Approx(100));
  CHECK(a.breakdown.demanded_file_read_us == 0);
  CHECK(!a.tf_data_in_use);
  CHECK(AnalyzePyTorchInput(PyTorchRuntimeFacts{}).ops.empty());
}

TEST_CASE("PyTorch input ops of corpus traces equal the raw JSON's counts", "[input][pytorch][corpus]") {
  struct Case {
    const char* path;
    std::string loader;
    uint64_t loader_calls, loader_us, copies, copies_us;
  };
  const Case cases[] = {
      // num_workers=0: six fetches in the training process.
      {"kineto/samples/resnet50_profiler_api_num_workers_0/worker0.pt.trace.json.gz", kMainProcess, 6, 279738, 12,
       12734},
      // num_workers=4: six waits for the workers.
      {"kineto/samples/resnet50_profiler_api_num_workers_4/worker0.pt.trace.json.gz", kWorkers, 6, 10217, 12, 19721},
  };
  for (const Case& c : cases) {
    SECTION(c.path) {
      REQUIRE_CORPUS(path, c.path);
      Diagnostics d;
      const Host host = ReadChromeTraceFile(path, d);
      const InputPipelineAnalysis a = AnalyzePyTorchInput(CollectPyTorchRuntimeFacts(host));
      REQUIRE(a.ops.size() == 2);
      const InputOp* loader = Row(a, c.loader);
      const InputOp* copies = Row(a, kPageable);
      REQUIRE(loader);
      REQUIRE(copies);
      CHECK(loader->count == c.loader_calls);
      CHECK(loader->time_ms * 1000 == Approx(static_cast<double>(c.loader_us)).margin(1e-6));
      CHECK(copies->count == c.copies);
      CHECK(copies->time_ms * 1000 == Approx(static_cast<double>(c.copies_us)).margin(1e-6));
      CHECK(a.breakdown.enqueue_us == Approx(static_cast<double>(c.copies_us)).margin(1e-6));
    }
  }
}
