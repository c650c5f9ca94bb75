// Chrome trace JSON reader: TraceJsonScanner (chrome_trace_scanner.h) streams
// the file and cuts the traceEvents array into runs of whole elements;
// parsers decode the runs with simdjson On-Demand into RawTraceEvents
// (chrome_trace_decoder.h), which ChromeTraceBuilder (chrome_trace_builder.h)
// turns into the model, in file order: chrome_trace_pipeline.h runs the
// three on their own threads.
#include "lib/read/chrome_trace_reader.h"

#include <simdjson.h>

#include <cstring>
#include <memory>

#include "lib/model/diagnostic_kinds.h"
#include "lib/model/errors.h"
#include "lib/read/byte_source.h"
#include "lib/read/chrome_trace_builder.h"
#include "lib/read/chrome_trace_conventions.h"
#include "lib/read/chrome_trace_pipeline.h"
#include "lib/read/kineto_rank.h"
#include "lib/util/phase_times.h"

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

// Keeps the top-level values the reader wants (the scanner's thread hands
// them over during the read) and applies them to the host after it.
class TraceSink final : public TopLevelValueSink {
 public:
  explicit TraceSink(ChromeTraceBuilder& builder) : builder_(builder) {}

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
  ChromeTraceBuilder& builder_;
  std::string device_properties_, host_name_;
  std::optional<int64_t> rank_;  // PyTorch's distributedInfo.rank (kineto_rank.h).

 public:
  bool exported_ = false;  // Written by `tfprof-analyze trace`: already in the XPlane's conventions.
};

// What a value of the event array that is no object is, from the start of
// its text the decoder kept (an array's first character, a scalar's first
// 40), and whether it is JSON at all: the decoder does not check such a
// value, so `abc` or `1.` get this far. simdjson reads a scalar kept whole.
struct OtherValue {
  std::string said;
  bool json = true;
  bool array = false;
};
OtherValue OtherValueOf(std::string_view token) {
  if (token.empty()) return {"an empty value", false};
  if (token[0] == '[') return {"an array", true, true};
  if (token[0] == '"') return {"a string"};  // The scanner framed it.
  const std::string text(token);
  if (token.size() >= 40) return {"a value starting " + text};  // Cut: not checked.
  simdjson::dom::parser parser;
  simdjson::dom::element value;
  if (parser.parse(simdjson::padded_string(token)).get(value) != simdjson::SUCCESS)
    return {"'" + text + "', which is not a JSON value", false};
  switch (value.type()) {
    case simdjson::dom::element_type::BOOL: return {"a boolean"};
    case simdjson::dom::element_type::NULL_VALUE: return {"null"};
    default: return {"the number " + text};
  }
}

// The error for a bare array none of whose `others` values is an object.
InputError NoEventObject(const std::string& path, uint64_t others, std::string_view first_token) {
  const OtherValue first = OtherValueOf(first_token);
  // Rows of arrays are what torch.profiler's export_memory_timeline writes
  // (HTA's memory_timeline.raw.gz): said, since users take it for a trace.
  const bool rows = first.array && others > 1;
  return InputError(path,
                    std::string(first.json ? "JSON but not a Chrome trace" : "not a Chrome trace, nor valid JSON") +
                        ": an array with no event object, only " +
                        (others == 1 ? "one other value: " + first.said
                                     : std::to_string(others) + " other values (the first: " + first.said + ")") +
                        (rows ? "; rows such as torch.profiler's export_memory_timeline writes are not a "
                                "trace: give the trace itself (recorded with profile_memory=True for a memory "
                                "profile)"
                              : ""));
}

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
  TraceSink sink(builder);
  PhaseTimer events_phase("read trace: scan, parse, build");
  TraceScanResult result = ReadTraceEvents(path, input, sink, builder);
  events_phase.Stop();
  if (result.unterminated_array) builder.Count(TraceDiag::kUnterminatedArray);
  // A bare array none of whose values is an object is some other JSON (a
  // list of numbers, HTA's memory timeline), not a trace with bad events:
  // refused as its format (exit 3), not read as an empty trace. A document
  // with a traceEvents key says it is a trace: its bad events are counted.
  if (result.bare_array && !builder.objects_met() && builder.Counted(TraceDiag::kNonObjectEvent) > 0)
    throw NoEventObject(path, builder.Counted(TraceDiag::kNonObjectEvent),
                        builder.FirstExample(TraceDiag::kNonObjectEvent));
  sink.ApplyTopLevel(host);
  PhaseTimer finish_phase("read trace: finish lines");
  builder.Finish();
  finish_phase.Stop();
  // TensorFlow's and Kineto's own conventions onto the XPlane's; our own
  // export follows them already (applied twice, Kineto's would merge planes again).
  PhaseTimer conventions_phase("read trace: conventions");
  if (sink.exported_) diagnostics.Add(diag_kind::kJsonTfprofExport, path);
  else ApplyChromeTraceConventions(host, diagnostics, builder.MachineModel());
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
