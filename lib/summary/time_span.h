// Spans between event times, and sums of them, that cannot overflow.
//
// Event times are int64 picoseconds from the host's time origin. The JSON
// reader keeps every time within 50 days of the trace's first event, so any
// two are at most 100 days apart; an XSpace capture can put events anywhere
// in the int64 range (its reader checks only that each event's own end
// fits), and `last - first` of two far-apart events overflowed: undefined
// behaviour that printed spans of "-0.000 ms" and an IDLE time of
// 18446744073709 us. The analyses take spans through these helpers instead:
// a span is cut at the JSON reader's 100 days, and the caller counts it.
#pragma once

#include <cstdint>

#include "lib/util/saturating.h"

namespace tfprof {

// The longest span an analysis takes: 100 days, as far apart as two events
// of a JSON trace can be (chrome_trace_builder_state.h: kMaxTimeOffsetPs).
inline constexpr int64_t kMaxSpanPs = int64_t{100} * 86'400 * 1'000'000'000'000;

// last - first for first <= last, cut at kMaxSpanPs; `*cut` is set when it
// was. Exact below the cut (the difference is taken in uint64, where it
// always fits).
inline int64_t SpanPs(int64_t first, int64_t last, bool* cut) {
  const uint64_t span = static_cast<uint64_t>(last) - static_cast<uint64_t>(first);
  if (span <= static_cast<uint64_t>(kMaxSpanPs)) return static_cast<int64_t>(span);
  *cut = true;
  return kMaxSpanPs;
}

}  // namespace tfprof
