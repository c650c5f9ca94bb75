// PyTorch operators in a Kineto trace, mapped onto the XPlane's framework-op
// stats so that op stats, placement and kernel stats count them through the
// code that counts TensorFlow ops (part of the Chrome trace conventions,
// docs/info.md#chrome-traces-read-as-xplanes; the rules in full:
// docs/formats/pytorch-kineto.md).
//
//   * Host: every `cpu_op` event (2021 builds: `Operator`) but the
//     ProfilerStep#N step markers is a framework op. It gets a `tf_op` stat,
//     its op name, and a `tf_op_type` stat, its op type: both are the event's
//     name (`aten::addmm`), since PyTorch ops have no scope path to tell
//     instances apart. `user_annotation` events (record_function scopes,
//     ProfilerStep#N) are not ops, as TensorFlow's TraceMe scopes are not.
//   * Device: every kernel, memcpy and memset gets a `tf_op` and `tf_op_type`
//     naming what it ran for, the first of
//       1. the innermost op open on the thread of its runtime call (same
//          correlation_id) when the call starts: the op that launched it, as
//          the XPlane's `tf_op` names the TF op whose kernel it is;
//       2. else the innermost `user_annotation` open around that call
//          (record_function scopes; not ProfilerStep#N);
//       3. else the innermost `gpu_user_annotation` of its device open when
//          it starts (not ProfilerStep#N);
//       4. else the device event's own name (a C++ extension's or a
//          communication library's kernel launched outside any op).
//     So every device event belongs to a row and device op time adds up to
//     the device's activity. Kineto's `External id` would give link 1 on
//     recent traces but is not reliable (the HTA corpus traces carry the
//     correlation id there).
//   * Device events linked to an op (1.) also get `op_input_types`: the op's
//     `Input type` arg (record_shapes=True), evidence of the data type for
//     kernels whose names do not tell it.
//
// `tf_op_type` is this project's stat: where an event has it, analyses take
// `tf_op` as the op name as is instead of parsing a TF full name
// (lib/summary/tf_op_name.h, OpFromStats).
#pragma once

#include <cstdint>

#include "lib/model/model.h"

namespace tfprof {

struct KinetoOpCounts {
  uint64_t host_ops = 0;                    // cpu_op events typed as framework ops.
  uint64_t device_with_op = 0;              // Device events given the op that launched them (1.).
  uint64_t device_with_annotation = 0;      // ... the user annotation around their launch (2.).
  uint64_t device_with_gpu_annotation = 0;  // ... the GPU annotation around them (3.).
  uint64_t device_named_as_themselves = 0;  // ... their own name (4.).
  uint64_t device_with_input_types = 0;     // Device events given their op's Input type.
};

// `cpu` is the host plane (correlation_id already named so), or null when
// the trace has none (a GPU-only trace: every device event is then named
// by its GPU annotation or itself). The device planes are host's
// /device:GPU:<n> planes. Leaves a plane that already has `tf_op` stats
// alone.
KinetoOpCounts MarkKinetoFrameworkOps(Host& host, Plane* cpu);

}  // namespace tfprof
