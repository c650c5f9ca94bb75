// The run summary's parts <-> their messages in proto/run_summary.proto.
//
// Exact: every field of every part is kept, so whatever a report reads from
// FromProto(ToProto(x)) it reads from x, and the report is byte-identical.
// Canonical: the same part always gives the same message (interned strings
// go out as sorted text, maps in key order, the kernel rows in the order
// KernelStatsDb::Sorted gives), so serialised deterministically
// (SerializeDeterministic below) the same summary gives the same bytes.
//
// FromProto throws InputError without a path for a message that no summary
// gives: an enum value or a string index out of range, a step with more
// event types than we know, an allocation pointing past its timeline. The
// file reader (run_summary_file.h) adds the path.
#pragma once

#include <string>

#include "lib/model/diagnostics.h"
#include "lib/summary/host_summary.h"
#include "lib/summary/memory_events_to_profile.h"
#include "lib/summary/planes_to_step_db.h"
#include "lib/summary/tf_data_events_to_pipelines.h"
#include "proto/run_summary.pb.h"

namespace tfprof {

void ToProto(const RunEnvironment& in, summary::RunEnvironment* out);
RunEnvironment FromProto(const summary::RunEnvironment& in);

void ToProto(const OpMetricsDb& in, summary::OpMetricsDb* out);
OpMetricsDb FromProto(const summary::OpMetricsDb& in);

void ToProto(const KernelStatsDb& in, summary::KernelStatsDb* out);
KernelStatsDb FromProto(const summary::KernelStatsDb& in);

void ToProto(const HostSummary& in, summary::HostSummary* out);
HostSummary FromProto(const summary::HostSummary& in);

void ToProto(const StepDb& in, summary::StepDb* out);
StepDb FromProto(const summary::StepDb& in);

void ToProto(const HostMemoryProfile& in, summary::HostMemoryProfile* out);
HostMemoryProfile FromProto(const summary::HostMemoryProfile& in);

void ToProto(const TfDataHost& in, summary::TfDataHost* out);
TfDataHost FromProto(const summary::TfDataHost& in);

void ToProto(const Diagnostics& in, summary::Diagnostics* out);
Diagnostics FromProto(const summary::Diagnostics& in);

// The message's bytes with map entries in key order, so equal messages give
// equal bytes (protobuf's default order of map entries is unspecified).
std::string SerializeDeterministic(const google::protobuf::MessageLite& message);

}  // namespace tfprof
