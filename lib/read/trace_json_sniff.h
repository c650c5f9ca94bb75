// Recognising Chrome trace JSON by its first bytes, for files whose names
// say nothing (`rank0_kineto.json.gz`, `train.json`, `profile_trace.json`):
// exporters and users name traces freely, so a run folder is also searched
// by content, never by opening more than the first kTraceSniffBytes.
#pragma once

#include <cstddef>
#include <string>

namespace tfprof {

// How much of a file (inflated, when gzipped) the sniff reads. Kineto writes
// deviceProperties and distributedInfo before traceEvents: 23 KiB of them in
// the largest corpus trace; 64 KiB leaves room and still costs nothing.
inline constexpr size_t kTraceSniffBytes = 64 << 10;

// Whether a file name ends in .json or .json.gz (the names sniffed).
bool HasJsonName(const std::string& file_name);

// Whether the regular file at `path` starts (after whitespace and a UTF-8
// byte order mark) with '{' or '[' and has a "traceEvents" or "ph" key in
// its first kTraceSniffBytes. Unreadable or corrupt files are not traces.
bool LooksLikeTraceJson(const std::string& path);

}  // namespace tfprof
