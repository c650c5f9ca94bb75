// `advise`: every rule on a real capture where it must fire and on one
// where it must not (testdata's H100 captures made for these rules, and the
// corpus), the numbers the findings quote, the CI gates of `check`, and a
// PyTorch trace built here whose every number is known by construction.
#include <catch2/catch.hpp>
#include <cctype>
#include <filesystem>
#include <map>
#include <string>

#include "fmt/format.h"
#include "lib/advise/finding.h"
#include "nlohmann/json.hpp"
#include "tests/support/corpus.h"
#include "tests/support/files.h"
#include "tests/support/run_tool.h"
#include "tests/support/skip.h"
#include "tests/support/xspace_builder.h"

namespace fs = std::filesystem;
using tfprof::testing::RunTool;
using tfprof::testing::SourcePath;

namespace {

struct AdviceResult {
  int exit_code = -1;
  std::map<std::string, std::string> status, detail;  // By rule.
  std::map<std::string, nlohmann::json> findings;     // By id.
  std::vector<std::string> order;                     // Finding ids, as ranked.
  nlohmann::json doc;
};

AdviceResult Advise(const std::string& path, const std::string& extra = "") {
  const tfprof::testing::ToolResult r = RunTool("advise -f json " + extra + " '" + path + "'");
  AdviceResult out;
  out.exit_code = r.exit_code;
  if (r.exit_code != 0) {
    INFO(r.err);
    return out;
  }
  out.doc = nlohmann::json::parse(r.out);
  for (const auto& row : out.doc.at("tables").at("checks")) {
    out.status[row.at("rule")] = row.at("status");
    out.detail[row.at("rule")] = row.at("detail");
  }
  for (const auto& row : out.doc.at("tables").at("findings")) {
    out.findings[row.at("id")] = row;
    out.order.push_back(row.at("id"));
  }
  return out;
}

std::string Capture(const std::string& name) { return SourcePath("testdata/captures/" + name); }

const char* kT4 = "e4040-2023fall-assign2-hd2551/logs/fit/20231107-184716/train";
const char* kTfGpuWorker = "tfprofiler_demo/plugins/profile/GPU-multi-worker/34.83.195.180_6003.xplane.pb";

// A PyTorch trace (host process 4242; GPU n's events have pid n, as
// Kineto writes them) with three 10 ms steps, each: the DataLoader loads the
// batch (in the main process or from workers) for `loader_us`, a
// host-to-device copy of `copy_us` from pageable or pinned memory, one 3 ms
// matmul kernel, then, when asked, an NCCL AllReduce kernel and a
// device-to-host copy. Every number the advisor quotes follows from these.
struct Synthetic {
  int loader_us = 4000;
  bool workers = false;
  bool pinned = false;
  int copy_us = 600;
  int allreduce_us = 0;
  int d2h_us = 0;
  int second_gpu_us = 0;  // A kernel this long on GPU 1 too (DataParallel-style, one process).
};

std::string SyntheticTrace(const Synthetic& c) {
  std::string events;
  auto add = [&](const std::string& e) { events += (events.empty() ? "" : ",\n") + e; };
  auto launch = [&](const char* api, int ts, int correlation) {
    add(fmt::format(
        R"({{"ph":"X","cat":"cuda_runtime","name":"{}","pid":4242,"tid":4242,"ts":{},"dur":20,"args":{{"correlation":{}}}}})",
        api, ts, correlation));
  };
  for (int s = 0; s < 3; ++s) {
    const int t0 = s * 10000;
    add(fmt::format(
        R"({{"ph":"X","cat":"user_annotation","name":"ProfilerStep#{}","pid":4242,"tid":4242,"ts":{},"dur":10000}})",
        s + 1, t0));
    add(fmt::format(
        R"({{"ph":"X","cat":"user_annotation","name":"enumerate(DataLoader)#_{}DataLoaderIter.__next__","pid":4242,"tid":4242,"ts":{},"dur":{}}})",
        c.workers ? "MultiProcessing" : "SingleProcess", t0 + 100, c.loader_us));
    add(fmt::format(R"({{"ph":"X","cat":"cpu_op","name":"aten::copy_","pid":4242,"tid":4242,"ts":{},"dur":700}})",
                    t0 + 4150));
    launch("cudaMemcpyAsync", t0 + 4200, 10 + s);
    add(fmt::format(
        R"J({{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD ({} -> Device)","pid":0,"tid":7,"ts":{},"dur":{},"args":{{"device":0,"stream":7,"correlation":{}}}}})J",
        c.pinned ? "Pinned" : "Pageable", t0 + 4250, c.copy_us, 10 + s));
    add(fmt::format(R"({{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":4242,"tid":4242,"ts":{},"dur":200}})",
                    t0 + 5000));
    launch("cudaLaunchKernel", t0 + 5050, 100 + s);
    add(fmt::format(
        R"({{"ph":"X","cat":"kernel","name":"sm90_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize64x64x8","pid":0,"tid":7,"ts":{},"dur":3000,"args":{{"device":0,"stream":7,"correlation":{},"grid":[1,1,1],"block":[128,1,1],"registers per thread":64,"shared memory":0}}}})",
        t0 + 5100, 100 + s));
    if (c.allreduce_us) {
      launch("cudaLaunchKernel", t0 + 5100, 200 + s);
      add(fmt::format(
          R"J({{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)","pid":0,"tid":7,"ts":{},"dur":{},"args":{{"device":0,"stream":7,"correlation":{},"grid":[1,1,1],"block":[512,1,1],"registers per thread":96,"shared memory":0}}}})J",
          t0 + 8200, c.allreduce_us, 200 + s));
    }
    if (c.second_gpu_us) {
      launch("cudaLaunchKernel", t0 + 5080, 400 + s);
      add(fmt::format(
          R"J({{"ph":"X","cat":"kernel","name":"sm90_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize64x64x8","pid":1,"tid":7,"ts":{},"dur":{},"args":{{"device":1,"stream":7,"correlation":{},"grid":[1,1,1],"block":[128,1,1],"registers per thread":64,"shared memory":0}}}})J",
          t0 + 5100, c.second_gpu_us, 400 + s));
    }
    if (c.d2h_us) {
      launch("cudaMemcpyAsync", t0 + 8150, 300 + s);
      add(fmt::format(
          R"J({{"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoH (Device -> Pageable)","pid":0,"tid":7,"ts":{},"dur":{},"args":{{"device":0,"stream":7,"correlation":{}}}}})J",
          t0 + 8200 + c.allreduce_us, c.d2h_us, 300 + s));
    }
  }
  return R"({"schemaVersion":1,"deviceProperties":[{"id":0,"name":"NVIDIA H100","totalGlobalMem":85000000000,)"
         R"("computeMajor":9,"computeMinor":0,"numSms":132}],"traceEvents":[)" +
         events + "]}";
}

