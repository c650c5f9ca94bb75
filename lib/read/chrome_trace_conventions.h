// After a Chrome trace is read, maps what TensorFlow's trace viewer JSON and
// PyTorch's Kineto write onto the XPlane conventions the analyses read, so
// that a JSON capture analyses like an XSpace with as few special cases in
// the analyses as possible. Every change is counted in the diagnostics
// (info level); docs/info.md lists them.
//
// TensorFlow trace viewer JSON (`<host>.trace.json.gz`):
//   * An event's `long_name` arg is the TF op's full name (`scope/op:Type`),
//     which is what the XPlane names the event: the event is named by it and
//     keeps its short name as display name ("json.tf_long_name").
//   * Integer args TensorFlow wrote as strings ("group_id": "3") are
//     integers again for the stats the analyses read as integers
//     ("json.tf_string_ints").
//   * A duration of 1 ps on its processes (/host:..., /device:...) is a
//     zero-length event, floored so by its writer: 0 again
//     ("json.tf_zero_length").
//
// torch.autograd.profiler's export before Kineto ("CPU functions"): made
// Kineto's shape first (chrome_trace_legacy_autograd.h).
//
// Any other producer (no TensorFlow process names, no Kineto categories, not
// a TF1 timeline) is read as it is, and said to be ("json.unknown_producer").
//
// PyTorch / Kineto traces (processes labelled "CPU" / "GPU <n>", or events of
// categories cpu_op, cuda_runtime, kernel, gpu_memcpy, ...):
//   * The CPU process becomes the host plane "/host:CPU"; several CPU
//     processes are merged into it (the analyses read one host plane, and a
//     launch in one must still find its kernel), their threads kept apart
//     ("json.kineto_host_plane"). The plane stat `process_name` keeps the
//     original name(s).
//   * Each process holding kernels, memcpys or memsets becomes
//     "/device:GPU:<n>" (n from its label "GPU <n>", else its pid, the device
//     index), one line per stream with the stream number as line id
//     ("json.kineto_gpu_plane"). Processes of idle devices are left as they are.
//   * GPU-side annotations and waits (gpu_user_annotation, cuda_sync) move to
//     a derived line of their plane, which analyses skip like xprof's derived
//     lines: they are not device activity ("json.kineto_device_annotations").
//   * Memcpy and memset events are named as the XPlane names them
//     (MEMCPYHtoD, MEMCPYDtoH, MEMCPYDtoD, MEMCPYHtoH, MEMCPYP2P, MEMSET), the
//     Kineto name kept as display name ("json.kineto_memcpy_names").
//   * The `correlation` arg linking a runtime call to its device activity is
//     the `correlation_id` stat ("json.kineto_correlation").
//   * cpu_op events are framework ops, and each kernel, memcpy and memset
//     names the op that launched it, in `tf_op` / `tf_op_type` stats
//     ("json.kineto_framework_ops", "json.kineto_device_ops";
//     chrome_trace_kineto_ops.h).
//   * Kernels keep their `grid`, `block`, `registers per thread`, `shared
//     memory` args, which kernel stats read (IsKinetoGpuPlane).
#pragma once

#include <optional>
#include <string_view>

#include "lib/model/diagnostics.h"
#include "lib/model/model.h"

namespace tfprof {

// The args the conventions read or rename into the stats the analyses read;
// a reader that leaves args out keeps these whatever the command
// (chrome_trace_arg_filter.h).
inline constexpr std::string_view kChromeTraceConventionArgs[] = {
    "long_name",    // TF trace JSON: the op's full name.
    "annotation",   // TF trace JSON: level 0 of an XLA op.
    "correlation",  // Kineto: becomes correlation_id.
    "stream",       // Kineto: a GPU event's line.
    "grid",         // Kineto: launch dimensions, copied to kernels.
    "block",        //
    "Input type",   // Kineto: becomes op_input_types.
    "name",         // TF1 timeline: becomes tf_op.
    "op",           // TF1 timeline: becomes tf_op_type.
    "kernel",       // TF1 timeline: the kernel of a stream event.
    "snapshot",     // TF1 timeline: a tensor's description (show_memory=True).
    "cat",          // The category, wherever it comes from.
    // Read as guards: a plane that has them already is not given them
    // (level 0 from annotations, Kineto's op attribution).
    "tf_op",
    "level 0",
};
// The stats the analyses read as integers (grouping, op metrics, tf.data),
// which TF's trace viewer JSON may write as strings: the conventions turn
// them into integers and count them ("json.tf_string_ints").
inline constexpr std::string_view kTfStringIntegerArgs[] = {
    "group_id", "correlation_id", "id",   "parent_id", "iter_num", "step_num", "_r", "_a", "_p", "_c", "_pt", "_ct",
    "is_eager", "_ipl_stage_id",  "_pid", "step_id"};

// Plane stat of a Kineto host process whose pid Kineto also labelled as a
// GPU's ("GPU 1" on pid 1): that label (ChromeTraceBuilder).
inline constexpr std::string_view kSharedGpuLabelStat = "kineto_shared_gpu_label";

// Line id of the derived line that holds a Kineto GPU plane's annotations:
// in the block of ids xprof gives derived lines (schema::IsDerivedLineId).
inline constexpr int64_t kKinetoAnnotationLineId = int64_t{0xdeadbeef} + 2;

// `machine_model`: the one model every Kineto deviceProperties entry
// describes (none: no entry, or several models).
void ApplyChromeTraceConventions(Host& host, Diagnostics& diagnostics,
                                 const std::optional<DeviceProperties>& machine_model = std::nullopt);

}  // namespace tfprof
