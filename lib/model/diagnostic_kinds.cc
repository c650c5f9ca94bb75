#include "lib/model/diagnostic_kinds.h"

#include <algorithm>

namespace tfprof {
namespace diag_kind {

const DiagnosticKind kGroupingKernelWithoutLaunch{
    "grouping.kernel_without_launch", Severity::kInfo,
    "device events whose launch (same correlation_id) is not on the host plane; they get the step of the device "
    "events before them"};
const DiagnosticKind kInputDuplicateHostFile{
    "input.duplicate_host_file", Severity::kWarning,
    "host files that are byte-identical copies of another host's file were read once"};
const DiagnosticKind kInputDuplicateRank{
    "input.duplicate_rank", Severity::kWarning,
    "traces that name the same PyTorch rank; the later ones keep their file's name"};
const DiagnosticKind kInputSkippedFile{"input.skipped_file", Severity::kWarning,
                                       "entries named like captures that are not readable files were skipped"};
const DiagnosticKind kJsonAsyncUnclosedBegin{"json.async_unclosed_begin", Severity::kWarning,
                                             "async b events never closed by an e event were dropped"};
const DiagnosticKind kJsonAsyncUnmatchedEnd{
    "json.async_unmatched_end", Severity::kWarning,
    "async e events with no open b event (same pid, cat, id and name) were dropped"};
const DiagnosticKind kJsonBadFieldType{
    "json.bad_field_type", Severity::kWarning,
    "event fields of an unexpected type were ignored (the event was dropped when it needed the field)"};
const DiagnosticKind kJsonEndArgsIgnored{"json.end_args_ignored", Severity::kInfo,
                                         "args on E events were not kept (only the B event's args are)"};
const DiagnosticKind kJsonFlowEvents{
    "json.flow_events", Severity::kInfo,
    "flow events (ph s/t/f) were counted, not read; bind_id/flow_in/flow_out on events are kept as stats"};
const DiagnosticKind kJsonInvalidUtf8{"json.invalid_utf8", Severity::kWarning,
                                      "invalid UTF-8 bytes were replaced by '?'"};
const DiagnosticKind kJsonKinetoCorrelation{
    "json.kineto_correlation", Severity::kInfo,
    "Kineto `correlation` args read as the correlation_id stat, linking runtime calls to their kernels and copies"};
const DiagnosticKind kJsonTfprofExport{
    "json.tfprof_export", Severity::kInfo,
    "a trace `tfprof-analyze trace` wrote: read as it is, without the TensorFlow and Kineto conventions (its "
    "events already follow the XPlane's)"};
const DiagnosticKind kJsonKinetoDeviceAnnotations{
    "json.kineto_device_annotations", Severity::kInfo,
    "Kineto GPU-side annotations and waits (gpu_user_annotation, cuda_sync) moved to a derived line of their device "
    "plane: they are not device activity"};
const DiagnosticKind kJsonKinetoDeviceOps{
    "json.kineto_device_ops", Severity::kInfo,
    "Kineto kernels, memcpys and memsets given the op that launched them (tf_op, tf_op_type: the innermost cpu_op "
    "around the runtime call with the same correlation_id)"};
const DiagnosticKind kJsonKinetoDeviceOpsByAnnotation{
    "json.kineto_device_ops_by_annotation", Severity::kInfo,
    "Kineto kernels, memcpys and memsets launched outside any op, counted under the user_annotation (record_function "
    "scope) around their runtime call"};
const DiagnosticKind kJsonKinetoDeviceOpsByGpuAnnotation{
    "json.kineto_device_ops_by_gpu_annotation", Severity::kInfo,
    "Kineto kernels, memcpys and memsets with neither, counted under the gpu_user_annotation of their device around "
    "them"};
const DiagnosticKind kJsonKinetoDeviceOpsByOwnName{
    "json.kineto_device_ops_by_own_name", Severity::kInfo,
    "Kineto kernels, memcpys and memsets outside any op or annotation (C++ extensions, communication kernels), "
    "counted as rows of their own name"};
const DiagnosticKind kJsonKinetoFrameworkOps{"json.kineto_framework_ops", Severity::kInfo,
                                             "Kineto cpu_op events read as framework ops (stats tf_op and tf_op_type: "
                                             "name and type are the op, e.g. aten::addmm), "
                                             "so op stats count them as TF ops"};
const DiagnosticKind kJsonKinetoGpuPlane{
    "json.kineto_gpu_plane", Severity::kInfo,
    "Kineto GPU processes read as device planes /device:GPU:<n> (n: the device index), one line per stream"};
const DiagnosticKind kJsonKinetoHostPlane{
    "json.kineto_host_plane", Severity::kInfo,
    "Kineto CPU processes read as (merged into) the host plane /host:CPU, their threads kept apart; the plane stat "
    "process_name keeps their names"};
const DiagnosticKind kJsonKinetoHostPidShared{
    "json.kineto_host_pid_shared", Severity::kInfo,
    "a host process labelled CPU has the pid Kineto gives GPU <n>'s process (pid n; a process in a container is "
    "pid 1): it stays the host, and the events of GPU <n> it holds, if any, are that GPU's plane"};
const DiagnosticKind kJsonKinetoUnlistedGpu{
    "json.kineto_unlisted_gpu", Severity::kInfo,
    "GPUs deviceProperties does not list under their number (inside a container Kineto lists the visible devices "
    "from 0, kernels name the machine's number) described as the listed ones, all one model"};
const DiagnosticKind kJsonKinetoIdleGpu{
    "json.kineto_idle_gpu", Severity::kInfo,
    "Kineto GPU processes without a single event (GPUs of the machine the program did not use) are not devices: "
    "their deviceProperties entry was not attached"};
const DiagnosticKind kJsonKinetoLaunchDims{
    "json.kineto_launch_dims", Severity::kInfo,
    "kernels given the grid and block of their launch (same correlation_id), where the trace has them only on the "
    "launch (ROCm)"};
const DiagnosticKind kJsonKinetoMemcpyNames{
    "json.kineto_memcpy_names", Severity::kInfo,
    "Kineto memcpy/memset events named as the XPlane names them (MEMCPYHtoD, ..., MEMSET; the Kineto name is the "
    "display name), so copies count as copies, not compute"};
const DiagnosticKind kJsonKinetoOpInputTypes{
    "json.kineto_op_input_types", Severity::kInfo,
    "Kineto device events given their op's `Input type` (record_shapes=True) as op_input_types, data type evidence "
    "for device compute precision"};
const DiagnosticKind kJsonLineTooLarge{"json.line_too_large", Severity::kError,
                                       "events beyond 4 billion args on one thread were dropped"};
const DiagnosticKind kJsonMissingDuration{"json.missing_duration", Severity::kWarning,
                                          "X events without a dur were read with duration 0"};
const DiagnosticKind kJsonMissingPhase{"json.missing_phase", Severity::kWarning, "events without a ph were dropped"};
const DiagnosticKind kJsonMissingPid{"json.missing_pid", Severity::kInfo, "events without a pid were placed on pid 0"};
const DiagnosticKind kJsonMissingTid{"json.missing_tid", Severity::kInfo,
                                     "events without a tid were placed on tid 0 of their process"};
const DiagnosticKind kJsonMissingTs{"json.missing_ts", Severity::kWarning, "events without a ts were dropped"};
const DiagnosticKind kJsonNegativeDuration{"json.negative_duration", Severity::kWarning,
                                           "events with a negative duration were clamped to 0"};
const DiagnosticKind kJsonNonObjectEvent{"json.non_object_event", Severity::kWarning,
                                         "traceEvents elements that are not objects were dropped"};
const DiagnosticKind kJsonNullArg{"json.null_arg", Severity::kInfo, "args whose value is null were not kept"};
const DiagnosticKind kJsonNumberOutOfRange{
    "json.number_out_of_range", Severity::kWarning,
    "numbers beyond a double's range (such as 1e400) were read as the largest double of their sign (a pid or tid: "
    "as its text)"};
const DiagnosticKind kJsonObjectEvents{
    "json.object_events", Severity::kInfo,
    "object events (ph N/O/D) were counted, not read (but a TF1 timeline's tensors)"};
const DiagnosticKind kJsonOtherMetadata{
    "json.other_metadata", Severity::kInfo,
    "metadata (ph M) events other than process/thread names and sort indexes were not read"};
const DiagnosticKind kJsonPyTorchLegacyDeviceRanges{
    "json.pytorch_legacy_device_ranges", Severity::kWarning,
    "ranges of the legacy autograd profiler's \"CUDA functions\" process (each op's span on a GPU, measured with "
    "CUDA events; not its kernels) counted, not analysed: the run reads as host only; torch.profiler (Kineto) "
    "records the kernels"};
const DiagnosticKind kJsonPyTorchLegacyOps{
    "json.pytorch_legacy_ops", Severity::kInfo,
    "events of the legacy autograd profiler's \"CPU functions\" process (export_chrome_trace before Kineto: no "
    "categories) read as PyTorch ops, its process as Kineto's CPU process; record_function scopes are ops too "
    "(the format does not tell them apart)"};
const DiagnosticKind kJsonTf1DuplicateEvents{
    "json.tf1_duplicate_events", Severity::kInfo,
    "events of the GPU tracer's stream:all and memcpy processes not read: they repeat the per-stream events (memcpy "
    "only tells which stream events are copies)"};
const DiagnosticKind kJsonTf1OpCopies{
    "json.tf1_op_copies", Severity::kInfo,
    "copies issued by an op itself have no direction in the timeline: named MEMCPY (display name: the op type) "
    "and counted as device compute"};
const DiagnosticKind kJsonTf1TensorLifetimes{
    "json.tf1_tensor_lifetimes", Severity::kInfo,
    "TensorFlow 1 tensor lifetimes (show_memory=True) read as MemoryAllocation/MemoryDeallocation events on a "
    "derived line of /host:CPU, in use = the bytes of the tensors alive, as timeline.py's Memory counters"};
const DiagnosticKind kJsonTf1IncompleteTensors{
    "json.tf1_incomplete_tensors", Severity::kWarning,
    "TensorFlow 1 tensor objects without a creation, a deletion, an id or a readable tensor_description, or with "
    "a size no allocator gives: left out of the memory profile"};
const DiagnosticKind kJsonTf1Timeline{
    "json.tf1_timeline", Severity::kInfo,
    "TensorFlow 1 timeline: each device's executor ops read as lines of the host plane /host:CPU, the GPU tracer's "
    "streams as device planes /device:GPU:<n> (one line per stream), ops' name and op args as tf_op and tf_op_type "
    "stats, the timeline as one session.run step; its 'Tensors' processes as allocator events (show_memory=True)"};
const DiagnosticKind kJsonTfLevel0FromAnnotation{
    "json.tf_level0_from_annotation", Severity::kInfo,
    "GPU events given the \"level 0\" stat (the op that launched them) from their annotation arg, as the XPlane "
    "has it"};
const DiagnosticKind kJsonTfLongName{
    "json.tf_long_name", Severity::kInfo,
    "events named by their long_name arg, the TF op's full name (scope/op:Type) as the XPlane names them; the short "
    "name is kept as display name"};
const DiagnosticKind kJsonTfStringInts{
    "json.tf_string_ints", Severity::kInfo,
    "integer stats written as strings (\"group_id\": \"3\", as TensorFlow's trace viewer JSON has them) read as "
    "integers, as the XPlane has them"};
const DiagnosticKind kJsonTfZeroLength{
    "json.tf_zero_length", Severity::kInfo,
    "events of TensorFlow's trace viewer JSON with a duration of 1 ps (1e-06 us, the floor its writer gives a "
    "zero-length event) read as zero-length, as its tools read the XSpace"};
const DiagnosticKind kJsonTimeOutOfRange{
    "json.time_out_of_range", Severity::kError,
    "events whose start or end is more than 50 days from the trace's first event were dropped"};
const DiagnosticKind kJsonTooDeep{"json.too_deep", Severity::kError,
                                  "events nested deeper than the parser allows were dropped"};
const DiagnosticKind kJsonTooManyStatNames{"json.too_many_stat_names", Severity::kError,
                                           "args beyond 16 million distinct names in one process were dropped"};
const DiagnosticKind kJsonUnclosedBegin{"json.unclosed_begin", Severity::kWarning,
                                        "B events never closed by an E event were dropped"};
const DiagnosticKind kJsonUnknownPhase{"json.unknown_phase", Severity::kWarning,
                                       "events with an unknown ph were dropped"};
const DiagnosticKind kJsonUnknownProducer{
    "json.unknown_producer", Severity::kWarning,
    "a Chrome trace with no TensorFlow process (/host:CPU, /device:...), no TF1 timeline devices and no PyTorch "
    "(Kineto) categories, as another tool writes (ONNX Runtime, a browser): its events are read as host threads, "
    "and the analyses, which look for TensorFlow's and PyTorch's ops, steps and kernels, find little or nothing"};
const DiagnosticKind kJsonUnmatchedEnd{"json.unmatched_end", Severity::kWarning,
                                       "E events with no open B event on their thread were dropped"};
const DiagnosticKind kJsonUnsortedLine{"json.unsorted_line", Severity::kInfo,
                                       "lines whose events were not in time order were sorted"};
const DiagnosticKind kJsonUnsupportedPhase{
    "json.unsupported_phase", Severity::kInfo,
    "sample, mark, clock-sync, memory-dump and context events were counted, not read"};
const DiagnosticKind kJsonUnterminatedArray{
    "json.unterminated_array", Severity::kWarning,
    "the trace event array has no closing ']' (the trace was cut short); the complete events were read"};
const DiagnosticKind kMemoryAddressReusedWithoutFree{
    "memory.address_reused_without_free", Severity::kWarning,
    "allocations at an address whose earlier allocation was never freed in the capture; TensorFlow captures: the "
    "first one describes the next free, as in the TensorFlow Profiler; PyTorch traces: the later allocation replaces "
    "the earlier one"};
const DiagnosticKind kMemoryLineStartsDiffer{
    "memory.line_starts_differ", Severity::kWarning,
    "host threads start at different times; as in the TensorFlow Profiler, each allocator event's time is its offset "
    "within its own thread, so times from different threads are not comparable (run without --compat for one clock)"};
const DiagnosticKind kMemoryMissingStats{
    "memory.missing_stats", Severity::kWarning,
    "allocator events without the stats the memory profile needs (TensorFlow: allocator_name, bytes_reserved, "
    "bytes_allocated, "
    "bytes_available or allocation_bytes, read as empty or 0; PyTorch: a numeric Bytes or Device Type arg, left "
    "out of the profile)"};
const DiagnosticKind kMemoryNegativeSize{"memory.negative_size", Severity::kWarning,
                                         "allocator events with a negative byte count (kept as is)"};
const DiagnosticKind kMemoryPytorchRunningTotal{
    "memory.pytorch_running_total", Severity::kInfo,
    "PyTorch [memory] events without \"Total Allocated\" (2021 builds): memory allocated is counted from 0 at the "
    "start of the trace, as the running sum of their Bytes"};
const DiagnosticKind kMemoryUnmatchedDeallocation{
    "memory.unmatched_deallocation", Severity::kInfo,
    "frees of memory allocated before the profile window (or whose allocation event is missing); they keep their "
    "own sizes but have no op (nor region, dtype or shape)"};
const DiagnosticKind kOpStatsHostOpNotClosed{
    "op_stats.host_op_not_closed", Severity::kInfo,
    "host ops still open when an enclosing op ended (e.g. ending at the same instant) were not counted, as the "
    "TensorFlow Profiler does"};
const DiagnosticKind kOpStatsSpanCut{
    "op_stats.span_cut", Severity::kWarning,
    "threads or devices whose ops are more than 100 days apart (a corrupt clock) had their time span, and so their "
    "IDLE time, cut to 100 days"};
const DiagnosticKind kOpStatsXlaCommandBuffer{
    "op_stats.xla_command_buffer", Severity::kWarning,
    "device events whose hlo_op is an XLA command buffer (several HLO ops run as one CUDA graph) count for the "
    "command buffer as a whole: which op inside it ran a kernel is not recorded"};
const DiagnosticKind kOpStatsXlaDeviceOpsSkipped{
    "op_stats.xla_device_ops_skipped", Severity::kWarning,
    "device events of XLA ops (hlo_op) were left out of the op stats, as the reference does without the HLO protos "
    "(--compat); by default they are counted per HLO op"};
const DiagnosticKind kOpStatsXlaHostOps{
    "op_stats.xla_host_ops", Severity::kInfo,
    "host events of XLA:CPU ops (hlo_op stats, e.g. JAX on CPU) were counted as host ops, named <hlo_module>/<hlo_op> "
    "and typed by a category read from the op's name"};
const DiagnosticKind kOpStatsXlaOps{
    "op_stats.xla_ops", Severity::kInfo,
    "device events of XLA ops (hlo_op stats, e.g. JAX) were counted per HLO op, named <hlo_module>/<hlo_op> and "
    "typed by a category read from the op's name (the HLO protos are not read)"};
const DiagnosticKind kReadMaxEventsReached{
    "read.max_events_reached", Severity::kWarning,
    "events beyond --max-events were not read; the analysis covers only part of the capture"};
const DiagnosticKind kStepsDroppedIncomplete{
    "steps.dropped_incomplete", Severity::kInfo,
    "groups without device compute (GPU) or host compute (CPU) in their step were not counted as steps, as the "
    "TensorFlow Profiler does"};
const DiagnosticKind kStepsProfilerStepMarker{
    "steps.profiler_step_marker", Severity::kInfo,
    "the capture has no TensorFlow step markers; PyTorch's ProfilerStep#N annotations were taken as the steps (as "
    "with --step-marker '^ProfilerStep#\\d+$')"};
const DiagnosticKind kTfdataSharedProducer{
    "tfdata.shared_producer", Severity::kWarning,
    "producer iterator events that several consumers claim (repeated or looping element ids) were linked to the "
    "first consumer only"};
const DiagnosticKind kTfdataUnmatchedConsume{
    "tfdata.unmatched_consume", Severity::kInfo,
    "elements consumed by an asynchronous iterator whose producing call is not in the capture (made before the "
    "trace began, or its producer events were dropped)"};
const DiagnosticKind kTfdataWalkLimit{
    "tfdata.walk_limit", Severity::kWarning,
    "input pipeline executions nested deeper than 100 iterators were cut short there, as the TensorFlow Profiler "
    "does"};
const DiagnosticKind kXplaneAggregatedEvent{"xplane.aggregated_event", Severity::kInfo,
                                            "aggregated events (num_occurrences) were placed at their line's start"};
const DiagnosticKind kXplaneEventTimeOutOfRange{
    "xplane.event_time_out_of_range", Severity::kError,
    "events whose time does not fit in 64-bit picoseconds were clamped to the line's start"};
const DiagnosticKind kXplaneLineTimeOutOfRange{
    "xplane.line_time_out_of_range", Severity::kError,
    "lines whose start time is too far from the rest of the capture were dropped"};
const DiagnosticKind kXplaneNegativeDuration{"xplane.negative_duration", Severity::kWarning,
                                             "events with a negative duration were clamped to 0"};
const DiagnosticKind kXplanePlaneStatWithoutMetadata{
    "xplane.plane_stat_without_metadata", Severity::kInfo,
    "plane or event-metadata stats whose metadata id the plane does not define (JAX's scope-range parent links) "
    "were skipped"};
const DiagnosticKind kXplaneStatWithoutValue{"xplane.stat_without_value", Severity::kInfo,
                                             "stats with no value were read as integer 0"};
const DiagnosticKind kXplaneUnknownField{"xplane.unknown_field", Severity::kInfo,
                                         "fields this reader does not know were skipped"};
const DiagnosticKind kXplaneUnsortedLine{"xplane.unsorted_line", Severity::kInfo,
                                         "lines whose events were not in time order were sorted"};

}  // namespace diag_kind

std::span<const DiagnosticKind* const> DiagnosticCatalogue() {
  using namespace diag_kind;
  static constexpr const DiagnosticKind* kAll[] = {&kGroupingKernelWithoutLaunch,
                                                   &kInputDuplicateHostFile,
                                                   &kInputDuplicateRank,
                                                   &kInputSkippedFile,
                                                   &kJsonAsyncUnclosedBegin,
                                                   &kJsonAsyncUnmatchedEnd,
                                                   &kJsonBadFieldType,
                                                   &kJsonEndArgsIgnored,
                                                   &kJsonFlowEvents,
                                                   &kJsonInvalidUtf8,
                                                   &kJsonKinetoCorrelation,
                                                   &kJsonKinetoDeviceAnnotations,
                                                   &kJsonKinetoDeviceOps,
                                                   &kJsonKinetoDeviceOpsByAnnotation,
                                                   &kJsonKinetoDeviceOpsByGpuAnnotation,
                                                   &kJsonKinetoDeviceOpsByOwnName,
                                                   &kJsonKinetoFrameworkOps,
                                                   &kJsonKinetoGpuPlane,
                                                   &kJsonKinetoHostPidShared,
                                                   &kJsonKinetoHostPlane,
                                                   &kJsonKinetoIdleGpu,
                                                   &kJsonKinetoLaunchDims,
                                                   &kJsonKinetoMemcpyNames,
                                                   &kJsonKinetoOpInputTypes,
                                                   &kJsonKinetoUnlistedGpu,
                                                   &kJsonLineTooLarge,
                                                   &kJsonMissingDuration,
                                                   &kJsonMissingPhase,
                                                   &kJsonMissingPid,
                                                   &kJsonMissingTid,
                                                   &kJsonMissingTs,
                                                   &kJsonNegativeDuration,
                                                   &kJsonNonObjectEvent,
                                                   &kJsonNullArg,
                                                   &kJsonNumberOutOfRange,
                                                   &kJsonObjectEvents,
                                                   &kJsonOtherMetadata,
                                                   &kJsonPyTorchLegacyDeviceRanges,
                                                   &kJsonPyTorchLegacyOps,
                                                   &kJsonTf1DuplicateEvents,
                                                   &kJsonTf1IncompleteTensors,
                                                   &kJsonTf1OpCopies,
                                                   &kJsonTf1TensorLifetimes,
                                                   &kJsonTf1Timeline,
                                                   &kJsonTfLevel0FromAnnotation,
                                                   &kJsonTfLongName,
                                                   &kJsonTfStringInts,
                                                   &kJsonTfZeroLength,
                                                   &kJsonTfprofExport,
                                                   &kJsonTimeOutOfRange,
                                                   &kJsonTooDeep,
                                                   &kJsonTooManyStatNames,
                                                   &kJsonUnclosedBegin,
                                                   &kJsonUnknownPhase,
                                                   &kJsonUnknownProducer,
                                                   &kJsonUnmatchedEnd,
                                                   &kJsonUnsortedLine,
                                                   &kJsonUnsupportedPhase,
                                                   &kJsonUnterminatedArray,
                                                   &kMemoryAddressReusedWithoutFree,
                                                   &kMemoryLineStartsDiffer,
                                                   &kMemoryMissingStats,
                                                   &kMemoryNegativeSize,
                                                   &kMemoryPytorchRunningTotal,
                                                   &kMemoryUnmatchedDeallocation,
                                                   &kOpStatsHostOpNotClosed,
                                                   &kOpStatsSpanCut,
                                                   &kOpStatsXlaCommandBuffer,
                                                   &kOpStatsXlaDeviceOpsSkipped,
                                                   &kOpStatsXlaHostOps,
                                                   &kOpStatsXlaOps,
                                                   &kReadMaxEventsReached,
                                                   &kStepsDroppedIncomplete,
                                                   &kStepsProfilerStepMarker,
                                                   &kTfdataSharedProducer,
                                                   &kTfdataUnmatchedConsume,
                                                   &kTfdataWalkLimit,
                                                   &kXplaneAggregatedEvent,
                                                   &kXplaneEventTimeOutOfRange,
                                                   &kXplaneLineTimeOutOfRange,
                                                   &kXplaneNegativeDuration,
                                                   &kXplanePlaneStatWithoutMetadata,
                                                   &kXplaneStatWithoutValue,
                                                   &kXplaneUnknownField,
                                                   &kXplaneUnsortedLine};
  return kAll;
}

const DiagnosticKind* FindDiagnosticKind(std::string_view id) {
  for (const DiagnosticKind* kind : DiagnosticCatalogue())
    if (kind->id == id) return kind;
  return nullptr;
}

}  // namespace tfprof
