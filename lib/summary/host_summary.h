// The per-host intermediate every report reads (the reference's OpStats):
// op metrics for host and device, GPU kernel stats, the run environment.
// Hosts combine summary + summary, never raw events, so a many-host run
// needs memory for one host's events at a time.
#pragma once

#include <string>
#include <vector>

#include "lib/model/diagnostics.h"
#include "lib/model/model.h"
#include "lib/summary/analysis_options.h"
#include "lib/summary/device_plane_to_kernel_stats.h"
#include "lib/summary/event_grouping.h"
#include "lib/summary/op_metrics_db.h"
#include "lib/summary/pytorch_runtime_facts.h"

namespace tfprof {

struct RunEnvironment {
  std::vector<std::string> hosts;  // Host names (capture files), in the order read.
  // Distinct machine names the captures record (XSpace.hostnames); two
  // processes on one machine are two hosts above but one here, which is
  // what the reference's host count counts.
  std::vector<std::string> hostnames;
  std::string device_type = "CPU";            // e.g. "Nvidia GPU (Turing)".
  DeviceProperties first_device;              // Properties of the first GPU plane.
  int device_core_count = 0;                  // GPU planes (devices) over all hosts.
  Framework framework = Framework::kUnknown;  // The first host's that says (Host::framework).
  // TPU planes (/device:TPU:<n>) over all hosts: no analysis reads them, so
  // reports say so rather than call the run CPU-only.
  int tpu_count = 0;
  // GPUs a trace lists (Kineto's deviceProperties) on hosts with no GPU
  // plane: the GPU activity was not traced (activities without CUDA), so
  // reports say so rather than call the run CPU-only. The most of one host.
  int untraced_gpus = 0;
  bool pytorch() const { return framework == Framework::kPyTorch; }
  bool has_device() const { return device_core_count > 0; }
};

struct HostSummary {
  RunEnvironment env;
  OpMetricsDb host_ops;    // Host TF ops, with one IDLE row.
  OpMetricsDb device_ops;  // Device activities per (TF op, kernel), with IDLE.
  KernelStatsDb kernels;
  uint64_t device_events = 0;  // Events on GPU planes' non-derived lines.
  bool has_host_plane = false;
  PyTorchRuntimeFacts pytorch;  // DataLoader, copies, CUDA graphs: PyTorch traces only.
  // Each GPU's busy time (its device ops' self time, idle excluded), one
  // per device plane in the order read, hosts one after another: the
  // advisor compares the GPUs of one host (multi_gpu_imbalance).
  std::vector<uint64_t> device_busy_ps;
};

// `eager`: the host's eager marks from GroupEvents when the caller groups
// anyway (one pass over the forest); null: marked here (MarkEagerEvents).
HostSummary SummarizeHostOps(const Host& host, Diagnostics& diagnostics, const AnalysisOptions& options = {},
                             const EventBits* eager = nullptr);

// Which sides of a host's op metrics to make (the environment and the
// device event count are made either way).
struct OpMetricsSides {
  bool host_threads = true;  // The host-thread op metrics (SummaryPart::kHostOps).
  bool devices = true;       // The device op metrics and busy times (SummaryPart::kKernels).
};

// What making them met: all of it in plane order, and the same by side, so
// that a command showing one side reports what that side met alone
// (PartDiagnostics).
struct OpMetricsDiagnostics {
  Diagnostics all, host_threads, devices;
};

// The two independent halves of SummarizeHostOps, which HostToRunSummary
// runs on two threads: everything but the kernels (op metrics, environment,
// device event count; needs the eager marks) and the kernels alone.
// Without `sides.host_threads` (kernel-stats) no host-thread event is read;
// without `sides.devices` (input-pipeline) only the devices' event counts.
// `mark_threads`: how many threads may build the forest when the eager
// marks are made here (eager null).
HostSummary SummarizeHostOpMetrics(const Host& host, OpMetricsDiagnostics& diagnostics, const AnalysisOptions& options,
                                   const EventBits* eager, OpMetricsSides sides = {}, size_t mark_threads = 1);
KernelStatsDb HostKernelStats(const Host& host, const AnalysisOptions& options);

// Adds `other` (another host of the same run) into `into`.
void CombineHostSummaries(HostSummary& into, const HostSummary& other);

// "Nvidia GPU (Volta)" and so on, from the compute capability.
std::string GpuModelName(const DeviceProperties& device);

}  // namespace tfprof
