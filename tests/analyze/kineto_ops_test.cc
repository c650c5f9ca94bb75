// PyTorch ops in op stats and kernel stats of Kineto traces. The expected
// numbers come from scripts/reference/kineto_ops.py (independent of our code:
// exact decimal times, nesting per thread, launch -> op by correlation and
// the innermost cpu_op around the runtime call), run on each trace.
#include <catch2/catch.hpp>

#include <array>
#include <optional>
#include <string>

#include "lib/read/chrome_trace_reader.h"
#include "lib/summary/device_plane_to_op_metrics.h"
#include "lib/summary/host_summary.h"
#include "lib/summary/tf_op_name.h"
#include "tests/support/corpus.h"
#include "tests/support/op_rows.h"
#include "tests/support/skip.h"

using namespace tfprof;
using tfprof::testing::OpRow;

namespace {

struct HostOp {
  std::string name;
  uint64_t occurrences, time_ps, self_ps;
};

uint64_t Executions(const OpMetricsDb& db) {
  uint64_t n = 0;
  for (const OpMetrics& m : db.rows()) n += m.is_idle() ? 0 : m.occurrences;
  return n;
}

// kineto_ops.py's host op totals (executions where checked, self time; IDLE
// excluded) and its top rows by self time.
void CheckHostOps(const OpMetricsDb& db, std::optional<uint64_t> executions, uint64_t self_ps,
                  const std::vector<HostOp>& want) {
  if (executions) CHECK(Executions(db) == *executions);
  CHECK(db.total_op_time_ps == self_ps);
  auto sorted = db.Sorted(0, /*with_idle=*/false);
  REQUIRE(sorted.size() >= want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("host op " << i << " " << want[i].name);
    CHECK(sorted[i]->name == want[i].name);
    CHECK(sorted[i]->category == want[i].name);  // Type = name: PyTorch ops have no scope path.
    CHECK(sorted[i]->occurrences == want[i].occurrences);
    CHECK(sorted[i]->time_ps == want[i].time_ps);
    CHECK(sorted[i]->self_time_ps == want[i].self_ps);
  }
}

}  // namespace

TEST_CASE("PyTorch CPU trace: cpu_op events are host ops, nested per thread", "[op_stats][kineto]") {
  const std::string path = testing::SourcePath("testdata/captures/torch_mlp/trace.json");
  Diagnostics d;
  Host host = ReadChromeTraceFile(path, d);
  CHECK(d.Count("json.kineto_framework_ops") == 448);
  HostSummary s = SummarizeHostOps(host, d);
  // kineto_ops.py: host_ops=44 executions=448 self_ps=398647092000.
  CHECK(s.host_ops.rows().size() == 44 + 1);  // And IDLE.
  CheckHostOps(s.host_ops, 448, 398647092000,
               {{"aten::mm", 12, 198960960000, 198947402000},
                {"aten::addmm", 8, 61231719000, 61110913000},
                {"aten::_log_softmax", 4, 43421308000, 43421308000},
                {"aten::_log_softmax_backward_data", 4, 31737053000, 31737053000},
                {"aten::nll_loss_backward", 4, 30606002000, 30600292000}});
  // aten::linear holds aten::t and aten::addmm: its self time is what is left.
  const OpMetrics* linear = OpRow(s.host_ops, "aten::linear");
  REQUIRE(linear);
  CHECK(linear->self_time_ps < linear->time_ps);
  // user_annotation scopes (ProfilerStep#N, Optimizer.step#...) are not ops.
  for (const OpMetrics& m : s.host_ops.rows()) CHECK(m.name.rfind("ProfilerStep#", 0) != 0);
}

