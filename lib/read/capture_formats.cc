#include "lib/read/capture_formats.h"

#include "lib/read/chrome_trace_reader.h"
#include "lib/read/tf1_timeline_files.h"
#include "lib/read/trace_json_sniff.h"
#include "lib/read/xplane_reader.h"

namespace tfprof {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// --- XSpace (<host>.xplane.pb) ------------------------------------------------

constexpr std::string_view kXSpaceSuffixes[] = {".xplane.pb", ".xplane.pb.gz"};

// An XSpace starts with a length-delimited field 1..4 (planes, errors,
// warnings, hostnames): tag byte 0x0a, 0x12, 0x1a or 0x22. 0x0a is also a
// newline, so text that opens JSON after it is JSON.
bool StartsLikeXSpace(std::string_view head) {
  if (head.empty() || StartsLikeJson(head)) return false;
  const auto b = static_cast<unsigned char>(head[0]);
  return b == 0x0a || b == 0x12 || b == 0x1a || b == 0x22;
}

// --- Chrome trace JSON (TensorFlow, TF1 timeline, PyTorch Kineto, JAX) --------

// Longest first: PyTorch's `worker0.pt.trace.json.gz` is host `worker0`.
constexpr std::string_view kChromeTraceSuffixes[] = {".pt.trace.json.gz", ".pt.trace.json", ".trace.json.gz",
                                                     ".trace.json"};
// torch.profiler's export_chrome_trace examples, TF1's timeline.json.
constexpr std::string_view kChromeTraceBareNames[] = {"trace.json", "trace.json.gz", "timeline.json",
                                                      "timeline.json.gz"};

// TF1 timelines as users named them (timeline_01.json,
// timeline_xla.ctf.json): the host is the name without .json(.gz);
// numbered ones are gathered into one host later (tf1_timeline_files.h).
std::optional<std::string> Tf1TimelineHost(const std::string& file) {
  if (!IsTf1TimelineName(file)) return std::nullopt;
  return file.substr(0, file.size() - (file.back() == 'z' ? 8 : 5));
}

// The rows, XSpace first: names are matched in this order.
const CaptureFormatRow kRows[] = {
    {
        .format = CaptureFormat::kXSpace,
        .description = "an XSpace protobuf (.xplane.pb)",
        .recognised_names = "<host>.xplane.pb[.gz]",
        .host_suffixes = kXSpaceSuffixes,
        .bare_names = {},
        .host_preference = 1,
        .hides_unnamed_files = true,
        .starts_like = StartsLikeXSpace,
        .read = ReadXSpaceFile,
        // The model is about 1.5x the file; a gzip XSpace is inflated whole
        // and then decoded (its model: 2.5x the inflated bytes in all).
        .estimated_read_bytes = [](uint64_t file_bytes) { return file_bytes + file_bytes / 2; },
        .inflate_room = [](uint64_t available) { return available / 5 * 2; },
        .growth_nouns = {"planes", "lines", "stat names", "stats"},
    },
    {
        .format = CaptureFormat::kChromeTrace,
        .description = "Chrome trace JSON",
        .recognised_names = "<host>[.pt].trace.json[.gz], trace.json[.gz], timeline*.json[.gz], or any .json[.gz] "
                            "holding Chrome trace JSON (\"traceEvents\" or \"ph\" in its first 64 KiB)",
        .host_suffixes = kChromeTraceSuffixes,
        .bare_names = kChromeTraceBareNames,
        .host_from_other_name = Tf1TimelineHost,
        .starts_like = StartsLikeJson,
        .name_may_hold = HasJsonName,
        .holds_capture = LooksLikeTraceJson,
        .read = ReadChromeTraceFile,
        // JSON is streamed: the model is about half the text; inflated text
        // is not kept, so gzip may inflate to twice the memory.
        .estimated_read_bytes = [](uint64_t file_bytes) { return file_bytes / 2; },
        .inflate_room = [](uint64_t available) { return available * 2; },
        .growth_nouns = {"processes", "threads", "arg names", "args"},
    },
};

}  // namespace

std::span<const CaptureFormatRow> CaptureFormats() { return kRows; }

const CaptureFormatRow& FormatRow(CaptureFormat format) {
  for (const CaptureFormatRow& row : kRows)
    if (row.format == format) return row;
  return kRows[0];  // Unreachable: every CaptureFormat has a row (capture_formats_test.cc).
}

std::optional<NamedCapture> CaptureFromFileName(const std::string& file) {
  for (const CaptureFormatRow& row : kRows) {
    for (std::string_view suffix : row.host_suffixes)
      if (EndsWith(file, suffix)) return NamedCapture{row.format, file.substr(0, file.size() - suffix.size())};
    for (std::string_view name : row.bare_names)
      if (file == name) return NamedCapture{row.format, file.substr(0, file.find('.'))};
    if (row.host_from_other_name)
      if (std::optional<std::string> host = row.host_from_other_name(file)) return NamedCapture{row.format, *host};
  }
  return std::nullopt;
}

const CaptureFormatRow* FormatFromContent(std::string_view head) {
  for (const CaptureFormatRow& row : kRows)
    if (row.starts_like(head)) return &row;
  return nullptr;
}

}  // namespace tfprof
