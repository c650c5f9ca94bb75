// Reads one discovered capture file with the reader for its format.
#pragma once

#include "lib/model/diagnostics.h"
#include "lib/model/model.h"
#include "lib/read/capture_discovery.h"
#include "lib/read/read_options.h"

namespace tfprof {

// The host is named after the capture file (<host>.xplane.pb), like the
// TensorFlow Profiler names hosts in a run; a PyTorch trace that says its
// rank (distributedInfo.rank) is named "rank<N>" (kineto_rank.h).
Host LoadCapture(const CaptureFile& file, Diagnostics& diagnostics, const ReadOptions& options = {});

}  // namespace tfprof