TEST_CASE("PyTorch GPU trace (HTA alexnet): host ops, device ops and kernel ops",
          "[op_stats][kernels][kineto][corpus]") {
  REQUIRE_CORPUS(path, "hta/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz");
  Diagnostics d;
  Host host = ReadChromeTraceFile(path, d);
  // kineto_ops.py: device_events=98 with_op=98 (External id never agrees on
  // this trace: it repeats the correlation id).
  CHECK(d.Count("json.kineto_device_ops") == 98);
  HostSummary s = SummarizeHostOps(host, d);
  CheckHostOps(s.host_ops, 359, 43334104000000,
               {{"aten::empty_strided", 26, 29951779000000, 29951779000000},
                {"aten::cudnn_convolution", 10, 11918447000000, 11918447000000},
                {"aten::max_pool2d_with_indices", 6, 833744000000, 833744000000},
                {"aten::uniform_", 17, 487237000000, 487237000000},
                {"aten::copy_", 18, 57807000000, 57807000000}});
  OpMetricsDb tf = DeviceOpsToTfOps(s.device_ops, /*with_idle=*/false);
  const OpMetrics* copy = OpRow(tf, "aten::copy_");
  const OpMetrics* conv = OpRow(tf, "aten::cudnn_convolution");
  const OpMetrics* addmm = OpRow(tf, "aten::addmm");
  REQUIRE(copy);
  REQUIRE(conv);
  REQUIRE(addmm);
  CHECK(copy->category == "aten::copy_");
  CHECK(copy->self_time_ps == 55503000000);
  CHECK(conv->self_time_ps == 5375000000);
  CHECK(addmm->self_time_ps == 2664000000);
  auto kernels = s.kernels.Sorted(0);
  REQUIRE(!kernels.empty());
  CHECK(kernels[0].name == "ampere_sgemm_32x32_sliced1x4_tn");
  CHECK(kernels[0].op_name == "aten::addmm");
  CHECK(kernels[0].params.grid == std::array<uint32_t, 3>{128, 4, 1});
  CHECK(kernels[0].occurrences == 4);
  CHECK(kernels[0].total_ns == 2426000);
  for (const KernelReport& k : kernels) CHECK(!k.op_name.empty());
}

TEST_CASE("PyTorch GPU trace (2021 Kineto): ops and the kernels they launch", "[op_stats][kernels][kineto][corpus]") {
  REQUIRE_CORPUS(path, "kineto/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz");
  Diagnostics d;
  Host host = ReadChromeTraceFile(path, d);
  CHECK(d.Count("json.kineto_framework_ops") == 23640);  // 23646 Operator events but 6 ProfilerStep#N.
  CHECK(d.Count("json.kineto_device_ops") == 9096);      // External id agrees on all 9096.
  HostSummary s = SummarizeHostOps(host, d);
  // 2021 builds wrote record_function scopes as "Operator": they are ops.
  CheckHostOps(s.host_ops, std::nullopt, 967374000000,
               {{"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 6, 415791000000, 272895000000},
                {"aten::add_", 2994, 78125000000, 78125000000},
                {"aten::empty", 4404, 68147000000, 68147000000},
                {"aten::copy_", 588, 52853000000, 52853000000},
                {"aten::cudnn_convolution", 318, 56998000000, 40119000000}});
  OpMetricsDb tf = DeviceOpsToTfOps(s.device_ops, /*with_idle=*/false);
  auto device = tf.Sorted(0, /*with_idle=*/false);
  REQUIRE(device.size() >= 3);
  CHECK(device[0]->name == "aten::cudnn_convolution_backward_weight");
  CHECK(device[0]->self_time_ps == 142461000000);
  CHECK(device[1]->name == "aten::cudnn_convolution_backward_input");
  CHECK(device[1]->self_time_ps == 130967000000);
  CHECK(device[2]->name == "aten::cudnn_convolution");
  CHECK(device[2]->self_time_ps == 126619000000);
  auto kernels = s.kernels.Sorted(0);
  REQUIRE(!kernels.empty());
  CHECK(kernels[0].name.rfind("void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 512,", 0) == 0);
  CHECK(kernels[0].op_name == "aten::cudnn_batch_norm_backward");
  CHECK(kernels[0].occurrences == 96);
  CHECK(kernels[0].total_ns == 20270000);
  CHECK(kernels[2].name.rfind("void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3,", 0) == 0);
  CHECK(kernels[2].op_name == "aten::cudnn_convolution_backward_input");
  CHECK(kernels[2].occurrences == 36);
  CHECK(kernels[2].total_ns == 15154000);
}

// aten::linear holds aten::t and aten::addmm, which ends at the same
// microsecond; addmm launches the kernel; a copy is launched outside any op.
constexpr const char* kNestedTrace = R"json({"traceEvents": [
  {"ph":"M","pid":300,"tid":0,"name":"process_labels","args":{"labels":"CPU"}},
  {"ph":"M","pid":0,"tid":0,"name":"process_labels","args":{"labels":"GPU 0"}},
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":300,"tid":300,"ts":100,"dur":100},
  {"ph":"X","cat":"cpu_op","name":"aten::linear","pid":300,"tid":300,"ts":110,"dur":40},
  {"ph":"X","cat":"cpu_op","name":"aten::t","pid":300,"tid":300,"ts":111,"dur":4},
  {"ph":"X","cat":"cpu_op","name":"aten::addmm","pid":300,"tid":300,"ts":120,"dur":30},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":300,"tid":300,"ts":130,"dur":5,"args":{"correlation":7}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":300,"tid":300,"ts":160,"dur":5,"args":{"correlation":8}},
  {"ph":"X","cat":"kernel","name":"sgemm","pid":0,"tid":"stream 7","ts":140,"dur":20,"args":{"stream":7,"correlation":7,"grid":[4,1,1],"block":[128,1,1]}},
  {"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoH (Device -> Pageable)","pid":0,"tid":"stream 7","ts":170,"dur":3,"args":{"stream":7,"correlation":8}}
]})json";

