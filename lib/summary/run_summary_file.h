// A RunSummary as a file: a 20-byte header, then the RunSummary message of
// proto/run_summary.proto (docs/run-summary-format.md).
//
//   bytes 0-7    magic "\x89tfprof\n" (the \x89 and \n catch files mangled
//                as text, as PNG's magic does)
//   bytes 8-11   schema version, little-endian uint32
//   bytes 12-19  length of the message that follows, little-endian uint64
//
// The header's version is checked before a byte of the message is parsed,
// so a summary of another version is one clear error, never a misreading.
// Written deterministically: the same summary gives the same bytes.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "lib/read/read_options.h"
#include "lib/summary/run_summary.h"
#include "proto/run_summary.pb.h"

namespace tfprof {

inline constexpr std::string_view kRunSummaryMagic{"\x89tfprof\n", 8};
inline constexpr size_t kRunSummaryHeaderBytes = 20;
// What `summarize` and `combine` name their files, and what a folder of
// summaries holds.
inline constexpr std::string_view kRunSummaryExtension = ".tfsum";
// Protobuf parses messages below 2 GiB only.
inline constexpr uint64_t kRunSummaryMaxMessageBytes = (uint64_t{1} << 31) - 1;
// Memory reading takes per byte of message: the file's bytes, the parsed
// message and the summary built from it are held at once. Measured: the
// message takes 2.6-3.3x its bytes in memory and the summary 2.4-2.8x on
// the test captures; reading a 13.7 MB summary peaks 88.5 MB (6.5x) above
// the process's baseline (docs/run-summary-format.md). 10 leaves room.
inline constexpr uint64_t kRunSummaryReadBytesPerByte = 10;

void ToProto(const RunSummary& in, summary::RunSummary* out);
// One host's partials (part of the above; run_summary_stream_combine.cc
// copies hosts one at a time).
void ToProto(const HostPartials& in, summary::HostPartials* out);
HostPartials FromProto(const summary::HostPartials& in);
// The message's length, after checking a file's first kRunSummaryHeaderBytes
// (`header`; fewer when the file is shorter) against its size: the magic,
// the version, and a length that is the rest of the file. Throws InputError
// naming `path` (exit 3).
uint64_t CheckRunSummaryHeader(std::string_view header, uint64_t file_bytes, const std::string& path);
// Throws InputError (no path) for a message no summary gives, including a
// schema version other than kRunSummarySchemaVersion.
RunSummary FromProto(const summary::RunSummary& in);

// Header and message.
std::string RunSummaryToBytes(const RunSummary& summary);
// The header of a file whose message is `message_bytes` long.
std::string RunSummaryHeader(uint32_t schema_version, uint64_t message_bytes);
// Throws InputError naming `path` (exit 3) when reading `what` (a message
// of `message_bytes`) would take more than the memory limit:
// options.memory_limit_bytes, else the memory available.
void CheckRunSummaryMemory(uint64_t message_bytes, const std::string& path, const ReadOptions& options,
                           const std::string& what = "this run summary");
// Throws InputError naming `path` (exit 3) for anything but a whole summary
// of this schema version; `memory_limit_bytes` (0: none) bounds what
// reading may take.
RunSummary RunSummaryFromBytes(std::string_view bytes, const std::string& path, uint64_t memory_limit_bytes = 0);

// Throws InputError (exit 1, kExitOutputFailed) when the bytes cannot be written.
void WriteRunSummary(const RunSummary& summary, std::ostream& out, const std::string& path = "<stream>");
void WriteRunSummary(const RunSummary& summary, const std::string& path);
// The memory limit is options.memory_limit_bytes, else the memory available
// (memory_guard.h: $TFPROF_MEMORY_LIMIT, MemAvailable, cgroups); a file
// whose reading would pass it is refused before it is read.
RunSummary ReadRunSummary(const std::string& path, const ReadOptions& options = {});

}  // namespace tfprof
