// Reads `*.xplane.pb` (an XSpace protobuf, optionally gzip-compressed) into a
// Host, walking the wire format directly (no generated message classes: they
// cannot parse 2 GiB or more and cost 5-10x the time and memory).
#pragma once

#include <cstdint>
#include <functional>
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

// For tests: ReadXSpaceBytes, calling release(begin, end) with each byte
// range of `bytes` the reader is done with, where ReadXSpaceFile gives the
// mapped file's pages back.
Host ReadXSpaceBytesForTesting(std::string_view bytes, const std::string& path, Diagnostics& diagnostics,
                               const ReadOptions& options, std::function<void(uint64_t, uint64_t)> release);

// Receives a capture's events a batch at a time from StreamXSpaceFile, in
// the capture's order: BeginPlane, then for each of its lines BeginLine and
// Events any number of times.
class XSpaceEventSink {
 public:
  virtual ~XSpaceEventSink() = default;
  // host.planes[p] holds its name, id, metadata and plane stats (no lines
  // yet); host.name is the host's name as ReadXSpaceFile gives it.
  virtual void BeginPlane(const Host& host, size_t p) = 0;
  // host.planes[p].lines[l] holds the line's own fields, not its events.
  virtual void BeginLine(const Host& host, size_t p, size_t l) = 0;
  // Consecutive events of that line as the model would hold them (times
  // from host.time_origin_ns, durations clamped, stats decoded), but in the
  // capture's order, unsorted. Their string stat values are ids in
  // `batch_strings`, which lives for this call only; every other string
  // (names, metadata stats) is in host.strings.
  virtual void Events(const Host& host, size_t p, size_t l, const Line& batch, const StringPool& batch_strings) = 0;
};

// Reads an XSpace file as ReadXSpaceFile does, with every event stat, but
// keeps no event: each line's events are decoded a batch at a time, handed
// to `sink` and dropped, and the file's pages are given back behind the
// decoder. The memory it takes is the planes' metadata and one batch,
// whatever the file's size (`trace` writes gigabytes this way). The host it
// returns holds everything but events. Gzipped files are refused (exit 2):
// they are read whole by ReadXSpaceFile. Throws InputError as it does.
Host StreamXSpaceFile(const std::string& path, XSpaceEventSink& sink, Diagnostics& diagnostics,
                      const ReadOptions& options = {});

}  // namespace tfprof
