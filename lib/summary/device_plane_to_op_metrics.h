// Device side of the TensorFlow Stats: every GPU activity (kernel, memcpy)
// annotated with the TF op that launched it, then rolled up to TF-op level.
#pragma once

#include <vector>

#include "lib/model/diagnostics.h"
#include "lib/model/model.h"
#include "lib/summary/analysis_options.h"
#include "lib/summary/op_metrics_db.h"

namespace tfprof {

// One row per (TF op, kernel) pair named "<op name>/<kernel name>", from the
// events' `tf_op` stats; IDLE is the plane's span minus the kernels' time.
// Events of XLA ops (`hlo_op`, JAX) are one row per HLO op
// (XlaDeviceOpsBuilder); with --compat xprof / tf-legacy they are left out,
// as the references do without the HLO protos, and counted in the
// diagnostics.
// `eager`: the plane's eager marks (EventGroups::eager), or null; an
// is_eager stat the capture carries wins over the mark. A row is eager as
// its first kernel was.
OpMetricsDb DevicePlaneToOpMetrics(const Host& host, const Plane& plane, Diagnostics& diagnostics,
                                   const AnalysisOptions& options = {},
                                   const std::vector<std::vector<bool>>* eager = nullptr);

// Rolls device rows up to their TF op: occurrences are the most any of the
// op's kernels ran, times add up. Without idle, the total is the ops' time.
OpMetricsDb DeviceOpsToTfOps(const OpMetricsDb& device_ops, bool with_idle, const AnalysisOptions& options = {});

}  // namespace tfprof
