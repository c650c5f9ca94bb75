// Traces written by torch.autograd.profiler's export_chrome_trace before
// Kineto (PyTorch 1.7 and earlier, and the legacy profiler after): a bare
// array of complete events without a category, the ops of each thread in a
// process named "CPU functions" (their pid is that string) and, with
// use_cuda=True, each op's device time, measured with CUDA events, in a
// process "CUDA functions" whose thread is the device index.
//
// Read with Kineto's conventions (chrome_trace_conventions.h) once made to
// look like a Kineto trace: the CPU process is labelled "CPU" and its events
// are ops (`cat` cpu_op), so that every analysis reads them as PyTorch ops
// ("json.pytorch_legacy_ops"). The device ranges are an op's span on the
// GPU, not its kernels, linked to the op only by flow arrows: they are
// counted, not analysed ("json.pytorch_legacy_device_ranges").
// docs/formats/pytorch-kineto.md, "The legacy profiler".
#pragma once

#include "lib/model/diagnostics.h"
#include "lib/model/model.h"

namespace tfprof {

// The process names the legacy export gives its two processes.
inline constexpr std::string_view kLegacyCpuProcess = "CPU functions";
inline constexpr std::string_view kLegacyCudaProcess = "CUDA functions";

// Whether `host` (a Chrome trace just read) is a legacy autograd profiler
// export: a process named kLegacyCpuProcess or kLegacyCudaProcess whose
// events have no category.
bool IsLegacyAutogradTrace(const Host& host);

// Labels the legacy trace's CPU process as Kineto's and its events as ops;
// counts the device ranges. Call when IsLegacyAutogradTrace.
void ApplyLegacyAutogradConventions(Host& host, Diagnostics& diagnostics);

}  // namespace tfprof
