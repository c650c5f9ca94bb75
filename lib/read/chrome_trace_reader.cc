// Chrome trace JSON reader: TraceJsonScanner (chrome_trace_scanner.h) streams
// the file and cuts the traceEvents array into batches of whole elements;
// each batch is parsed here with simdjson On-Demand into RawTraceEvents, which
// ChromeTraceBuilder (chrome_trace_builder.h) turns into the model.
#include "lib/read/chrome_trace_reader.h"

#include <simdjson.h>

#include <cstring>
#include <memory>

#include "lib/model/diagnostic_kinds.h"
#include "lib/model/errors.h"
#include "lib/read/byte_source.h"
#include "lib/read/chrome_trace_builder.h"
#include "lib/read/chrome_trace_conventions.h"
#include "lib/read/chrome_trace_decoder.h"
#include "lib/read/chrome_trace_scanner.h"
#include "lib/read/kineto_rank.h"

namespace tfprof {
namespace {

using simdjson::error_code;

// Serves JSON text already in memory through the ChunkReader interface.
class MemoryChunkReader : public ChunkReader {
 public:
  explicit MemoryChunkReader(std::string_view data) : data_(data) { file_size_ = data.size(); }
  size_t Read(char* out, size_t capacity) override {
    size_t n = std::min(capacity, data_.size() - offset_);
    if (n > 0) std::memcpy(out, data_.data() + offset_, n);
    offset_ += n;
    return n;
  }
  bool gzipped() const override { return false; }
  uint64_t file_offset() const override { return offset_; }

 private:
  std::string_view data_;
  size_t offset_ = 0;
};

// Enforces ReadOptions::max_inflated_bytes on a gzip stream (gzip bombs).
class LimitedChunkReader : public ChunkReader {
 public:
  LimitedChunkReader(std::unique_ptr<ChunkReader> inner, uint64_t limit, std::string path, std::string problem)
      : inner_(std::move(inner)), limit_(limit), path_(std::move(path)), problem_(std::move(problem)) {
    file_size_ = inner_->file_size();
  }
  size_t Read(char* out, size_t capacity) override {
    size_t n = inner_->Read(out, capacity);
    produced_ += n;
    if (limit_ && produced_ > limit_) throw InputError(path_, problem_);
    return n;
  }
  bool gzipped() const override { return inner_->gzipped(); }
  uint64_t file_offset() const override { return inner_->file_offset(); }

 private:
  std::unique_ptr<ChunkReader> inner_;
  uint64_t limit_;
  std::string path_;
  std::string problem_;
  uint64_t produced_ = 0;
};

// Replaces bytes that are not valid UTF-8 with '?', in place. Returns the
// number replaced.
size_t RepairUtf8(char* data, size_t size) {
  size_t fixed = 0;
  auto* p = reinterpret_cast<unsigned char*>(data);
  for (size_t i = 0; i < size;) {
    unsigned char c = p[i];
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = len > 0 && i + len <= size && !(c == 0xC0 || c == 0xC1 || c > 0xF4);
    for (size_t k = 1; ok && k < len; ++k) ok = (p[i + k] & 0xC0) == 0x80;
    if (ok && len == 3) {
      unsigned cp = ((c & 0x0Fu) << 12) | ((p[i + 1] & 0x3Fu) << 6);
      ok = cp >= 0x800 && (cp < 0xD800 || cp > 0xDFFF);  // No overlongs or surrogates.
    } else if (ok && len == 4) {
      unsigned cp = ((c & 0x07u) << 18) | ((p[i + 1] & 0x3Fu) << 12);
      ok = cp >= 0x10000 && cp <= 0x10FFFF;
    }
    if (ok) {
      i += len;
    } else {
      p[i++] = '?';
      ++fixed;
    }
  }
  return fixed;
}

// Byte offsets of the depth-0 commas in a run of traceEvents elements, so a
// batch that simdjson rejects can be retried one element at a time.
std::vector<size_t> ElementStarts(std::string_view elements) {
  std::vector<size_t> starts{0};
  int64_t depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < elements.size(); ++i) {
    char c = elements[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      --depth;
    } else if (c == ',' && depth == 0) {
      starts.push_back(i + 1);
    }
  }
  return starts;
}

// Receives the scanner's runs of elements and top-level values; parses the
// runs with TraceEventParser, falling back to one element at a time when a
// run has a problem.
class TraceSink : public TraceScanConsumer {
 public:
  TraceSink(const std::string& path, ChromeTraceBuilder& builder) : path_(path), builder_(builder), parser_(builder) {}

