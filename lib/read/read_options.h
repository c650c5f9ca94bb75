#pragma once

#include <cstdint>

namespace tfprof {

struct ReadOptions {
  // Stop reading after this many events per host (0: no limit). The cap is
  // reported as a diagnostic, never applied silently.
  uint64_t max_events = 0;
  // Refuse to inflate a gzip capture beyond this many bytes (gzip bombs).
  uint64_t max_inflated_bytes = uint64_t{64} << 30;
};

}  // namespace tfprof
