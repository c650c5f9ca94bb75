// TensorFlow 1 `timeline.json` (RunMetadata.step_stats of one session.run
// through tensorflow.python.client.timeline, docs/formats/tf1-timeline.md)
// mapped onto the XPlane conventions the analyses read. Part of the Chrome
// trace conventions (chrome_trace_conventions.h); every change is counted
// in the diagnostics (info level).
//
// What TF1 writes: one process per StepStats device and per view of it,
// named "<device> Compute" (its ops, `cat` "Op", args {name, op, input<i>},
// `tid` a lane the writer assigned so that events on it do not overlap) and
// "<device> Tensors" (tensor lifetimes as object events), plus "Allocators"
// (memory counters). The devices are the executor's
// ("/job:localhost/replica:0/task:0/device:GPU:0", older
// ".../task:0/gpu:0", CPUs alike), whose events are the host's work of
// running each op (for a GPU op: launching its kernels), and the GPU
// tracer's ("/device:GPU:0/stream:14", older "/gpu:0/stream:7"), whose
// events are what ran on the GPU. The tracer writes each kernel twice (its
// stream and "/stream:all") and each copy twice (its stream and "/memcpy").
//
// What it becomes:
//   * /host:CPU: one line per lane of every executor device ("<device>
//     Compute/<lane>"); the op events keep their name (the op type) and get
//     `tf_op` (args.name) and `tf_op_type` (args.op), the framework-op stats
//     analyses read ("json.tf1_timeline").
//   * /device:GPU:<n> per GPU (n: its ordinal, the next free one if taken):
//     one line per stream, id = the stream number, named "Stream #<id>";
//     events with `tf_op` / `tf_op_type` as above. "stream:all" and
//     "memcpy" are read only when the device has no per-stream process;
//     otherwise their events are duplicates and only tell which stream
//     events are copies ("json.tf1_duplicate_events"). A copy keeps its name
//     when it is a transfer (MEMCPYHtoD, MEMCPYDtoH, MEMCPYDtoD: the
//     XPlane's names); one an op issued itself has no direction in the
//     timeline and is named MEMCPY, its op type kept as display name
//     ("json.tf1_op_copies"). A kernel is named by its op type (TF1 writes no
//     kernel names, except ROCm builds' `kernel` arg, which names it then).
//   * The "Tensors" processes' tensor lifetimes (show_memory=True) become
//     allocator events on a derived line of /host:CPU
//     (chrome_trace_tf1_memory.h); the processes themselves are dropped.
//     "Allocators" and anything else stay as they are.
//   * The host plane gets a derived line (kTf1SessionRunLineId) with one
//     event, "session.run", from the first to the last event of the
//     timeline: the step (lib/model/tf1_timeline.h). The planes built carry
//     the plane stat kTf1TimelinePlaneStat, the processes they came from.
#pragma once

#include <string_view>

#include "lib/model/diagnostics.h"
#include "lib/model/model.h"

namespace tfprof {

// Object events of `cat` "Tensor" (timeline.py's tensor lifetimes, written
// with show_memory=True) are kept by the reader as instant events on these
// lines of their process, one line per phase (N, O, D), with their args and
// id; the TF1 conventions turn them into allocator events, and any other
// trace's are dropped and counted (json.object_events).
inline constexpr std::string_view kTensorCreatedLine = "_tensor_created_";
inline constexpr std::string_view kTensorSnapshotLine = "_tensor_snapshot_";
inline constexpr std::string_view kTensorDeletedLine = "_tensor_deleted_";
bool IsTensorObjectLine(std::string_view line_name);
// Removes the tensor object lines of a trace that is no TF1 timeline;
// returns how many events they held.
uint64_t DropTensorObjectLines(Host& host);

// True when a process is named "<TF device> Compute": the trace is a TF1
// timeline.
bool IsTf1Timeline(const Host& host);

void ApplyTf1TimelineConventions(Host& host, Diagnostics& diagnostics);

}  // namespace tfprof
