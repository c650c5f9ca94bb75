// PyTorch operators in a Kineto trace, mapped onto the XPlane's framework-op
// stats so that op stats, placement and kernel stats count them through the
// code that counts TensorFlow ops (part of the Chrome trace conventions,
// docs/info.md#chrome-traces-read-as-xplanes).
//
//   * Host: every `cpu_op` event (2021 builds: `Operator`) but the
//     ProfilerStep#N step markers is a framework op. It gets a `tf_op` stat,
//     its op name, and a `tf_op_type` stat, its op type: both are the event's
//     name (`aten::addmm`), since PyTorch ops have no scope path to tell
//     instances apart. `user_annotation` events (record_function scopes,
//     ProfilerStep#N) are not ops, as TensorFlow's TraceMe scopes are not.
//   * Device: a kernel, memcpy or memset gets the `tf_op` and `tf_op_type` of
//     the innermost op open on the thread of its runtime call (same
//     correlation_id) when the call starts: the op that launched it, as the
//     XPlane's `tf_op` names the TF op whose kernel it is. Kineto's
//     `External id` would give the same link on recent traces but is not
//     reliable (the HTA corpus traces carry the correlation id there).
//
// `tf_op_type` is this project's stat: where an event has it, analyses take
// `tf_op` as the op name as is instead of parsing a TF full name
// (lib/analyze/tf_op_name.h, OpFromStats).
#pragma once

#include <cstdint>

#include "lib/model/model.h"

namespace tfprof {

struct KinetoOpCounts {
  uint64_t host_ops = 0;          // cpu_op events typed as framework ops.
  uint64_t device_with_op = 0;    // Device events given the op that launched them.
  uint64_t device_without_op = 0; // Device events with a correlation_id but no op around their launch.
};

// `cpu` is the host plane (correlation_id already named so); the device
// planes are host's /device:GPU:<n> planes. Leaves a plane that already has
// `tf_op` stats alone.
KinetoOpCounts MarkKinetoFrameworkOps(Host& host, Plane& cpu);

}  // namespace tfprof
