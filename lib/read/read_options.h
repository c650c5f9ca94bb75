#pragma once

#include <cstdint>
#include <string>

namespace tfprof {

struct ReadOptions {
  // Stop reading after this many events per host (0: no limit). The cap is
  // reported as a diagnostic, never applied silently.
  uint64_t max_events = 0;
  // Refuse to inflate a gzip capture beyond this many bytes (gzip bombs).
  // --max-inflated-mb; lowered further by CheckMemoryFor (memory_guard.h).
  uint64_t max_inflated_bytes = uint64_t{64} << 30;
  // Set when CheckMemoryFor lowered max_inflated_bytes to fit the memory.
  bool inflate_limit_from_memory = false;
  // Memory the model may take while it is read (0: no limit): the readers
  // charge what they allocate against it (memory_budget.h) and stop with
  // exit 3 past it. Set by CheckMemoryFor from TFPROF_MEMORY_LIMIT (then
  // memory_limit_from_env) or the memory available. --max-events does not
  // lift it.
  uint64_t memory_limit_bytes = 0;
  bool memory_limit_from_env = false;

  // The error text for content that inflates beyond the limit.
  std::string InflateLimitProblem() const {
    std::string mib = std::to_string(max_inflated_bytes >> 20) + " MiB";
    if (inflate_limit_from_memory)
      return "gzip content inflates beyond " + mib + ", more than this machine's available memory allows reading" +
             " (a gzip bomb, or a capture too large for this machine)";
    return "gzip content inflates beyond the " + mib + " limit (a gzip bomb? raise it with --max-inflated-mb)";
  }
};

}  // namespace tfprof
