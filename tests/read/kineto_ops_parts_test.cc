// Kineto's op marking on a trace long enough that its passes cut the GPU
// stream line into parts (chrome_trace_kineto_ops.cc: parts of 32,768
// events, on several threads from 65,536 events where the machine has
// them; the census and the correlation count of chrome_trace_conventions.cc:
// parts of 65,536 stats, on one thread at this size): every kernel must be
// named as one serial pass names it, across the parts' edges, whether the
// correlation ids are dense (the bit table) or scattered (the hash map).
// The trace is built in code, so each kernel's expected op is known by
// construction.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "lib/model/xplane_schema.h"
#include "lib/read/chrome_trace_reader.h"

using namespace tfprof;

namespace {

constexpr int64_t kKernels = 80000;
// Kernels [kGpuAnnotated, kGpuAnnotated + 100) run inside a GPU annotation.
constexpr int64_t kGpuAnnotated = 40000;

// Kernel k runs at 1000 + 10k us on stream 7. Its launch, 7 us before:
// k % 4 == 0 inside cpu_op "op_<k % 3>"; 1 inside user_annotation
// "ann_<k % 5>" only; 2 outside any scope; 3: the kernel has no
// correlation at all. The last two are named by the GPU annotation around
// them, else as themselves ("kernel_<k % 2>"). Every 1000th kernel's
// correlation id is also on a call inside "dup_op" on thread 299, the
// host plane's first line and its shortest: the first line's call names
// the kernel, whichever line a thread finished first or took first.
std::string BuildTrace(int64_t (*corr_of)(int64_t)) {
  std::string host, gpu, first_thread;
  for (int64_t k = 0; k < kKernels; ++k) {
    const int64_t t = 1000 + 10 * k;
    const std::string corr = std::to_string(corr_of(k));
    const std::string call = R"(,{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":300,"tid":300,"ts":)" +
                             std::to_string(t - 7) + R"(,"dur":1,"args":{"correlation":)" + corr + "}}";
    switch (k % 4) {
      case 0:
        host += R"(,{"ph":"X","cat":"cpu_op","name":"op_)" + std::to_string(k % 3) + R"(","pid":300,"tid":300,"ts":)" +
                std::to_string(t - 8) + R"(,"dur":4})" + call;
        if (k % 1000 == 0)
          first_thread += R"(,{"ph":"X","cat":"cpu_op","name":"dup_op","pid":300,"tid":299,"ts":)" +
                          std::to_string(t - 9) +
                          R"(,"dur":3},{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel",)" +
                          R"("pid":300,"tid":299,"ts":)" + std::to_string(t - 8) +
                          R"(,"dur":1,"args":{"correlation":)" + corr + "}}";
        break;
      case 1:
        host += R"(,{"ph":"X","cat":"user_annotation","name":"ann_)" + std::to_string(k % 5) +
                R"(","pid":300,"tid":300,"ts":)" + std::to_string(t - 8) + R"(,"dur":4})" + call;
        break;
      case 2: host += call; break;
      default: break;
    }
    gpu += R"(,{"ph":"X","cat":"kernel","name":"kernel_)" + std::to_string(k % 2) +
           R"(","pid":0,"tid":"stream 7","ts":)" + std::to_string(t) + R"(,"dur":5,"args":{"stream":7)" +
           (k % 4 == 3 ? std::string() : R"(,"correlation":)" + corr) + "}}";
  }
  gpu += R"(,{"ph":"X","cat":"gpu_user_annotation","name":"gpu_ann","pid":0,"tid":"stream 7","ts":)" +
         std::to_string(1000 + 10 * kGpuAnnotated - 1) + R"(,"dur":)" + std::to_string(10 * 100) + "}";
  return R"({"traceEvents":[)"
         R"({"ph":"M","pid":300,"tid":0,"name":"process_labels","args":{"labels":"CPU"}},)"
         R"({"ph":"M","pid":0,"tid":0,"name":"process_labels","args":{"labels":"GPU 0"}})" +
         first_thread + host + gpu + "]}";
}

std::string ExpectedOp(int64_t k) {
  switch (k % 4) {
    case 0: return k % 1000 == 0 ? "dup_op" : "op_" + std::to_string(k % 3);
    case 1: return "ann_" + std::to_string(k % 5);
    default: return k >= kGpuAnnotated && k < kGpuAnnotated + 100 ? "gpu_ann" : "kernel_" + std::to_string(k % 2);
  }
}

// The tf_op of each event of /device:GPU:0's stream 7, in order ("" where
// it has none); empty when there is no such line.
std::vector<std::string> StreamOps(const Host& host) {
  std::vector<std::string> ops;
  for (const Plane& p : host.planes) {
    if (host.PlaneName(p) != "/device:GPU:0") continue;
    const auto tf_op = p.FindStatKey(host.strings, "tf_op");
    for (const Line& l : p.lines) {
      if (l.id != 7) continue;
      for (size_t i = 0; i < l.events.size(); ++i) {
        std::string& op = ops.emplace_back();
        for (const Stat& s : l.EventStats(i))
          if (tf_op && s.key() == *tf_op) op = std::string(host.Str(s.AsString()));
      }
    }
  }
  return ops;
}

