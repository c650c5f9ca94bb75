// What a PyTorch (Kineto) trace records about how the training loop feeds
// the GPU, beyond op and kernel times: which DataLoader the loop iterates
// (in the main process or in worker processes), host-to-device copies from
// pageable or pinned memory, and CUDA graph replays. The advisor
// (lib/advise) reads these to say which PyTorch knob to turn; the op and
// step tables do not show them, so they are collected once per host here and
// kept in the run summary like the other partials.
#pragma once

#include <cstdint>
#include <string_view>

#include "lib/model/model.h"

namespace tfprof {

struct PyTorchRuntimeFacts {
  // `enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__`: batches
  // loaded in the training process itself (num_workers=0).
  uint64_t single_process_loader_calls = 0, single_process_loader_ps = 0;
  // `..._MultiProcessingDataLoaderIter.__next__`: waiting for worker processes.
  uint64_t worker_loader_calls = 0, worker_loader_ps = 0;
  // Host-to-device copies by the host memory they read ("Memcpy HtoD
  // (Pageable -> Device)" / "(Pinned -> Device)"). A pageable copy is
  // staged through a driver buffer and cannot overlap compute.
  uint64_t pageable_h2d_copies = 0, pageable_h2d_ps = 0;
  uint64_t pinned_h2d_copies = 0, pinned_h2d_ps = 0;
  // cudaGraphLaunch calls: the loop already replays CUDA graphs.
  uint64_t cuda_graph_launches = 0;

  bool operator==(const PyTorchRuntimeFacts&) const = default;
};

// The facts of one host; all zero for a capture that is not PyTorch's.
PyTorchRuntimeFacts CollectPyTorchRuntimeFacts(const Host& host);
// Whether events of this name (the display name where the event has one)
// count towards the facts.
bool IsPyTorchRuntimeFactName(std::string_view name);
// Sums `other` (another host of the run) into `into`.
void AddPyTorchRuntimeFacts(PyTorchRuntimeFacts& into, const PyTorchRuntimeFacts& other);

}  // namespace tfprof