std::string WriteTrace(const std::string& name, const std::string& json) {
  const fs::path dir = fs::path(tfprof::testing::TempDir()) / "advise";
  fs::create_directories(dir);
  const fs::path path = dir / (name + ".pt.trace.json");
  tfprof::testing::WriteFile(path, json);
  return path.string();
}

}  // namespace

TEST_CASE("advise: a trace built here, every number known by construction", "[advise][cli]") {
  const AdviceResult a = Advise(WriteTrace("single_pageable", SyntheticTrace({})));
  REQUIRE(a.exit_code == 0);
  CHECK(a.doc["statements"][0] == "run single_pageable.pt.trace.json · PyTorch checklist");
  // Input: the 4 ms DataLoader wait plus the 0.6 ms copy, of 10 ms steps.
  REQUIRE(a.findings.count("input_bound"));
  CHECK(a.findings.at("input_bound")["ms_per_step"].get<double>() == Approx(4.6));
  CHECK(a.findings.at("input_bound")["severity"] == "high");
  REQUIRE(a.findings.count("dataloader_workers"));
  CHECK(a.findings.at("dataloader_workers")["ms_per_step"].get<double>() == Approx(4.0));
  CHECK(a.findings.at("dataloader_workers")["step_percent"].get<double>() == Approx(40.0));
  REQUIRE(a.findings.count("pin_memory"));
  CHECK(a.findings.at("pin_memory")["ms_per_step"].get<double>() == Approx(0.6));
  CHECK(a.findings.at("pin_memory")["severity"] == "medium");  // 6% of the step: medium from 5%.
  CHECK(a.findings.at("pin_memory")["evidence"].get<std::string>().find("pageable host-to-device copies: 3 [advise]") !=
        std::string::npos);
  CHECK(a.order == std::vector<std::string>{"input_bound", "dataloader_workers", "pin_memory"});
  CHECK(a.status.at("step_gaps") == "passed");  // Steps follow each other.
  CHECK(a.status.at("memory_near_capacity") == "undecided");
  CHECK(a.status.at("multi_gpu_imbalance") == "not applicable");
  // PyTorch's set: no TensorFlow-only rule is listed.
  CHECK(a.status.count("tf_data_stage") == 0);
  CHECK(a.status.count("eager_execution") == 0);
  CHECK(a.status.size() == 13);

  // Workers and pinned memory: both rules pass, saying what they saw.
  const AdviceResult b = Advise(WriteTrace("workers_pinned", SyntheticTrace({.workers = true, .pinned = true})));
  REQUIRE(b.exit_code == 0);
  CHECK(b.status.at("dataloader_workers") == "passed");
  CHECK(b.detail.at("dataloader_workers") == "the DataLoader uses worker processes (3 batches)");
  CHECK(b.status.at("pin_memory") == "passed");
  CHECK(b.detail.at("pin_memory") == "all 3 host-to-device copies read pinned memory");

  // A short main-process load: under dataloader_workers.min_percent (5%).
  const AdviceResult c = Advise(WriteTrace("short_loader", SyntheticTrace({.loader_us = 300, .pinned = true})));
  REQUIRE(c.exit_code == 0);
  CHECK(c.status.at("dataloader_workers") == "passed");
  CHECK(c.detail.at("dataloader_workers") ==
        "the main-process DataLoader takes 3.0% of the step time (fires from 5.0%)");
}

