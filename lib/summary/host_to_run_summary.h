// One host's events → a RunSummary of that host, in one pass: the events
// are grouped at most once (steps need the groups; the op metrics' eager
// marks and the memory profile's steps reuse them), and only the parts the
// caller asks for are computed.
#pragma once

#include "lib/model/model.h"
#include "lib/summary/run_summary.h"

namespace tfprof {

// Throws std::invalid_argument for a bad --step-marker or --steps-between
// (as GroupEvents). The result's HostPartials::read_diagnostics is empty:
// the caller that read the capture fills it.
RunSummary HostToRunSummary(const Host& host, const SummaryOptions& options);

}  // namespace tfprof
