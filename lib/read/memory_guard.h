// Resource bounds: before a capture is read, estimate the memory reading it
// needs and refuse early, with a clear message, when the machine does not
// have it (instead of being killed by the kernel half-way).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "lib/model/model.h"
#include "lib/read/read_options.h"

namespace tfprof {

// Bytes of memory available to this process now: $TFPROF_MEMORY_LIMIT when
// set (bytes, or with a K/M/G suffix; for tests and containers), else the
// smaller of /proc/meminfo's MemAvailable and the cgroup's memory.max room.
// nullopt when unknown (then nothing is refused).
std::optional<uint64_t> AvailableMemoryBytes();

// What reading `path` in `format` is estimated to need, from its size on
// disk: the model built from an XSpace is about 1.5x the file; from Chrome
// JSON about 0.5x. Gzip content is unknown until inflated: bounded by the
// inflate limit instead (see AdjustInflateLimit).
uint64_t EstimatedReadBytes(CaptureFormat format, uint64_t file_bytes);

// Throws InputError (exit 3) naming `path` when the estimate exceeds the
// available memory. Skipped with --max-events (which bounds the model).
// Lowers options.max_inflated_bytes for gzip input to what memory allows:
// an XSpace is inflated whole (plus its model: 2.5x), JSON is streamed (its
// model: 0.5x).
void CheckMemoryFor(const std::string& path, CaptureFormat format, ReadOptions& options);

}  // namespace tfprof