TEST_CASE("advise: allreduce_time and memcpy_heavy on a trace built here", "[advise][cli]") {
  // 1.5 ms of AllReduce and 1.2 ms of device-to-host copy per 10 ms step.
  const AdviceResult a = Advise(WriteTrace(
      "collectives", SyntheticTrace({.workers = true, .pinned = true, .allreduce_us = 1500, .d2h_us = 1200})));
  REQUIRE(a.exit_code == 0);
  REQUIRE(a.findings.count("allreduce_time"));
  CHECK(a.findings.at("allreduce_time")["ms_per_step"].get<double>() == Approx(1.5));
  CHECK(a.findings.at("allreduce_time")["severity"] == "medium");
  REQUIRE(a.findings.count("memcpy_heavy"));
  // Host to device 0.6 ms + device to host 1.2 ms.
  CHECK(a.findings.at("memcpy_heavy")["ms_per_step"].get<double>() == Approx(1.8));
  CHECK(a.findings.at("memcpy_heavy")["evidence"].get<std::string>().find(
            "device to host (output) per step: 1.200 ms") != std::string::npos);
  // Without them both pass, with their measured shares.
  const AdviceResult b = Advise(WriteTrace("no_collectives", SyntheticTrace({.workers = true, .pinned = true})));
  REQUIRE(b.exit_code == 0);
  CHECK(b.status.at("allreduce_time") == "not applicable");
  CHECK(b.status.at("memcpy_heavy") == "passed");
  CHECK(b.detail.at("memcpy_heavy") == "copies take 6.0% of the step time (fires from 10.0%)");
}

TEST_CASE("advise: multi_gpu_imbalance compares the GPUs of one host", "[advise][cli]") {
  // GPU 0 runs a 3 ms kernel and the 0.6 ms copy per step, GPU 1 a 1 ms
  // kernel: 10.8 and 3 ms in all, median 6.9 ms, so GPU 0 is 3.9 ms over it
  // (over 10%); balanced, both would run the mean, 6.9 ms:
  // (10.8 - 6.9) / 3 steps = 1.3 ms per step at stake.
  const AdviceResult a =
      Advise(WriteTrace("two_gpus", SyntheticTrace({.workers = true, .pinned = true, .second_gpu_us = 1000})));
  REQUIRE(a.exit_code == 0);
  REQUIRE(a.findings.count("multi_gpu_imbalance"));
  const nlohmann::json& f = a.findings.at("multi_gpu_imbalance");
  CHECK(f["ms_per_step"].get<double>() == Approx(1.3));
  CHECK(f["summary"].get<std::string>().find("GPU 0 works 3.900 ms more than the median GPU") != std::string::npos);
  CHECK(f["evidence"].get<std::string>().find("GPU 1 busy time (kernels, whole profile): 3.000 ms [op-stats]") !=
        std::string::npos);
  // Near even (10.8 and 9 ms: 0.9 ms over the median 9.9, under 10%): passes.
  const AdviceResult even =
      Advise(WriteTrace("two_even_gpus", SyntheticTrace({.workers = true, .pinned = true, .second_gpu_us = 3000})));
  REQUIRE(even.exit_code == 0);
  CHECK(even.status.at("multi_gpu_imbalance") == "passed");
  CHECK(even.detail.at("multi_gpu_imbalance").find("2 GPUs of one host evenly busy") == 0);
}

TEST_CASE("advise: thresholds are settable, and wrong ones are usage errors", "[advise][cli]") {
  const std::string path = WriteTrace("thresholds", SyntheticTrace({}));
  const AdviceResult a =
      Advise(path, "--threshold dataloader_workers.min_percent=41 --threshold pin_memory.min_percent=7");
  REQUIRE(a.exit_code == 0);
  CHECK(a.status.at("dataloader_workers") == "passed");
  CHECK(a.status.at("pin_memory") == "passed");
  CHECK(a.status.at("input_bound") == "fired");
  bool listed = false;
  for (const auto& row : a.doc["tables"]["thresholds"])
    if (row["name"] == "pin_memory.min_percent") {
      listed = true;
      CHECK(row["value"].get<double>() == 7);
      CHECK(row["default"].get<double>() == 1);
    }
  CHECK(listed);

  tfprof::testing::ToolResult r = RunTool("advise --threshold no_such.threshold=3 '" + path + "'");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("no threshold named 'no_such.threshold'") != std::string::npos);
  r = RunTool("advise --threshold input_bound.min_percent=lots '" + path + "'");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("'lots' is not a number") != std::string::npos);
}

