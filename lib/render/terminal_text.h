// Text bound for a terminal (the table format, error lines). Names come from
// captures and file names, which anyone can write: a raw ESC can retitle
// the window or clear the screen, a newline can fake a table row or split
// the one-line error. Such characters are shown as escapes instead.
#pragma once

#include <string>
#include <string_view>

namespace tfprof {

// Returns `text` with every character that controls a terminal written as
// a visible escape: \n \r \t, \xNN for the other C0 controls, DEL and
// bytes that are not valid UTF-8, \uNNNN for C1 controls (U+0080..U+009F,
// which some terminals obey even UTF-8 encoded), the bidirectional
// overrides and isolates (U+200E/F, U+202A..E, U+2066..9: they reorder
// what is shown) and the line/paragraph separators U+2028/9. Backslashes
// are kept as they are: the escapes are for a reader, not for parsing back
// (CSV and JSON carry the exact bytes).
std::string EscapeForTerminal(std::string_view text);

}  // namespace tfprof