  void OnElements(char* elements, size_t size, uint64_t offset) override {
    size_t done = 0;
    // Parse in place: the scanner lets us bracket the run with [ ] for a
    // moment, which saves copying every byte of the file.
    char before = elements[-1], after = elements[size];
    elements[-1] = '[';
    elements[size] = ']';
    error_code error = parser_.ParseArray(elements - 1, size + 2, size + 2 + kPaddingAfter, &done);
    elements[-1] = before;
    elements[size] = after;
    if (error == simdjson::SUCCESS) return;
    // Something in the run is wrong: redo the rest one element at a time
    // to tell a bad element (too deep, bad UTF-8: counted) from broken
    // JSON (an error naming its byte).
    std::string_view run(elements, size);
    std::vector<size_t> starts = ElementStarts(run);
    for (size_t k = done; k < starts.size(); ++k) {
      size_t begin = starts[k], end = k + 1 < starts.size() ? starts[k + 1] - 1 : size;
      ParseAlone(run.substr(begin, end - begin), offset + begin);
    }
  }

  bool WantsTopLevelValue(std::string_view key) override {
    return key == "deviceProperties" || key == "host_name" || key == "distributedInfo" || key == "tfprofExport";
  }
  void OnTopLevelValue(std::string_view key, std::string_view raw_json) override {
    if (key == "tfprofExport") exported_ = true;
    else if (key == "deviceProperties") device_properties_ = std::string(raw_json);
    else if (key == "distributedInfo") rank_ = RankOfDistributedInfo(raw_json);
    else host_name_ = std::string(raw_json);
  }

  // Applies what the top-level keys said; call after the scan.
  void ApplyTopLevel(Host& host) {
    host.rank = rank_;
    simdjson::dom::parser parser;
    if (!host_name_.empty()) {
      std::string_view name;
      if (parser.parse(host_name_).get_string().get(name) == simdjson::SUCCESS && !name.empty())
        host.hostnames.emplace_back(name);
    }
    if (device_properties_.empty()) return;
    simdjson::dom::array devices;
    if (parser.parse(device_properties_).get_array().get(devices) != simdjson::SUCCESS) {
      builder_.Count(TraceDiag::kBadFieldType, "deviceProperties");
      return;
    }
    for (simdjson::dom::element d : devices) {
      int64_t id;
      if (d["id"].get_int64().get(id) != simdjson::SUCCESS) continue;
      DeviceProperties p;
      std::string_view name;
      if (d["name"].get_string().get(name) == simdjson::SUCCESS) p.name = std::string(name);
      int64_t v;
      if (d["totalGlobalMem"].get_int64().get(v) == simdjson::SUCCESS) p.memory_bytes = v;
      if (d["computeMajor"].get_int64().get(v) == simdjson::SUCCESS) p.compute_cap_major = static_cast<int>(v);
      if (d["computeMinor"].get_int64().get(v) == simdjson::SUCCESS) p.compute_cap_minor = static_cast<int>(v);
      if (d["numSms"].get_int64().get(v) == simdjson::SUCCESS) p.core_count = v;
      // Kineto does not name the vendor; the device name does.
      for (const char* amd : {"AMD", "Radeon", "Instinct"})
        if (p.name.find(amd) != std::string::npos) p.vendor = "AMD";
      for (const char* nv : {"NVIDIA", "Tesla", "Quadro", "GeForce", "TITAN"})
        if (p.name.find(nv) != std::string::npos) p.vendor = "Nvidia";
      builder_.AddDeviceProperties(id, std::move(p));
    }
  }

