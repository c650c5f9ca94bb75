// The library's hints for people, worded with the command line's flags: the
// library knows which way out applies, only the command knows its flags.
#pragma once

#include <string>

#include "lib/model/errors.h"
#include "lib/summary/analysis_options.h"

namespace tfprof {

// What follows an InputError's message for its hint (" with --max-events
// N"); empty for none.
std::string InputHintText(InputHint hint);

// The fallbacks a run without steps can try, with their flags and examples
// in the capture's framework's terms; empty when none is left.
std::string WordNoStepsHint(const NoStepsHint& hint);

}  // namespace tfprof
