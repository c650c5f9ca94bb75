// A TensorFlow 1 timeline's tensor lifetimes (written with
// generate_chrome_trace_format(show_memory=True)) as the allocator events a
// TensorFlow 2 capture has, so that the memory profile reads both alike.
// Part of the TF1 timeline conventions (chrome_trace_tf1_timeline.h).
//
// What timeline.py writes per tensor an op output (step_stats' NodeOutput),
// on its device's "Tensors" process: an object event N at the op's start, a
// snapshot O whose `tensor_description` is the tensor's TensorDescription
// as text (dtype, shape, allocation_description: requested_bytes,
// allocated_bytes, allocator_name, ptr), and D at its last unref (the end
// of the last op that read it). Its "Memory" counters on the Allocators
// process are, per allocator, the running sum of requested_bytes over these
// creations and deletions, taken in the order of the tuples (time, +/-bytes,
// tensor name).
//
// What it becomes: on a derived line of the host plane
// (kTf1TensorLifetimesLineId), per tensor a MemoryAllocation at its creation
// and a MemoryDeallocation at its last unref, in timeline.py's order, with
// the stats TensorFlow's BFC allocator writes: allocator_name,
// bytes_allocated (the counter's value after the event: the bytes of the
// tensors alive), requested_bytes, allocation_bytes (allocated_bytes, or
// requested_bytes when not recorded), addr (ptr), tf_op (the tensor's op),
// region_type "output", data_type and shape. bytes_reserved and
// bytes_available are 0: a timeline does not say what the allocator holds.
// addr is the tensor's number (mixed with the file's time origin), not its
// buffer's ptr: tensors that share a buffer (a Reshape's output and its
// input) are counted apart, as timeline.py counts them, so a free must find
// its own tensor. As timeline.py, only the last tracker of a name that comes
// again (an op in a while loop) is counted. A tensor created and deleted in
// the same microsecond is left out: timeline.py's counters take its bytes
// away before adding them back, so no count changes, where events would be
// a free before its allocation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/model/model.h"

namespace tfprof {

struct Tf1TensorEvents {
  uint64_t tensors = 0;  // Tensors turned into allocator events.
  // Tensor objects left out: no creation, deletion or readable snapshot,
  // or a size no allocator gives.
  uint64_t incomplete = 0;
  // Left out as timeline.py leaves them out: trackers replaced by a later
  // one of the same name (an op in a loop), and tensors created and deleted
  // in the same microsecond (no count changes).
  uint64_t replaced = 0, instant = 0;
  std::string example;  // One left out, for the diagnostic.
};

// Adds the allocator events of the tensor lifetimes on `tensor_planes` (the
// "<device> Tensors" processes) to `cpu`, the host plane being built.
Tf1TensorEvents AddTf1TensorLifetimes(Host& host, const std::vector<size_t>& tensor_planes, Plane& cpu);

}  // namespace tfprof
