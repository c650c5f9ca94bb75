// `info --dump`: the model a reader produced, as deterministic text, one
// item per line, so a reader test is "this input gives this dump" (tests/
// diff/read/). It shows what the analyses see, after the reader's
// normalisation: hosts, planes, lines, events (name, start and duration in
// picoseconds, stats) and the event metadata's shared stats.
//
// Deterministic: items in model order (the order the reader stored them),
// no addresses, no clocks, doubles in their shortest exact form. Bounded:
// at most `events_per_line` events per line and `metadata_per_plane` event
// metadata per plane are shown, each followed by a count of the rest.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "lib/model/diagnostics.h"
#include "lib/model/model.h"

namespace tfprof {

struct TextDumpLimits {
  uint64_t events_per_line = 20;     // 0: all.
  uint64_t metadata_per_plane = 50;  // 0: all.
};

// Writes `host` as described above, starting with a "host" line.
void HostToTextDump(const Host& host, const TextDumpLimits& limits, std::ostream& out);

// Writes every entry of `diagnostics` (info level included: they are what
// a reader test is about), most severe first, after a "diagnostics" line;
// "diagnostics: none" when empty.
void DiagnosticsToTextDump(const Diagnostics& diagnostics, std::ostream& out);

// `text` in double quotes, with \" \\ \n \r \t and \xNN for other control
// bytes and DEL, so one item stays on one line whatever a capture holds.
std::string QuoteForDump(std::string_view text);

}  // namespace tfprof