 private:
  void ParseAlone(std::string_view element, uint64_t offset) {
    // Copy into a padded buffer as a one-element array.
    std::string json;
    json.reserve(element.size() + 2 + simdjson::SIMDJSON_PADDING);
    json.append(1, '[').append(element).append(1, ']');
    size_t length = json.size();
    json.append(simdjson::SIMDJSON_PADDING, ' ');
    size_t done = 0;
    error_code error = parser_.ParseArray(json.data(), length, json.size(), &done);
    if (error == simdjson::UTF8_ERROR) {
      builder_.Count(TraceDiag::kInvalidUtf8, {}, RepairUtf8(json.data(), length));
      error = parser_.ParseArray(json.data(), length, json.size(), &done);
    }
    if (error == simdjson::SUCCESS) return;
    if (error == simdjson::DEPTH_ERROR) {
      builder_.Count(TraceDiag::kTooDeep, element.substr(0, 60));
      return;
    }
    size_t leading = element.find_first_not_of(" \t\r\n");
    throw InputError(path_, "invalid JSON at byte " + std::to_string(offset + (leading == element.npos ? 0 : leading)) +
                                ": " + simdjson::error_message(error) + " (in the trace event starting there)");
  }

  const std::string& path_;
  ChromeTraceBuilder& builder_;
  TraceEventParser parser_;
  std::string device_properties_, host_name_;
  std::optional<int64_t> rank_;  // PyTorch's distributedInfo.rank (kineto_rank.h).

 public:
  bool exported_ = false;  // Written by `tfprof-analyze trace`: already in the XPlane's conventions.
};

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() > suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string HostNameFromPath(const std::string& path) {
  std::string base = path.substr(path.find_last_of('/') + 1);
  for (const char* suffix :
       {".pt.trace.json.gz", ".pt.trace.json", ".trace.json.gz", ".trace.json", ".json.gz", ".json", ".gz"})
    if (EndsWith(base, suffix)) return base.substr(0, base.size() - std::strlen(suffix));
  return base;
}

Host Read(ChunkReader& input, const std::string& path, Diagnostics& diagnostics, const ReadOptions& options) {
  Host host;
  host.name = HostNameFromPath(path);
  host.source_path = path;
  host.format = CaptureFormat::kChromeTrace;
  host.gzipped = input.gzipped();
  host.file_bytes = input.file_size();
  ChromeTraceBuilder builder(host, diagnostics, options);
  TraceSink sink(path, builder);
  TraceJsonScanner scanner(path, input, sink);
  TraceScanResult result = scanner.Run();
  if (result.unterminated_array) builder.Count(TraceDiag::kUnterminatedArray);
  sink.ApplyTopLevel(host);
  builder.Finish();
  // TensorFlow's and Kineto's own conventions onto the XPlane's; our own
  // export follows them already (applied twice, Kineto's would merge planes again).
  if (sink.exported_) diagnostics.Add(diag_kind::kJsonTfprofExport, path);
  else ApplyChromeTraceConventions(host, diagnostics);
  return host;
}

}  // namespace

Host ReadChromeTraceFile(const std::string& path, Diagnostics& diagnostics, const ReadOptions& options) {
  std::unique_ptr<ChunkReader> input = ChunkReader::Open(path);
  if (input->gzipped())
    input = std::make_unique<LimitedChunkReader>(std::move(input), options.max_inflated_bytes, path,
                                                 options.InflateLimitProblem());
  return Read(*input, path, diagnostics, options);
}

Host ReadChromeTraceText(std::string_view json, const std::string& path, Diagnostics& diagnostics,
                         const ReadOptions& options) {
  MemoryChunkReader input(json);
  return Read(input, path, diagnostics, options);
}

}  // namespace tfprof
