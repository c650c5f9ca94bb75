// Recognising Chrome trace JSON by its first bytes, for files whose names
// say nothing (`rank0_kineto.json.gz`, `train.json`, `profile_trace.json`):
// exporters and users name traces freely, so a run folder is also searched
// by content, never by opening more than the first kTraceSniffBytes.
// The Chrome trace row of the format table (capture_formats.h) uses these.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tfprof {

// How much of a file (inflated, when gzipped) the sniff reads. Kineto writes
// deviceProperties and distributedInfo before traceEvents: 23 KiB of them in
// the largest corpus trace; 64 KiB leaves room and still costs nothing.
inline constexpr size_t kTraceSniffBytes = 64 << 10;

// Whether a file name ends in .json or .json.gz (the names sniffed).
bool HasJsonName(const std::string& file_name);

// The offset of a text's first character after whitespace and a UTF-8 byte
// order mark; npos when there is none.
size_t TextStart(std::string_view head);

// Whether `head` opens a JSON object or array (after whitespace and a BOM):
// enough to read a file given by name as JSON.
bool StartsLikeJson(std::string_view head);

// Whether `head` opens a JSON object or array that has a "traceEvents" or
// "ph" key: the stricter test for files taken by content.
bool HoldsTraceJson(std::string_view head);

// HoldsTraceJson on the first kTraceSniffBytes of the regular file at
// `path`. Unreadable or corrupt files are not traces.
bool LooksLikeTraceJson(const std::string& path);

}  // namespace tfprof
