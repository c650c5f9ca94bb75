// Host side of the TensorFlow Stats: every TF / JAX / tf.data op the host
// threads ran, with self time by nesting on each thread, and one IDLE row
// per thread for the time between ops.
#pragma once

#include <vector>

#include "lib/model/diagnostics.h"
#include "lib/model/model.h"
#include "lib/summary/analysis_options.h"
#include "lib/summary/op_metrics_db.h"

namespace tfprof {

// `plane` is the host's /host:CPU plane. `eager`: the plane's eager marks
// per line and event (EventGroups::eager), or null; an is_eager stat the
// capture carries wins over the mark.
OpMetricsDb HostPlaneToOpMetrics(const Host& host, const Plane& plane, Diagnostics& diagnostics,
                                 const AnalysisOptions& options = {},
                                 const std::vector<std::vector<bool>>* eager = nullptr);

}  // namespace tfprof
