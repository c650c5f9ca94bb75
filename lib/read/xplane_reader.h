// Reads `*.xplane.pb` (an XSpace protobuf, optionally gzip-compressed) into a
// Host, walking the wire format directly (no generated message classes: they
// cannot parse 2 GiB or more and cost 5-10x the time and memory).
#pragma once

#include <string>
#include <string_view>

#include "lib/model/diagnostics.h"
#include "lib/model/model.h"
#include "lib/read/read_options.h"

namespace tfprof {

// Throws InputError naming `path` when the file is unreadable or not a valid
// XSpace.
Host ReadXSpaceFile(const std::string& path, Diagnostics& diagnostics, const ReadOptions& options = {});

// The same, from bytes already in memory; `path` is used in messages.
Host ReadXSpaceBytes(std::string_view bytes, const std::string& path, Diagnostics& diagnostics,
                     const ReadOptions& options = {});

}  // namespace tfprof
