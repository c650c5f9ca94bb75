// The catalogue of diagnostic kinds: every kind a reader, summary or
// command counts is declared here once, with its stable id, its severity
// and what it means. Call sites name a kind by its constant
// (diag_kind::kXplaneUnsortedLine), so a misspelt kind does not compile, and
// tests/model/diagnostic_kinds_test.cc keeps docs/info.md's table of kinds
// equal to this list.
#pragma once

#include <span>
#include <string_view>

#include "lib/model/diagnostics.h"

namespace tfprof {

struct DiagnosticKind {
  std::string_view id;  // Stable machine-readable key ("json.unmatched_end"): JSON output and docs use it.
  Severity severity;
  std::string_view meaning;  // What it means, for people: the message shown unless the call site words it.
};

namespace diag_kind {
// One constant per kind, ordered by id. Adding one: declare it here, define
// it in diagnostic_kinds.cc, list it in DiagnosticCatalogue() and add its
// row to docs/info.md ("Diagnostics").
extern const DiagnosticKind kGroupingKernelWithoutLaunch;         // grouping.kernel_without_launch
extern const DiagnosticKind kInputDuplicateHostFile;              // input.duplicate_host_file
extern const DiagnosticKind kInputDuplicateRank;                  // input.duplicate_rank
extern const DiagnosticKind kInputSkippedFile;                    // input.skipped_file
extern const DiagnosticKind kJsonAsyncUnclosedBegin;              // json.async_unclosed_begin
extern const DiagnosticKind kJsonAsyncUnmatchedEnd;               // json.async_unmatched_end
extern const DiagnosticKind kJsonBadFieldType;                    // json.bad_field_type
extern const DiagnosticKind kJsonEndArgsIgnored;                  // json.end_args_ignored
extern const DiagnosticKind kJsonFlowEvents;                      // json.flow_events
extern const DiagnosticKind kJsonInvalidUtf8;                     // json.invalid_utf8
extern const DiagnosticKind kJsonKinetoCorrelation;               // json.kineto_correlation
extern const DiagnosticKind kJsonTfprofExport;                    // json.tfprof_export
extern const DiagnosticKind kJsonKinetoDeviceAnnotations;         // json.kineto_device_annotations
extern const DiagnosticKind kJsonKinetoDeviceOps;                 // json.kineto_device_ops
extern const DiagnosticKind kJsonKinetoDeviceOpsByAnnotation;     // json.kineto_device_ops_by_annotation
extern const DiagnosticKind kJsonKinetoDeviceOpsByGpuAnnotation;  // json.kineto_device_ops_by_gpu_annotation
extern const DiagnosticKind kJsonKinetoDeviceOpsByOwnName;        // json.kineto_device_ops_by_own_name
extern const DiagnosticKind kJsonKinetoFrameworkOps;              // json.kineto_framework_ops
extern const DiagnosticKind kJsonKinetoGpuPlane;                  // json.kineto_gpu_plane
extern const DiagnosticKind kJsonKinetoHostPlane;                 // json.kineto_host_plane
extern const DiagnosticKind kJsonKinetoHostPidShared;             // json.kineto_host_pid_shared
extern const DiagnosticKind kJsonKinetoUnlistedGpu;               // json.kineto_unlisted_gpu
extern const DiagnosticKind kJsonKinetoIdleGpu;                   // json.kineto_idle_gpu
extern const DiagnosticKind kJsonKinetoLaunchDims;                // json.kineto_launch_dims
extern const DiagnosticKind kJsonKinetoMemcpyNames;               // json.kineto_memcpy_names
extern const DiagnosticKind kJsonKinetoOpInputTypes;              // json.kineto_op_input_types
extern const DiagnosticKind kJsonLineTooLarge;                    // json.line_too_large
extern const DiagnosticKind kJsonMissingDuration;                 // json.missing_duration
extern const DiagnosticKind kJsonMissingPhase;                    // json.missing_phase
extern const DiagnosticKind kJsonMissingPid;                      // json.missing_pid
extern const DiagnosticKind kJsonMissingTid;                      // json.missing_tid
extern const DiagnosticKind kJsonMissingTs;                       // json.missing_ts
extern const DiagnosticKind kJsonNegativeDuration;                // json.negative_duration
extern const DiagnosticKind kJsonNonObjectEvent;                  // json.non_object_event
extern const DiagnosticKind kJsonNullArg;                         // json.null_arg
extern const DiagnosticKind kJsonNumberOutOfRange;                // json.number_out_of_range
extern const DiagnosticKind kJsonObjectEvents;                    // json.object_events
extern const DiagnosticKind kJsonOtherMetadata;                   // json.other_metadata
extern const DiagnosticKind kJsonPyTorchLegacyDeviceRanges;       // json.pytorch_legacy_device_ranges
extern const DiagnosticKind kJsonPyTorchLegacyOps;                // json.pytorch_legacy_ops
extern const DiagnosticKind kJsonTf1DuplicateEvents;              // json.tf1_duplicate_events
extern const DiagnosticKind kJsonTf1OpCopies;                     // json.tf1_op_copies
extern const DiagnosticKind kJsonTf1TensorLifetimes;              // json.tf1_tensor_lifetimes
extern const DiagnosticKind kJsonTf1IncompleteTensors;            // json.tf1_incomplete_tensors
extern const DiagnosticKind kJsonTf1Timeline;                     // json.tf1_timeline
extern const DiagnosticKind kJsonTfLevel0FromAnnotation;          // json.tf_level0_from_annotation
extern const DiagnosticKind kJsonTfLongName;                      // json.tf_long_name
extern const DiagnosticKind kJsonTfStringInts;                    // json.tf_string_ints
extern const DiagnosticKind kJsonTfZeroLength;                    // json.tf_zero_length
extern const DiagnosticKind kJsonTimeOutOfRange;                  // json.time_out_of_range
extern const DiagnosticKind kJsonTooDeep;                         // json.too_deep
extern const DiagnosticKind kJsonTooManyStatNames;                // json.too_many_stat_names
extern const DiagnosticKind kJsonUnclosedBegin;                   // json.unclosed_begin
extern const DiagnosticKind kJsonUnknownPhase;                    // json.unknown_phase
extern const DiagnosticKind kJsonUnknownProducer;                 // json.unknown_producer
extern const DiagnosticKind kJsonUnmatchedEnd;                    // json.unmatched_end
extern const DiagnosticKind kJsonUnsortedLine;                    // json.unsorted_line
extern const DiagnosticKind kJsonUnsupportedPhase;                // json.unsupported_phase
extern const DiagnosticKind kJsonUnterminatedArray;               // json.unterminated_array
extern const DiagnosticKind kMemoryAddressReusedWithoutFree;      // memory.address_reused_without_free
extern const DiagnosticKind kMemoryLineStartsDiffer;              // memory.line_starts_differ
extern const DiagnosticKind kMemoryMissingStats;                  // memory.missing_stats
extern const DiagnosticKind kMemoryNegativeSize;                  // memory.negative_size
extern const DiagnosticKind kMemoryPytorchRunningTotal;           // memory.pytorch_running_total
extern const DiagnosticKind kMemoryUnmatchedDeallocation;         // memory.unmatched_deallocation
extern const DiagnosticKind kOpStatsHostOpNotClosed;              // op_stats.host_op_not_closed
extern const DiagnosticKind kOpStatsSpanCut;                      // op_stats.span_cut
extern const DiagnosticKind kOpStatsXlaCommandBuffer;             // op_stats.xla_command_buffer
extern const DiagnosticKind kOpStatsXlaDeviceOpsSkipped;          // op_stats.xla_device_ops_skipped
extern const DiagnosticKind kOpStatsXlaHostOps;                   // op_stats.xla_host_ops
extern const DiagnosticKind kOpStatsXlaOps;                       // op_stats.xla_ops
extern const DiagnosticKind kReadMaxEventsReached;                // read.max_events_reached
extern const DiagnosticKind kStepsDroppedIncomplete;              // steps.dropped_incomplete
extern const DiagnosticKind kStepsProfilerStepMarker;             // steps.profiler_step_marker
extern const DiagnosticKind kTfdataSharedProducer;                // tfdata.shared_producer
extern const DiagnosticKind kTfdataUnmatchedConsume;              // tfdata.unmatched_consume
extern const DiagnosticKind kTfdataWalkLimit;                     // tfdata.walk_limit
extern const DiagnosticKind kXplaneAggregatedEvent;               // xplane.aggregated_event
extern const DiagnosticKind kXplaneEventTimeOutOfRange;           // xplane.event_time_out_of_range
extern const DiagnosticKind kXplaneLineTimeOutOfRange;            // xplane.line_time_out_of_range
extern const DiagnosticKind kXplaneNegativeDuration;              // xplane.negative_duration
extern const DiagnosticKind kXplanePlaneStatWithoutMetadata;      // xplane.plane_stat_without_metadata
extern const DiagnosticKind kXplaneStatWithoutValue;              // xplane.stat_without_value
extern const DiagnosticKind kXplaneUnknownField;                  // xplane.unknown_field
extern const DiagnosticKind kXplaneUnsortedLine;                  // xplane.unsorted_line
}  // namespace diag_kind

// Every kind above, ordered by id.
std::span<const DiagnosticKind* const> DiagnosticCatalogue();

// The kind with this id; nullptr when none has it.
const DiagnosticKind* FindDiagnosticKind(std::string_view id);

}  // namespace tfprof
