// Kineto names a process for every GPU of the machine and lists them all in
// deviceProperties; a GPU the program never ran on is not a device.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "lib/model/xplane_schema.h"
#include "lib/read/chrome_trace_reader.h"
#include "tests/support/corpus.h"
#include "tests/support/skip.h"

using namespace tfprof;

TEST_CASE("Idle Kineto GPU processes are not devices (MI210, GPU-only trace)", "[json][kineto][corpus]") {
  // From the raw JSON: deviceProperties lists ids 0..3 (AMD Instinct MI210);
  // processes 0..15 are named "python3" and labelled "GPU <n>", but only
  // pid 1 has events (562 kernels); the host is pid 44077.
  REQUIRE_CORPUS(path, "tracelens/mi210/gpu_only_trace/gpu_only_trace.json.gz");
  Diagnostics diag;
  Host host = ReadChromeTraceFile(path, diag);
  std::vector<std::string> with_device;
  for (const Plane& p : host.planes)
    if (!p.device.empty()) with_device.push_back(std::string(host.PlaneName(p)));
  CHECK(with_device == std::vector<std::string>{"/device:GPU:1"});
  CHECK(diag.Count("json.kineto_idle_gpu") == 3);  // Ids 0, 2, 3: in deviceProperties, without events.
  const Plane* gpu = host.FindPlane("/device:GPU:1");
  REQUIRE(gpu);
  CHECK(gpu->device.name == "AMD Instinct MI210");
}

TEST_CASE("An idle GPU process keeps no device description", "[json][kineto]") {
  const std::string json = R"({"deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "computeMajor": 9,
      "computeMinor": 0, "numSms": 132}, {"id": 1, "name": "NVIDIA H100 80GB HBM3", "computeMajor": 9,
      "computeMinor": 0, "numSms": 132}],
    "traceEvents": [
    {"ph":"M","name":"process_name","pid":7,"tid":0,"args":{"name":"python3"}},
    {"ph":"M","name":"process_labels","pid":7,"tid":0,"args":{"labels":"CPU"}},
    {"ph":"M","name":"process_name","pid":0,"tid":0,"args":{"name":"python3"}},
    {"ph":"M","name":"process_labels","pid":0,"tid":0,"args":{"labels":"GPU 0"}},
    {"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"python3"}},
    {"ph":"M","name":"process_labels","pid":1,"tid":0,"args":{"labels":"GPU 1"}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":7,"tid":7,"ts":1,"dur":1,"args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":3,"dur":2,"args":{"correlation":1,"device":0,"stream":7}}
  ]})";
  Diagnostics diag;
  Host host = ReadChromeTraceText(json, "idle.json", diag);
  size_t devices = 0;
  for (const Plane& p : host.planes) devices += !p.device.empty();
  CHECK(devices == 1);
  REQUIRE(host.FindPlane("/device:GPU:0"));
  CHECK(host.FindPlane("/device:GPU:0")->device.core_count == 132);
  CHECK(host.FindPlane("/device:GPU:1") == nullptr);
  CHECK(diag.Count("json.kineto_idle_gpu") == 1);
}

TEST_CASE("A GPU deviceProperties lists under another number takes the machine's one model", "[json][kineto]") {
  // Inside a container Kineto lists the visible GPU as id 0 while the
  // kernels name the machine's device 2 (the corpus's MI300X VF Qwen trace);
  // pid 0, "GPU 0", holds only stray Python events: no device.
  auto trace = [](const std::string& properties) {
    return R"({"deviceProperties": [)" + properties + R"(],
    "traceEvents": [
    {"ph":"M","name":"process_labels","pid":23232,"tid":0,"args":{"labels":"CPU"}},
    {"ph":"M","name":"process_labels","pid":0,"tid":0,"args":{"labels":"GPU 0"}},
    {"ph":"M","name":"process_labels","pid":2,"tid":0,"args":{"labels":"GPU 2"}},
    {"ph":"X","cat":"python_function","name":"f","pid":0,"tid":5,"ts":1,"dur":1},
    {"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":23232,"tid":7,"ts":1,"dur":1,"args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"k","pid":2,"tid":0,"ts":3,"dur":2,"args":{"correlation":1,"device":2,"stream":0}}
  ]})";
  };
  const std::string mi300 = R"({"id": 0, "name": "AMD Instinct MI300X VF", "computeMajor": 9, "computeMinor": 4,
      "totalGlobalMem": 205571227648, "numSms": 304})";
  Diagnostics diag;
  Host host = ReadChromeTraceText(trace(mi300), "rank0.json", diag);
  std::vector<std::string> with_device;
  for (const Plane& p : host.planes)
    if (!p.device.empty()) with_device.push_back(std::string(host.PlaneName(p)));
  CHECK(with_device == std::vector<std::string>{"/device:GPU:2"});
  CHECK(host.FindPlane("/device:GPU:2")->device.memory_bytes == 205571227648);
  CHECK(diag.Count("json.kineto_unlisted_gpu") == 1);
  CHECK(diag.Count("json.kineto_idle_gpu") == 1);  // Pid 0: Python events, no kernel.

  // Two models listed: which one ran is unknown, so none is taken.
  Diagnostics two;
  Host mixed = ReadChromeTraceText(
      trace(mi300 + R"(, {"id": 1, "name": "AMD Instinct MI210", "computeMajor": 9, "computeMinor": 0})"), "rank0.json",
      two);
  REQUIRE(mixed.FindPlane("/device:GPU:2"));
  CHECK(mixed.FindPlane("/device:GPU:2")->device.empty());
  CHECK(two.Count("json.kineto_unlisted_gpu") == 0);
}
