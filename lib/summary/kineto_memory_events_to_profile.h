// Memory profile of a PyTorch (Kineto) trace recorded with
// `torch.profiler.profile(profile_memory=True)`: every allocation and free of
// PyTorch's allocators is an instant event named `[memory]` on the thread that
// made it, with args
//   Bytes            > 0 allocated, < 0 freed (the size),
//   Addr             the block's address (matches a free with its allocation),
//   Total Allocated  the device's memory allocated after the event,
//   Total Reserved   the device's memory reserved (cached) after the event,
//   Device Type      c10::DeviceType (0 CPU, 1 CUDA, 6 HIP, ...),
//   Device Id        the device index (-1 for the CPU).
// 2021 builds wrote only Bytes and the device. Each device is one memory id
// ("cpu", "cuda:0", "hip:0"), profiled on its own: the timeline, the peak of
// allocated memory (its time, step and the memory reserved then), the peak
// reserved, and the allocations alive at the peak grouped by the PyTorch op
// that made them (docs/memory.md, "PyTorch traces").
#pragma once

#include "lib/model/diagnostics.h"
#include "lib/model/model.h"
#include "lib/summary/memory_events_to_profile.h"

namespace tfprof {

// The memory id of a device as PyTorch names it: "cpu" for the CPU,
// "<type>:<index>" for the others ("cuda:0", "hip:1"; an unknown type
// "device_type_<n>:<index>").
std::string PyTorchDeviceName(int64_t device_type, int64_t device_id);

// The profile of a Chrome trace's host plane, `no_profile_reason` saying why
// when it holds no `[memory]` events. Uses the ops the Chrome trace
// conventions marked (tf_op / tf_op_type stats of Kineto's cpu_op events)
// and the steps of event grouping (PyTorch's ProfilerStep#N).
HostMemoryProfile BuildKinetoMemoryProfile(const Host& host, Diagnostics& diagnostics,
                                           const EventGroupsSource& groups = {});

}  // namespace tfprof