TEST_CASE("advise: input_bound, dataloader_workers fire on the main-process DataLoader capture", "[advise][cli]") {
  const AdviceResult a = Advise(Capture("torch_gpu_dataloader_bound"));
  REQUIRE(a.exit_code == 0);
  CHECK(a.status.at("input_bound") == "fired");
  CHECK(a.findings.at("input_bound")["step_percent"].get<double>() == Approx(79.802).margin(0.001));
  CHECK(a.status.at("dataloader_workers") == "fired");
  // Three `enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__`
  // events in the raw trace (zcat | grep -c).
  CHECK(a.findings.at("dataloader_workers")["evidence"].get<std::string>().find(
            "batches loaded in the main process: 3 (") != std::string::npos);
  // Six pageable copies, too short to matter at this step time.
  CHECK(a.status.at("pin_memory") == "passed");
  CHECK(a.detail.at("pin_memory").find("6 pageable host-to-device copies take 0.0%") == 0);
  CHECK(a.status.at("cuda_graphs") == "passed");    // Kernel launch 1.7%.
  CHECK(a.status.at("torch_compile") == "passed");  // Element-wise 10.7% of kernel time.
  CHECK(a.status.at("small_kernels") == "passed");  // All small, but 0.5% of the step at stake.
  CHECK(a.order.front() == "dataloader_workers");   // Same time as input_bound: by id.

  const AdviceResult amp = Advise(Capture("torch_gpu_amp"));
  REQUIRE(amp.exit_code == 0);
  CHECK(amp.status.at("input_bound") == "passed");
  CHECK(amp.status.at("dataloader_workers") == "undecided");  // The loop iterates no DataLoader.
  CHECK(amp.status.at("amp") == "passed");                    // 3.3% eligible but off Tensor Cores.
  CHECK(amp.status.at("tf32") == "passed");
  CHECK(amp.status.at("memory_near_capacity") == "passed");
  CHECK(amp.detail.at("memory_near_capacity").find("(0.2%; fires from 85.0%)") != std::string::npos);
}

TEST_CASE("advise: cuda_graphs, small_kernels, torch_compile fire on the launch-bound capture", "[advise][cli]") {
  const AdviceResult a = Advise(Capture("torch_gpu_launch_bound"));
  REQUIRE(a.exit_code == 0);
  REQUIRE(a.findings.count("cuda_graphs"));
  CHECK(a.findings.at("cuda_graphs")["step_percent"].get<double>() == Approx(29.440).margin(0.001));
  CHECK(a.findings.at("cuda_graphs")["severity"] == "high");
  REQUIRE(a.findings.count("small_kernels"));
  // 1,803 kernels in 3 steps (kineto_gpu_facts.py), all under 10 us:
  // 601 per step x 5 us.
  CHECK(a.findings.at("small_kernels")["summary"].get<std::string>().find("1803 of 1803 kernel launches") == 0);
  CHECK(a.findings.at("small_kernels")["ms_per_step"].get<double>() == Approx(1803.0 / 3 * 0.005));
  CHECK(a.status.at("torch_compile") == "fired");
  CHECK(a.order.front() == "cuda_graphs");
  CHECK(a.status.at("input_bound") == "passed");
}

TEST_CASE("advise: amp, tf32, memory_near_capacity fire on the near-capacity H100 capture", "[advise][cli]") {
  const AdviceResult a = Advise(Capture("torch_gpu_memory_near_capacity"));
  REQUIRE(a.exit_code == 0);
  REQUIRE(a.findings.count("memory_near_capacity"));
  const nlohmann::json& m = a.findings.at("memory_near_capacity");
  CHECK(m["severity"] == "medium");
  CHECK(m["ms_per_step"].is_null());
  // 76.6 of 85.0 GB reserved (the capture's facts: expected_facts.json).
  CHECK(m["summary"].get<std::string>().find("cuda:0 peaks at 76.64 GB of 85.02 GB (90.1%)") == 0);
  CHECK(a.status.at("amp") == "fired");
  CHECK(a.status.at("tf32") == "fired");
  CHECK(a.findings.at("tf32")["summary"].get<std::string>().find("compute capability 9.0") != std::string::npos);
  // Over memory_near_capacity.high_percent the risk is high.
  const AdviceResult high =
      Advise(Capture("torch_gpu_memory_near_capacity"), "--threshold memory_near_capacity.high_percent=90");
  REQUIRE(high.exit_code == 0);
  CHECK(high.findings.at("memory_near_capacity")["severity"] == "high");
  CHECK(high.order.front() == "memory_near_capacity");
}