void CheckMarked(int64_t (*corr_of)(int64_t)) {
  Diagnostics d;
  const Host host = ReadChromeTraceText(BuildTrace(corr_of), "parts.pt.trace.json", d);
  const int64_t quarter = kKernels / 4;
  CHECK(d.Count("json.kineto_framework_ops") == static_cast<uint64_t>(quarter + kKernels / 1000));
  CHECK(d.Count("json.kineto_device_ops") == static_cast<uint64_t>(quarter));
  CHECK(d.Count("json.kineto_device_ops_by_annotation") == static_cast<uint64_t>(quarter));
  CHECK(d.Count("json.kineto_device_ops_by_gpu_annotation") == 50);  // Kinds 2 and 3 of the 100.
  CHECK(d.Count("json.kineto_device_ops_by_own_name") == static_cast<uint64_t>(2 * quarter - 50));
  // Counted over the stat pools in parts (65,536 stats each): the calls of
  // kinds 0-2 and their kernels, and the second calls.
  CHECK(d.Count("json.kineto_correlation") == static_cast<uint64_t>(6 * quarter + kKernels / 1000));
  CHECK(d.Count("json.kineto_gpu_plane") == 1);
  CHECK(d.Count("json.kineto_host_plane") == 1);

  const std::vector<std::string> ops = StreamOps(host);
  REQUIRE(ops.size() == static_cast<size_t>(kKernels));  // The annotation moved to its own line.
  int64_t wrong = 0, first_wrong = -1;
  for (int64_t k = 0; k < kKernels; ++k)
    if (ops[static_cast<size_t>(k)] != ExpectedOp(k) && wrong++ == 0) first_wrong = k;
  INFO("first kernel named wrong: " << first_wrong);
  CHECK(wrong == 0);
}

int64_t DenseCorr(int64_t k) { return 815091 + 3 * k; }
int64_t ScatteredCorr(int64_t k) { return k * 1000003 - 5; }

}  // namespace

TEST_CASE("Kineto ops: a long stream line's kernels named across parts, dense correlation ids", "[kineto][op_stats]") {
  CheckMarked(DenseCorr);
}

TEST_CASE("Kineto ops: a long stream line's kernels named across parts, scattered correlation ids",
          "[kineto][op_stats]") {
  CheckMarked(ScatteredCorr);
}

// Correlation ids at the edges: negative and the largest int64 link (the
// span between them takes IdIndex's hash map), two kernels of one id both
// get its launch's op, and an id written as a string or a fraction links
// nothing on either side (the kernel is named as itself).
TEST_CASE("Kineto ops: negative, huge, repeated and non-integer correlation ids", "[kineto][op_stats]") {
  constexpr const char* kTrace = R"json({"traceEvents": [
  {"ph":"M","pid":300,"tid":0,"name":"process_labels","args":{"labels":"CPU"}},
  {"ph":"M","pid":0,"tid":0,"name":"process_labels","args":{"labels":"GPU 0"}},
  {"ph":"X","cat":"cpu_op","name":"aten::neg","pid":300,"tid":300,"ts":100,"dur":10},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":300,"tid":300,"ts":101,"dur":1,"args":{"correlation":-5}},
  {"ph":"X","cat":"cpu_op","name":"aten::max","pid":300,"tid":300,"ts":120,"dur":10},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":300,"tid":300,"ts":121,"dur":1,"args":{"correlation":9223372036854775807}},
  {"ph":"X","cat":"cpu_op","name":"aten::text","pid":300,"tid":300,"ts":140,"dur":10},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":300,"tid":300,"ts":141,"dur":1,"args":{"correlation":"7"}},
  {"ph":"X","cat":"cpu_op","name":"aten::half","pid":300,"tid":300,"ts":160,"dur":10},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":300,"tid":300,"ts":161,"dur":1,"args":{"correlation":8.5}},
  {"ph":"X","cat":"kernel","name":"k_neg","pid":0,"tid":"stream 7","ts":200,"dur":5,"args":{"stream":7,"correlation":-5}},
  {"ph":"X","cat":"kernel","name":"k_neg_again","pid":0,"tid":"stream 7","ts":210,"dur":5,"args":{"stream":7,"correlation":-5}},
  {"ph":"X","cat":"kernel","name":"k_max","pid":0,"tid":"stream 7","ts":220,"dur":5,"args":{"stream":7,"correlation":9223372036854775807}},
  {"ph":"X","cat":"kernel","name":"k_text","pid":0,"tid":"stream 7","ts":230,"dur":5,"args":{"stream":7,"correlation":"7"}},
  {"ph":"X","cat":"kernel","name":"k_half","pid":0,"tid":"stream 7","ts":240,"dur":5,"args":{"stream":7,"correlation":8.5}}
]})json";
  Diagnostics d;
  const Host host = ReadChromeTraceText(kTrace, "ids.pt.trace.json", d);
  CHECK(d.Count("json.kineto_framework_ops") == 4);
  CHECK(d.Count("json.kineto_device_ops") == 3);
  CHECK(d.Count("json.kineto_device_ops_by_own_name") == 2);
  const std::vector<std::string> ops = StreamOps(host);
  CHECK(ops == std::vector<std::string>{"aten::neg", "aten::neg", "aten::max", "k_text", "k_half"});
}
