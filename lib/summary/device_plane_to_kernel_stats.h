// GPU kernel stats: one report per unique (kernel, launch parameters, op)
// combination, from the device events that carry `kernel_details`.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/model/model.h"
#include "lib/summary/analysis_options.h"
#include "lib/summary/pytorch_kernel_rules.h"

namespace tfprof {

struct KernelLaunchParams {
  uint32_t registers_per_thread = 0;
  uint32_t static_shmem_bytes = 0;
  uint32_t dynamic_shmem_bytes = 0;
  std::array<uint32_t, 3> block{1, 1, 1};
  std::array<uint32_t, 3> grid{1, 1, 1};
  double occupancy_pct = 0;  // 0 when the capture doesn't record it.
  // A Kineto kernel without `est. achieved occupancy %` (ROCm, graph
  // replays): shown empty, not 0. TensorFlow's kernel details without
  // occ_pct read 0, as the reference shows them.
  bool occupancy_unknown = false;
};

// "regs:N static_shared:N dynamic_shared:N grid:x,y,z block:x,y,z occ_pct:F";
// unknown or malformed parts are ignored (older captures wrote `shm:`,
// which the reference does not read either).
// `xprof_compat` ignores `shm:` as the reference does.
KernelLaunchParams ParseKernelDetails(std::string_view details, bool xprof_compat = false);

// Tensor Core heuristics of the reference: kernel names that contain a
// Tensor Core instruction pattern, and op names of op types that can use them.
bool IsKernelUsingTensorCore(std::string_view kernel_name);
bool IsOpTensorCoreEligible(std::string_view op_name);
bool IsEinsumTensorCoreEligible(std::string_view equation);

// A Kineto (PyTorch) trace's GPU process: its events carry launch
// parameters as `grid` / `block` args.
bool IsKinetoGpuPlane(const Host& host, const Plane& plane);

struct KernelReport {
  std::string name;
  KernelLaunchParams params;
  bool uses_tensor_core = false;
  bool op_tensor_core_eligible = false;
  std::string op_name;  // The TF op that launched it ("" when unannotated).
  // Kineto kernels only (TensorFlow's kernel stats have no such column):
  // the narrowest data type its name or its op's input types name.
  ComputePrecision precision = ComputePrecision::kUnknown;
  uint64_t occurrences = 0;
  uint64_t total_ns = 0, min_ns = 0, max_ns = 0;
};

class KernelStatsDb {
 public:
  // Adds every kernel of a GPU plane. Kernels of all planes of one host share
  // rows (the same kernel on GPU 0 and GPU 1 is one row).
  // With xprof compatibility: op names from `tf_op` only, `shm:` ignored.
  // Reads TensorFlow/JAX captures (`kernel_details`) and PyTorch/Kineto
  // Chrome traces (`cat: kernel` events, their `grid`, `block`, `registers
  // per thread`, `shared memory` args when present; their Tensor Core use,
  // op eligibility and precision from pytorch_kernel_rules.h).
  void AddPlane(const Host& host, const Plane& plane, const AnalysisOptions& options = {});
  // Appends another host's rows unmerged, as the reference combines hosts.
  void AppendHost(const KernelStatsDb& other);
  // Appends one row as it is (a stored database read back row by row).
  void AppendReport(KernelReport report) { reports_.push_back(std::move(report)); }
  // Sorted by total duration, descending, ties by the key; at most 1000 rows
  // as the reference keeps (0: all).
  std::vector<KernelReport> Sorted(size_t limit = 1000) const;
  size_t size() const { return reports_.size(); }
  bool empty() const { return reports_.empty(); }
  uint64_t kernel_events = 0;  // Kernel events seen (before merging into rows).

 private:
  std::vector<KernelReport> reports_;
};

}  // namespace tfprof