TEST_CASE("advise: memory_near_capacity reads a ROCm device's allocator (hip:0)", "[advise][cli][corpus]") {
  // An MI300X VF trace: PyTorch names its memory hip:0, which the rule
  // left out as no GPU's ("undecided") until session 45. Peak reserved 2.36
  // GiB (memory: hip:0 peak reserved 2.36 GiB, 2.53 GB) of 205571227648
  // bytes (deviceProperties' totalGlobalMem, listed as device 0 while the
  // kernels run on device 2: json.kineto_unlisted_gpu).
  REQUIRE_CORPUS(path, "tracelens/mi300/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz");
  const AdviceResult a = Advise(path);
  REQUIRE(a.exit_code == 0);
  CHECK(a.status.at("memory_near_capacity") == "passed");
  CHECK(a.detail.at("memory_near_capacity").find("peak 2.53 GB of 205.57 GB on") == 0);
  CHECK(a.detail.at("memory_near_capacity").find("hip:0 (1.2%; fires from 85.0%)") != std::string::npos);
  // TF32 is Nvidia's: an MI300X's compute capability 9.4 is no Ampere.
  CHECK(a.status.at("tf32") == "not applicable");
}

TEST_CASE("advise: multi_gpu_imbalance fires on the DDP run with a straggler, not on two even hosts", "[advise][cli]") {
  const AdviceResult a = Advise(Capture("torch_gpu_ddp"));
  REQUIRE(a.exit_code == 0);
  REQUIRE(a.findings.count("multi_gpu_imbalance"));
  const nlohmann::json& f = a.findings.at("multi_gpu_imbalance");
  CHECK(f["summary"].get<std::string>().find("1 of 4 hosts straggle; the slowest, rank2,") == 0);
  CHECK(f["ms_per_step"].get<double>() == Approx(20.308).margin(0.001));  // hosts' late_ms of rank2.
  CHECK(a.status.at("pin_memory") == "passed");                           // 32 pinned copies.
  CHECK(a.detail.at("pin_memory") == "all 32 host-to-device copies read pinned memory");
  CHECK(a.status.at("allreduce_time") == "undecided");  // gloo: collectives on the host are not measured.

  const AdviceResult two = Advise(Capture("tf_two_hosts"));
  REQUIRE(two.exit_code == 0);
  CHECK(two.status.at("multi_gpu_imbalance") == "passed");
  CHECK(two.status.at("step_gaps") == "fired");  // 20 ms between 2.5 ms steps: Keras' per-step Python.
  CHECK(two.findings.at("step_gaps")["ms_per_step"].get<double>() == Approx(20.150).margin(0.001));
}

TEST_CASE("advise: the tf.data rules on the input-bound capture and its prefetching twin", "[advise][cli]") {
  const AdviceResult a = Advise(Capture("tf_input_bound"));
  REQUIRE(a.exit_code == 0);
  CHECK(a.doc["statements"][0].get<std::string>().find("TensorFlow checklist") != std::string::npos);
  CHECK(a.status.at("input_bound") == "fired");
  CHECK(a.findings.at("input_bound")["step_percent"].get<double>() == Approx(53.794).margin(0.001));
  CHECK(a.status.at("tf_data_stage") == "fired");
  CHECK(a.findings.at("tf_data_stage")["summary"].get<std::string>().find("tf.data's slowest stage is MapAndBatch") ==
        0);
  CHECK(a.status.at("kernel_launch_bound") == "not applicable");  // CPU only.

  const AdviceResult p = Advise(Capture("tf_prefetch"));
  REQUIRE(p.exit_code == 0);
  CHECK(p.status.at("input_bound") == "passed");
  CHECK(p.status.at("tf_data_stage") == "passed");
  CHECK(p.findings.empty());

  // TF1 timelines: steps are separate session.runs.
  const AdviceResult t = Advise(Capture("tf1_timeline"));
  REQUIRE(t.exit_code == 0);
  CHECK(t.status.at("step_gaps") == "undecided");
  // No steps at all: the step rules say so.
  const AdviceResult n = Advise(Capture("tf_no_steps"));
  REQUIRE(n.exit_code == 0);
  CHECK(n.status.at("input_bound") == "undecided");
  CHECK(n.detail.at("input_bound").find("no steps to measure against") == 0);
}