TEST_CASE("Kineto ops nest by containment, and a kernel's op is the innermost around its launch",
          "[op_stats][kernels][kineto]") {
  Diagnostics d;
  Host host = ReadChromeTraceText(kNestedTrace, "mem.pt.trace.json", d);
  CHECK(d.Count("json.kineto_framework_ops") == 3);           // Not the ProfilerStep.
  CHECK(d.Count("json.kineto_device_ops") == 1);              // The copy has no op...
  CHECK(d.Count("json.kineto_device_ops_by_own_name") == 1);  // ... so it is a row of its own name.
  HostSummary s = SummarizeHostOps(host, d);
  const OpMetrics* linear = OpRow(s.host_ops, "aten::linear");
  const OpMetrics* addmm = OpRow(s.host_ops, "aten::addmm");
  const OpMetrics* t = OpRow(s.host_ops, "aten::t");
  REQUIRE(linear);
  REQUIRE(addmm);  // Ends with its parent: counted all the same.
  REQUIRE(t);
  CHECK(linear->time_ps == 40000000);
  CHECK(linear->self_time_ps == 6000000);
  CHECK(addmm->self_time_ps == 30000000);
  CHECK(t->self_time_ps == 4000000);
  CHECK(s.host_ops.total_time_ps == 40000000);  // The thread's ops span 110..150 us: no IDLE.
  OpMetricsDb tf = DeviceOpsToTfOps(s.device_ops, /*with_idle=*/false);
  const OpMetrics* device = OpRow(tf, "aten::addmm");
  REQUIRE(device);
  CHECK(device->category == "aten::addmm");
  CHECK(device->self_time_ps == 20000000);
  CHECK(OpRow(tf, "aten::linear") == nullptr);
  // Launched inside ProfilerStep#1 only, which is a step, not a scope.
  const OpMetrics* copy = OpRow(tf, "Memcpy DtoH (Device -> Pageable)");
  REQUIRE(copy);
  CHECK(copy->self_time_ps == 3000000);
  auto kernels = s.kernels.Sorted(0);
  REQUIRE(kernels.size() == 1);
  CHECK(kernels[0].op_name == "aten::addmm");
}

TEST_CASE("OpFromStats: a tf_op_type stat types the op and leaves the name as is", "[op_stats]") {
  TfOp framework = OpFromStats("aten::addmm", "aten::addmm");
  CHECK(framework.category == OpCategory::kFramework);
  CHECK(framework.name == "aten::addmm");
  CHECK(framework.type == "aten::addmm");
  TfOp tf = OpFromStats("dense/MatMul:MatMul", "");
  CHECK(tf.category == OpCategory::kTensorFlow);
  CHECK(tf.name == "dense/MatMul");
  CHECK(tf.type == "MatMul");
}
