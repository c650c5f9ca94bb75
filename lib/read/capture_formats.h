// What the readers know about each capture format, in one table: how its
// files are named, how its content is recognised, which reader reads it and
// how much memory reading it takes. Discovery (capture_discovery.h),
// loading (capture_loader.h), the memory guard (memory_guard.h) and the
// budget's wording (memory_budget.h) all ask this table and never test a
// format themselves.
//
// The code tells two formats apart by content: the XSpace protobuf and
// Chrome trace JSON. The JSON flavours (TensorFlow's trace viewer JSON, TF1
// timelines, PyTorch's Kineto, JAX's Perfetto export) are one format here:
// one reader reads them all and lib/read/chrome_trace_conventions.h maps
// their conventions after reading.
//
// Adding a format: a CaptureFormat value (lib/model/model.h, with its name
// in CaptureFormatName), its reader, and one row in capture_formats.cc;
// tests/read/capture_formats_test.cc then checks that its names and its
// content resolve to it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "lib/model/diagnostics.h"
#include "lib/model/model.h"
#include "lib/read/read_options.h"

namespace tfprof {

// What the memory budget's error calls the things that grow, in the
// format's own words (an XSpace's planes are a JSON trace's processes).
struct GrowthNouns {
  std::string_view planes, lines, stat_names, stats;
};

struct CaptureFormatRow {
  CaptureFormat format;
  // For the "unknown format: neither ... nor ..." error.
  std::string_view description;
  // For the "no captures found: recognised are ..." error.
  std::string_view recognised_names;

  // --- File names (a run folder's files are taken by name first) ---------
  // "<host><suffix>", longest first where one ends another
  // (worker0.pt.trace.json.gz is host worker0, not worker0.pt).
  std::span<const std::string_view> host_suffixes;
  // Whole names exporters write, the host being the part before the first
  // '.' (trace.json → host "trace").
  std::span<const std::string_view> bare_names;
  // Any further naming rule (TF1 timeline_01.json): the host, or nullopt.
  std::optional<std::string> (*host_from_other_name)(const std::string& file) = nullptr;
  // Among files of one host, the one of the highest preference is read:
  // TensorFlow writes trace JSON beside the xplane.pb from the same data.
  int host_preference = 0;
  // Whether a folder holding a file of this format is not searched by
  // content: JSON under other names beside an XSpace (JAX's
  // perfetto_trace.json.gz) is a view of the same capture, not a host.
  bool hides_unnamed_files = false;

  // --- Content --------------------------------------------------------
  // Whether the first bytes of a file (inflated, at least 4 KiB where the
  // file has them) are of this format. Rows' sniffs exclude each other.
  bool (*starts_like)(std::string_view head) = nullptr;
  // Files no name rule claims are taken when their name may hold this
  // format and `holds_capture` finds it in their first bytes (a stricter
  // test than starts_like, reading a bounded prefix; an unreadable or
  // corrupt file holds none). nullptr: files of this format are only taken
  // by name.
  bool (*name_may_hold)(const std::string& file) = nullptr;
  bool (*holds_capture)(const std::string& path) = nullptr;

  // --- Reading --------------------------------------------------------
  Host (*read)(const std::string& path, Diagnostics& diagnostics, const ReadOptions& options) = nullptr;
  // Memory the model built from a plain file of `file_bytes` needs.
  uint64_t (*estimated_read_bytes)(uint64_t file_bytes) = nullptr;
  // The most a gzip file may inflate to with `available` bytes of memory
  // (the inflated size is unknown until read).
  uint64_t (*inflate_room)(uint64_t available) = nullptr;
  GrowthNouns growth_nouns;
};

// Every format, XSpace first.
std::span<const CaptureFormatRow> CaptureFormats();
const CaptureFormatRow& FormatRow(CaptureFormat format);

// A capture recognised by its file name.
struct NamedCapture {
  CaptureFormat format;
  std::string host;
};
// The format and host a file name says, by the rows' name rules in order;
// nullopt for a name no row claims.
std::optional<NamedCapture> CaptureFromFileName(const std::string& file);

// The row whose content sniff the first bytes of a file match; nullptr when
// none does.
const CaptureFormatRow* FormatFromContent(std::string_view head);

// The first bytes DetectFormat reads (capture_discovery.h).
inline constexpr size_t kFormatSniffBytes = 4096;

}  // namespace tfprof
