// Resource bounds: before a capture is read, estimate the memory reading it
// needs and refuse early, with a clear message, when the machine does not
// have it (instead of being killed by the kernel half-way); and hand the
// readers the limit their MemoryBudget (memory_budget.h) charges against
// while they read, for what the file's size does not tell.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "lib/model/model.h"
#include "lib/read/read_options.h"

namespace tfprof {

// Bytes of memory available to this process now: $TFPROF_MEMORY_LIMIT when
// set (bytes, or with a K/M/G suffix; for tests and containers; then
// *from_env is set), else the smallest of /proc/meminfo's MemAvailable and
// the room under the cgroup memory limits (v1 and v2). nullopt when unknown
// (then nothing is refused).
std::optional<uint64_t> AvailableMemoryBytes(bool* from_env = nullptr);

// Room left under the memory limits of the cgroups that `proc_self_cgroup`
// (the text of /proc/self/cgroup) names, with the cgroup file systems
// mounted at `cgroup_root` (/sys/fs/cgroup): v2's memory.max minus
// memory.current, v1's memory.limit_in_bytes minus memory.usage_in_bytes
// (usage less the inactive file cache of memory.stat, which the kernel
// reclaims first), at every level from the process's cgroup up to the root
// (a parent's limit binds too; levels missing under the mount, as in a
// container, are skipped). nullopt when no limit is set.
std::optional<uint64_t> CgroupMemoryRoom(const std::string& cgroup_root, std::string_view proc_self_cgroup);

// What reading a file in `format` is estimated to need, from its size on
// disk (the format's row in capture_formats.h: the model built from an
// XSpace is about 1.5x the file; from Chrome JSON about 0.5x). Gzip content
// is unknown until inflated: bounded by the inflate limit instead (see
// CheckMemoryFor).
uint64_t EstimatedReadBytes(CaptureFormat format, uint64_t file_bytes);

// Sets options.memory_limit_bytes to the available memory. Throws
// InputError (exit 3) naming `path`, with the hint to read part of the
// events, when the estimate exceeds it, unless options.max_events bounds
// the events (the running budget still applies then).
// Lowers options.max_inflated_bytes for gzip input to what memory allows
// (the format's row: an XSpace is inflated whole, plus its model: 2.5x;
// JSON is streamed, its model: 0.5x). --max-events lifts neither of these
// bounds.
void CheckMemoryFor(const std::string& path, CaptureFormat format, ReadOptions& options);

}  // namespace tfprof