TEST_CASE("advise: JAX runs get JAX's remedies and no TensorFlow-only rule", "[advise][cli]") {
  const AdviceResult a = Advise(Capture("jax_gpu"));
  REQUIRE(a.exit_code == 0);
  CHECK(a.doc["statements"][0].get<std::string>().find("JAX checklist") != std::string::npos);
  CHECK(a.status.at("xla_fusion") == "passed");  // Already XLA.
  CHECK(a.status.at("host_ops_on_gpu_run") == "not applicable");
  CHECK(a.status.at("eager_execution") == "not applicable");
  REQUIRE(a.findings.count("kernel_launch_bound"));
  CHECK(a.findings.at("kernel_launch_bound")["advice"].get<std::string>().find("jax.jit") != std::string::npos);
}

TEST_CASE("advise: TensorFlow GPU rules on corpus captures", "[advise][cli][corpus]") {
  REQUIRE_CORPUS(t4, kT4);
  const AdviceResult a = Advise(t4);
  REQUIRE(a.exit_code == 0);
  // FP32 convolutions on a T4 (the corpus run's kernels).
  CHECK(a.status.at("mixed_precision") == "fired");
  CHECK(a.findings.at("mixed_precision")["summary"].get<std::string>().find("37.7% of the GPU's kernel time") !=
        std::string::npos);
  CHECK(a.status.at("tf32") == "not applicable");  // Compute capability 7.5.
  CHECK(a.status.at("eager_execution") == "fired");
  CHECK(a.status.at("kernel_launch_bound") == "passed");  // 2.5%.
  CHECK(a.status.at("host_thread_contention") == "passed");
  CHECK(a.status.at("xla_fusion") == "passed");  // 15.8% element-wise.
  CHECK(a.status.at("host_ops_on_gpu_run") == "passed");
  CHECK(a.status.at("memcpy_heavy") == "passed");
  CHECK(a.status.at("small_kernels") == "passed");
  CHECK(a.detail.at("small_kernels").find("But only 0.625 ms per step is at stake") != std::string::npos);
  CHECK(a.status.at("memory_near_capacity") == "passed");

  REQUIRE_CORPUS(worker, kTfGpuWorker);
  const AdviceResult w = Advise(worker);
  REQUIRE(w.exit_code == 0);
  CHECK(w.status.at("kernel_launch_bound") == "fired");
  CHECK(w.findings.at("kernel_launch_bound")["step_percent"].get<double>() == Approx(16.733).margin(0.001));
  CHECK(w.status.at("host_thread_contention") == "fired");  // With tf.data on the host.
  CHECK(w.findings.at("host_thread_contention")["advice"].get<std::string>().find("TF_GPU_THREAD_MODE=gpu_private") ==
        4);
  CHECK(w.status.at("xla_fusion") == "fired");
  CHECK(w.status.at("input_bound") == "fired");

  // 8 GPU planes, 2 of them running kernels: the 6 idle ones are a risk,
  // not an imbalance among the 2 in use (14.996 and 15.074 ms).
  REQUIRE_CORPUS(eight, "tfprofiler_demo/plugins/profile/GPU-multi-worker");
  const AdviceResult g = Advise(eight);
  REQUIRE(g.exit_code == 0);
  REQUIRE(g.findings.count("multi_gpu_imbalance"));
  CHECK(g.findings.at("multi_gpu_imbalance")["severity"] == "low");
  CHECK(g.findings.at("multi_gpu_imbalance")["summary"].get<std::string>().find(
            "6 of the 8 GPUs the profiler saw on this host ran no kernels") == 0);

  REQUIRE_CORPUS(tf1, "tf1_timelines/dlprof/mnist_xla/timeline.ctf.json");
  const AdviceResult m = Advise(tf1);
  REQUIRE(m.exit_code == 0);
  // The GPU executor's ops run on the GPU: their host time is the launch
  // (until session 45 host compute, 48.4375% of the step, so
  // host_ops_on_gpu_run told the user to move GPU ops to the GPU). Kernel
  // launch 0.888 of 1.856 ms, host compute (the CPU executor's) 0.6%: the
  // two add up to the old share.
  CHECK(m.status.at("host_ops_on_gpu_run") == "passed");
  REQUIRE(m.findings.count("kernel_launch_bound"));
  CHECK(m.findings.at("kernel_launch_bound")["step_percent"].get<double>() ==
        Approx(100.0 * 0.888 / 1.856).epsilon(1e-3));
  // 27 launches a step: 33 us each, launch overhead.
  CHECK(m.findings.at("kernel_launch_bound")["summary"].get<std::string>().find("The GPU waits for kernel launches") ==
        0);
  // One session.run whose GPU ops spent 688 ms on the host for 7 launches
  // (cuRAND and cuBLAS set up on first use): not launch overhead.
  REQUIRE_CORPUS(setup, "tf1_timelines/blackbox-attacks/timeline_01.json");
  const AdviceResult b = Advise(setup);
  REQUIRE(b.findings.count("kernel_launch_bound"));
  CHECK(b.findings.at("kernel_launch_bound")["summary"].get<std::string>().find(
            "per kernel launched: far more than launching takes") != std::string::npos);
  CHECK(b.status.at("host_ops_on_gpu_run") == "passed");
}

