// The SHA-256 of capture files' bytes as stored: what a run summary records
// of each host's capture, so summaries made apart can tell byte-identical
// host files (and a user can tell which capture a summary came from).
// SHA-256 rather than a fast hash: combining drops a host whose hash equals
// another's without the bytes at hand to compare, so a crafted collision
// must not be able to hide a host.
#pragma once

#include <string>
#include <vector>

namespace tfprof {

// Lowercase hex SHA-256 of the files' bytes, one after another. Throws
// InputError naming the file that cannot be read.
std::string FilesSha256Hex(const std::vector<std::string>& paths);

}  // namespace tfprof
