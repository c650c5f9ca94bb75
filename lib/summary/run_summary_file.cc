#include "lib/summary/run_summary_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "fmt/format.h"
#include "lib/model/errors.h"
#include "lib/read/memory_budget.h"
#include "lib/read/memory_guard.h"
#include "lib/summary/run_summary_proto.h"

namespace tfprof {
namespace {

// The parts' converters (run_summary_proto.h), which the overloads below
// would otherwise hide.
using ::tfprof::FromProto;
using ::tfprof::ToProto;

[[noreturn]] void Corrupt(const std::string& problem) { throw InputError("", "run summary: " + problem); }

static_assert(static_cast<int>(CaptureFormat::kChromeTrace) == summary::CAPTURE_CHROME_TRACE);
static_assert(static_cast<int>(Compat::kTfLegacy) == summary::COMPAT_TF_LEGACY);

void ToProto(const AnalysisOptions& in, summary::AnalysisOptions* out) {
  out->set_compat(static_cast<summary::Compat>(in.compat));
  out->set_step_marker(in.step_marker);
  out->set_steps_between(in.steps_between);
  out->set_whole_trace(in.whole_trace);
}

AnalysisOptions FromProto(const summary::AnalysisOptions& in) {
  AnalysisOptions out;
  if (in.compat() < 0 || in.compat() > summary::COMPAT_TF_LEGACY)
    Corrupt(fmt::format("unknown compat {}", in.compat()));
  out.compat = static_cast<Compat>(in.compat());
  out.step_marker = in.step_marker();
  out.steps_between = in.steps_between();
  out.whole_trace = in.whole_trace();
  return out;
}

void PutLittleEndian(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((value >> (8 * i)) & 0xff);
}

uint64_t GetLittleEndian(std::string_view in, size_t at, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= uint64_t{static_cast<unsigned char>(in[at + i])} << (8 * i);
  return value;
}

std::string TooBigProblem(uint64_t needs, uint64_t limit, bool limit_from_env,
                          const std::string& what = "this run summary") {
  return "reading " + what + " needs about " + MemorySize(needs) + ", more than " +
         (limit_from_env ? "the " + MemorySize(limit) +
                               " memory limit (set TFPROF_MEMORY_LIMIT higher if this "
                               "machine has the memory)"
                         : "the " + MemorySize(limit) + " of memory available");
}

}  // namespace

void ToProto(const HostPartials& in, summary::HostPartials* out) {
  out->set_order(in.order);
  out->set_source(in.source);
  out->set_source_sha256(in.source_sha256);
  out->set_host(in.host);
  out->set_format(static_cast<summary::CaptureFormat>(in.format));
  ToProto(in.ops, out->mutable_ops());
  ToProto(in.steps, out->mutable_steps());
  ToProto(in.memory, out->mutable_memory());
  ToProto(in.tf_data, out->mutable_tf_data());
  ToProto(in.read_diagnostics, out->mutable_read_diagnostics());
  ToProto(in.diagnostics.grouping, out->mutable_grouping_diagnostics());
  ToProto(in.diagnostics.ops, out->mutable_ops_diagnostics());
  if (in.diagnostics.ops_by_side) {
    ToProto(in.diagnostics.ops_host, out->mutable_ops_host_diagnostics());
    ToProto(in.diagnostics.ops_device, out->mutable_ops_device_diagnostics());
    out->set_ops_diagnostics_by_side(true);
  }
  ToProto(in.diagnostics.steps, out->mutable_steps_diagnostics());
  ToProto(in.diagnostics.memory, out->mutable_memory_diagnostics());
  ToProto(in.diagnostics.tf_data, out->mutable_tf_data_diagnostics());
  out->set_memory_grouped(in.diagnostics.memory_grouped);
}

HostPartials FromProto(const summary::HostPartials& in) {
  HostPartials out;
  out.order = in.order();
  out.source = in.source();
  out.source_sha256 = in.source_sha256();
  out.host = in.host();
  if (in.format() < 0 || in.format() > summary::CAPTURE_CHROME_TRACE)
    Corrupt(fmt::format("unknown capture format {}", in.format()));
  out.format = static_cast<CaptureFormat>(in.format());
  out.ops = FromProto(in.ops());
  out.steps = FromProto(in.steps());
  out.memory = FromProto(in.memory());
  out.tf_data = FromProto(in.tf_data());
  out.read_diagnostics = FromProto(in.read_diagnostics());
  out.diagnostics.grouping = FromProto(in.grouping_diagnostics());
  out.diagnostics.ops = FromProto(in.ops_diagnostics());
  out.diagnostics.ops_by_side = in.ops_diagnostics_by_side();
  if (out.diagnostics.ops_by_side) {
    out.diagnostics.ops_host = FromProto(in.ops_host_diagnostics());
    out.diagnostics.ops_device = FromProto(in.ops_device_diagnostics());
  }
  out.diagnostics.steps = FromProto(in.steps_diagnostics());
  out.diagnostics.memory = FromProto(in.memory_diagnostics());
  out.diagnostics.tf_data = FromProto(in.tf_data_diagnostics());
  out.diagnostics.memory_grouped = in.memory_grouped();
  return out;
}

// The message's length, after checking the header against the file's
// size: the magic, the version, and a length that is the rest of the file.
uint64_t CheckRunSummaryHeader(std::string_view header, uint64_t file_bytes, const std::string& path) {
  const std::string_view magic = header.substr(0, kRunSummaryMagic.size());
  if (magic != kRunSummaryMagic.substr(0, magic.size()) || header.empty())
    throw InputError(path, "not a tfprof-analyze run summary (no run summary header)");
  if (header.size() < kRunSummaryHeaderBytes)
    throw InputError(path, fmt::format("truncated run summary: {} bytes, less than its {}-byte header", file_bytes,
                                       kRunSummaryHeaderBytes));
  const auto version = static_cast<uint32_t>(GetLittleEndian(header, 8, 4));
  if (version != kRunSummarySchemaVersion)
    throw InputError(path, fmt::format("run summary schema version {}, this tfprof-analyze reads version {} "
                                       "(summarise the captures again with this version)",
                                       version, kRunSummarySchemaVersion));
  const uint64_t length = GetLittleEndian(header, 12, 8);
  const uint64_t after_header = file_bytes - kRunSummaryHeaderBytes;
  if (length > kRunSummaryMaxMessageBytes)
    throw InputError(path, fmt::format("corrupt run summary: its header claims a {} message, beyond the 2 GiB "
                                       "protobuf reads",
                                       MemorySize(length)));
  if (length > after_header)
    throw InputError(path, fmt::format("truncated run summary: its header says {} bytes follow, the file has {}",
                                       length, after_header));
  if (length < after_header)
    throw InputError(
        path, fmt::format("corrupt run summary: {} bytes past the {} its header says", after_header - length, length));
  return length;
}

void ToProto(const RunSummary& in, summary::RunSummary* out) {
  out->set_schema_version(in.schema_version);
  out->set_run(in.run);
  out->set_parts(in.parts.bits);
  ToProto(in.options, out->mutable_options());
  ToProto(in.input_diagnostics, out->mutable_input_diagnostics());
  out->mutable_hosts()->Reserve(static_cast<int>(in.hosts.size()));
  for (const HostPartials& h : in.hosts) ToProto(h, out->add_hosts());
  out->set_tool(in.tool);
  out->set_run_folder(in.run_folder);
  for (const RunSummary::DroppedCopy& d : in.dropped_copies) {
    summary::DroppedCopy* c = out->add_dropped_copies();
    c->set_source(d.source);
    c->set_host(d.host);
    c->set_kept_host(d.kept_host);
    c->set_sha256(d.sha256);
  }
}

RunSummary FromProto(const summary::RunSummary& in) {
  if (in.schema_version() != kRunSummarySchemaVersion)
    Corrupt(fmt::format("schema version {}, this tfprof-analyze reads version {}", in.schema_version(),
                        kRunSummarySchemaVersion));
  RunSummary out;
  out.schema_version = in.schema_version();
  out.run = in.run();
  // Parts a later version added (an additive change) are not read, so the
  // summary does not claim them.
  out.parts.bits = in.parts() & SummaryParts::Known().bits;
  out.options = FromProto(in.options());
  out.input_diagnostics = FromProto(in.input_diagnostics());
  out.tool = in.tool();
  out.run_folder = in.run_folder();
  out.hosts.reserve(in.hosts_size());
  for (const auto& h : in.hosts()) {
    HostPartials host = FromProto(h);
    // CombineRunSummaries and the folds rely on hosts in canonical order, each once.
    if (!out.hosts.empty() && !HostKeyLess(out.hosts.back(), host))
      Corrupt(fmt::format(
          "host {} (file '{}', order {}) after host {} (file '{}', order {}): hosts must be in "
          "ascending order of file name and order, each once",
          host.host, host.source, host.order, out.hosts.back().host, out.hosts.back().source, out.hosts.back().order));
    out.hosts.push_back(std::move(host));
  }
  for (const auto& d : in.dropped_copies()) {
    if (!out.dropped_copies.empty() && d.source() <= out.dropped_copies.back().source)
      Corrupt("dropped copies must be in ascending order of file name, each once");
    out.dropped_copies.push_back({d.source(), d.host(), d.sha256(), d.kept_host()});
  }
  return out;
}

std::string RunSummaryToBytes(const RunSummary& run) {
  summary::RunSummary message;
  ToProto(run, &message);
  const std::string body = SerializeDeterministic(message);
  return RunSummaryHeader(run.schema_version, body.size()) + body;
}

std::string RunSummaryHeader(uint32_t schema_version, uint64_t message_bytes) {
  std::string out(kRunSummaryMagic);
  PutLittleEndian(out, schema_version, 4);
  PutLittleEndian(out, message_bytes, 8);
  return out;
}

void CheckRunSummaryMemory(uint64_t message_bytes, const std::string& path, const ReadOptions& options,
                           const std::string& what) {
  bool from_env = options.memory_limit_from_env;
  uint64_t limit = options.memory_limit_bytes;
  if (!limit) limit = AvailableMemoryBytes(&from_env).value_or(0);
  if (limit && message_bytes * kRunSummaryReadBytesPerByte > limit)
    throw InputError(path, TooBigProblem(message_bytes * kRunSummaryReadBytesPerByte, limit, from_env, what));
}

RunSummary RunSummaryFromBytes(std::string_view bytes, const std::string& path, uint64_t memory_limit_bytes) {
  const uint64_t length = CheckRunSummaryHeader(bytes.substr(0, kRunSummaryHeaderBytes), bytes.size(), path);
  if (memory_limit_bytes && length * kRunSummaryReadBytesPerByte > memory_limit_bytes)
    throw InputError(path, TooBigProblem(length * kRunSummaryReadBytesPerByte, memory_limit_bytes, false));

  summary::RunSummary message;
  if (!message.ParseFromArray(bytes.data() + kRunSummaryHeaderBytes, static_cast<int>(length)))
    throw InputError(path, "corrupt run summary: its message does not parse");
  try {
    return FromProto(message);
  } catch (const InputError& e) {
    throw InputError(path, std::string("corrupt ") + e.what());
  }
}

void WriteRunSummary(const RunSummary& summary, std::ostream& out, const std::string& path) {
  const std::string bytes = RunSummaryToBytes(summary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.flush();
  if (!out) throw InputError(path, "cannot write the run summary", kExitOutputFailed);
}

void WriteRunSummary(const RunSummary& summary, const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw InputError(path, std::string("cannot write: ") + std::strerror(errno), kExitOutputFailed);
  WriteRunSummary(summary, out, path);
}

RunSummary ReadRunSummary(const std::string& path, const ReadOptions& options) {
  std::ifstream in(path, std::ios::binary);
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (!in || ec) throw InputError(path, "cannot read: " + (ec ? ec.message() : std::string(std::strerror(errno))));
  // The header first: a wrong, truncated or absurdly long file is refused
  // before its bulk is read.
  std::string bytes(std::min<uint64_t>(size, kRunSummaryHeaderBytes), '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  const uint64_t length = CheckRunSummaryHeader(bytes, size, path);
  CheckRunSummaryMemory(length, path, options);
  bytes.resize(size);
  in.read(bytes.data() + kRunSummaryHeaderBytes, static_cast<std::streamsize>(length));
  if (static_cast<uint64_t>(in.gcount()) != length) throw InputError(path, "cannot read: the file shrank while read");
  return RunSummaryFromBytes(bytes, path, 0);
}

}  // namespace tfprof