TEST_CASE("advise: PyTorch rules on corpus traces", "[advise][cli][corpus]") {
  REQUIRE_CORPUS(resnet, "kineto/samples/resnet50_profiler_api_num_workers_4/worker0.pt.trace.json.gz");
  const AdviceResult a = Advise(resnet);
  REQUIRE(a.exit_code == 0);
  CHECK(a.status.at("dataloader_workers") == "passed");  // num_workers=4.
  // 12 "Memcpy HtoD (Pageable -> Device)" events in the raw trace.
  CHECK(a.status.at("pin_memory") == "fired");
  CHECK(a.findings.at("pin_memory")["summary"].get<std::string>().find("12 host-to-device copies read pageable") == 0);

  REQUIRE_CORPUS(nccl, "hta/negative_queue_length_values_check/rank0.json.gz");
  const AdviceResult n = Advise(nccl);
  REQUIRE(n.exit_code == 0);
  CHECK(n.status.at("allreduce_time") == "fired");
  CHECK(n.findings.at("allreduce_time")["step_percent"].get<double>() == Approx(14.962).margin(0.001));
  CHECK(n.findings.at("allreduce_time")["evidence"].get<std::string>().find("achieved bandwidth: not checked") !=
        std::string::npos);

  REQUIRE_CORPUS(copies, "hta/trace_diff/test/test.json.gz");
  const AdviceResult c = Advise(copies);
  REQUIRE(c.exit_code == 0);
  CHECK(c.status.at("memcpy_heavy") == "fired");
  CHECK(c.findings.at("memcpy_heavy")["ms_per_step"].get<double>() == Approx(16.901).margin(0.001));
}

TEST_CASE("advise: a run summary advises as its capture does", "[advise][cli][summary]") {
  const fs::path dir = fs::path(tfprof::testing::TempDir()) / "advise_summary";
  fs::create_directories(dir);
  for (const char* capture : {"torch_gpu_dataloader_bound", "torch_gpu_ddp", "tf_input_bound"}) {
    const std::string sum = (dir / (std::string(capture) + ".tfsum")).string();
    REQUIRE(RunTool("summarize '" + Capture(capture) + "' -o '" + sum + "'").exit_code == 0);
    const tfprof::testing::ToolResult from_capture = RunTool("advise -f json '" + Capture(capture) + "'");
    const tfprof::testing::ToolResult from_summary = RunTool("advise -f json '" + sum + "'");
    INFO(capture);
    REQUIRE(from_capture.exit_code == 0);
    CHECK(from_summary.exit_code == 0);
    nlohmann::json a = nlohmann::json::parse(from_capture.out), b = nlohmann::json::parse(from_summary.out);
    CHECK(a["tables"] == b["tables"]);
    CHECK(a["statements"] == b["statements"]);
  }
}

TEST_CASE("check --no-finding and --max-findings gate on the advisor", "[advise][cli][check]") {
  const std::string ddp = Capture("torch_gpu_ddp");
  tfprof::testing::ToolResult r = RunTool(
      "check -f json --no-finding multi_gpu_imbalance --no-finding tf_data_stage --max-findings high '" + ddp + "'");
  CHECK(r.exit_code == 5);
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  std::map<std::string, std::string> status;
  for (const auto& row : doc["tables"]["checks"]) status[row["rule"]] = row["status"];
  CHECK(status.at("no finding multi_gpu_imbalance") == "FAIL");
  CHECK(status.at("no finding tf_data_stage") == "pass");  // Not in PyTorch's set.
  CHECK(status.at("findings at or above high <= 0") == "FAIL");

  // One high finding allowed: passes; undecided rules follow --missing.
  r = RunTool("check --max-findings high=1 --no-finding memory_near_capacity --missing skip '" + ddp + "'");
  CHECK(r.exit_code == 0);
  r = RunTool("check --no-finding memory_near_capacity '" + ddp + "'");
  CHECK(r.exit_code == 5);
  CHECK(r.err.find("could not decide: no GPU memory profile") != std::string::npos);

  r = RunTool("check --no-finding no_such_rule '" + ddp + "'");
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "tfprof-analyze: error: --no-finding: no advisor rule named 'no_such_rule' (docs/advise.md lists "
        "them)\n");
  r = RunTool("check --max-findings severe '" + ddp + "'");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("'severe' is not a severity (low, medium or high)") != std::string::npos);
}

