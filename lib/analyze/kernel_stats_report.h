// `kernel-stats`: one row per (kernel, launch parameters, op), or one row
// per op with --by op.
#pragma once

#include <string>

#include "lib/report/report.h"
#include "lib/summary/host_summary.h"

namespace tfprof {

struct KernelStatsOptions {
  size_t top = 0;            // Rows (0: all the reference keeps, 1000).
  std::string op_regex;      // Keep kernels whose op name matches (search, not full match).
  std::string kernel_regex;  // Keep kernels whose name matches.
  bool by_op = false;        // Per-op summary instead of per kernel.
};

// Throws std::invalid_argument for a bad regex; InputError(kExitUnavailable)
// is the caller's to raise when the capture has no kernels (see
// NoKernelsReason).
Report BuildKernelStatsReport(const HostSummary& summary, const KernelStatsOptions& options);

// Why a capture has no GPU kernels, in one sentence, or "" when it has some.
std::string NoKernelsReason(const HostSummary& summary);

}  // namespace tfprof