TEST_CASE("docs/advise.md states every threshold with its default", "[advise][docs]") {
  const std::string docs = tfprof::testing::Slurp(SourcePath("docs/advise.md"));
  for (const tfprof::ThresholdDef& t : tfprof::ThresholdCatalogue()) {
    INFO(t.name);
    const std::string quoted = "`" + std::string(t.name) + "`";
    REQUIRE(docs.find(quoted) != std::string::npos);
    // Somewhere the default follows the name: "`input_bound.min_percent` 5"
    // or "`severity.high_percent` (20%)".
    const std::string value = fmt::format("{:g}", t.value);
    bool stated = false;
    for (size_t at = docs.find(quoted); at != std::string::npos; at = docs.find(quoted, at + 1))
      for (const std::string& lead : {std::string(" "), std::string(" (")}) {
        const size_t v = at + quoted.size() + lead.size();
        stated = stated || (docs.compare(at + quoted.size(), lead.size(), lead) == 0 &&
                            docs.compare(v, value.size(), value) == 0 && v + value.size() < docs.size() &&
                            !std::isdigit(static_cast<unsigned char>(docs[v + value.size()])));
      }
    CHECK(stated);
  }
  for (const tfprof::RuleDef& r : tfprof::RuleCatalogue()) {
    INFO(r.id);
    CHECK(docs.find("`" + std::string(r.id) + "`") != std::string::npos);
  }
}

TEST_CASE("diff names the findings a change resolved or brought", "[advise][cli][diff]") {
  const tfprof::testing::ToolResult r =
      RunTool("diff -f json '" + Capture("tf_input_bound") + "' '" + Capture("tf_prefetch") + "'");
  REQUIRE(r.exit_code == 0);
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  bool line = false;
  for (const auto& s : doc["statements"])
    line = line || s == "findings: 0 new, 2 resolved (input_bound, tf_data_stage), 0 worse, 0 better";
  CHECK(line);
  const auto& rows = doc["tables"]["findings"];
  REQUIRE(rows.size() == 2);
  CHECK(rows[0]["id"] == "input_bound");
  CHECK(rows[0]["change"] == "resolved");
  CHECK(rows[0]["base_severity"] == "high");
  CHECK(rows[0]["new_severity"].is_null());
  CHECK(rows[0]["base_ms_per_step"].get<double>() == Approx(6.972).margin(0.001));
  // The other way round: both are new.
  const tfprof::testing::ToolResult back =
      RunTool("diff -f csv --table findings '" + Capture("tf_prefetch") + "' '" + Capture("tf_input_bound") + "'");
  REQUIRE(back.exit_code == 0);
  CHECK(back.out.find("input_bound,new,,high,,6.972,") != std::string::npos);
  // report BASE NEW shows the same in its "what changed" section.
  const fs::path dir = fs::path(tfprof::testing::TempDir()) / "advise_report";
  fs::create_directories(dir);
  const std::string page = (dir / "diff.html").string();
  REQUIRE(RunTool("report '" + Capture("tf_input_bound") + "' '" + Capture("tf_prefetch") + "' -o '" + page + "'")
              .exit_code == 0);
  const std::string html = tfprof::testing::Slurp(page);
  CHECK(html.find("findings: 0 new, 2 resolved (input_bound, tf_data_stage), 0 worse, 0 better") != std::string::npos);
}

TEST_CASE("advise: findings order by severity, then time at stake, then id", "[advise]") {
  using tfprof::Finding;
  using tfprof::FindingSeverity;
  Finding high_small{.id = "b", .severity = FindingSeverity::kHigh, .ms_per_step = 1.0};
  Finding high_big{.id = "c", .severity = FindingSeverity::kHigh, .ms_per_step = 5.0};
  Finding high_risk{.id = "a", .severity = FindingSeverity::kHigh};
  Finding medium{.id = "a", .severity = FindingSeverity::kMedium, .ms_per_step = 50.0};
  CHECK(tfprof::FindingBefore(high_big, high_small));
  CHECK(tfprof::FindingBefore(high_small, high_risk));  // A time before no time.
  CHECK(tfprof::FindingBefore(high_risk, medium));
  CHECK_FALSE(tfprof::FindingBefore(medium, high_small));
  Finding tie = high_small;
  tie.id = "z";
  CHECK(tfprof::FindingBefore(high_small, tie));
  tfprof::AdviseOptions o;
  CHECK(o.Get("input_bound.min_percent") == 5);
  CHECK(o.Get("kernel_launch.min_percent") == 3);
  CHECK(o.Get("memory_near_capacity.min_percent") == 85);
  o.Set("input_bound.min_percent=7.5");
  CHECK(o.Get("input_bound.min_percent") == 7.5);
  CHECK_THROWS_AS(o.Set("input_bound.min_percent"), std::invalid_argument);
  CHECK_THROWS_AS(o.Set("input_bound.min_percent=-1"), std::invalid_argument);
  CHECK_THROWS_AS(o.Set("input_bound.min_percent=nan"), std::invalid_argument);
}
