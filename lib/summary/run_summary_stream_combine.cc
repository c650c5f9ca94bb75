#include "lib/summary/run_summary_stream_combine.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <tuple>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/wire_format_lite.h"
#include "lib/model/errors.h"
#include "lib/read/byte_source.h"
#include "lib/summary/run_summary_combine.h"
#include "lib/summary/run_summary_file.h"
#include "lib/summary/run_summary_proto.h"

namespace tfprof {
namespace {

using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedInputStream;

// RunSummary.hosts: field 6, length-delimited.
constexpr uint32_t kHostsField = 6;
constexpr uint32_t kHostsTag = (kHostsField << 3) | WireFormatLite::WIRETYPE_LENGTH_DELIMITED;

// Where one host's message lies, and what orders and names it.
struct HostRef {
  std::string source;
  uint32_t order = 0;
  std::string sha256, host;
  size_t file = 0;      // Index into the paths.
  uint64_t offset = 0;  // Of the host's message in its file.
  uint32_t length = 0;
};

[[noreturn]] void Corrupt(const std::string& path, const std::string& problem) {
  throw InputError(path, "corrupt run summary: " + problem);
}

// The host's key fields (order 1, host 2, source 10, source_sha256 11),
// skipping the rest without reading it.
bool ReadHostKey(const uint8_t* data, uint32_t length, HostRef& ref) {
  CodedInputStream in(data, static_cast<int>(length));
  for (uint32_t tag; (tag = in.ReadTag()) != 0;) {
    const uint32_t field = tag >> 3;
    if (field == 1 && WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_VARINT) {
      if (!in.ReadVarint32(&ref.order)) return false;
    } else if ((field == 2 || field == 10 || field == 11) &&
               WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      std::string& to = field == 2 ? ref.host : field == 10 ? ref.source : ref.sha256;
      if (!WireFormatLite::ReadBytes(&in, &to)) return false;
    } else if (!WireFormatLite::SkipField(&in, tag)) {
      return false;
    }
  }
  return in.ConsumedEntireMessage();
}

// Pass 1 over one file: its hosts' places and keys into `hosts`, every
// other field of its message (the run's metadata) as a summary without hosts.
RunSummary ScanFile(const std::string& path, size_t file, std::vector<HostRef>& hosts) {
  std::unique_ptr<MappedFile> mapped = MappedFile::Open(path);
  const std::string_view bytes = mapped->bytes();
  const uint64_t length = CheckRunSummaryHeader(bytes.substr(0, kRunSummaryHeaderBytes), bytes.size(), path);
  const auto* body = reinterpret_cast<const uint8_t*>(bytes.data() + kRunSummaryHeaderBytes);
  CodedInputStream in(body, static_cast<int>(length));
  std::string rest;  // The non-host fields, as they are on the wire.
  for (;;) {
    const int start = in.CurrentPosition();
    const uint32_t tag = in.ReadTag();
    if (tag == 0) break;
    if (tag == kHostsTag) {
      uint32_t size = 0;
      if (!in.ReadVarint32(&size)) Corrupt(path, "its message does not parse");
      HostRef ref;
      ref.file = file;
      ref.offset = kRunSummaryHeaderBytes + static_cast<uint64_t>(in.CurrentPosition());
      ref.length = size;
      if (ref.offset + size > bytes.size() || !ReadHostKey(body + in.CurrentPosition(), size, ref) || !in.Skip(size))
        Corrupt(path, "its message does not parse");
      hosts.push_back(std::move(ref));
      continue;
    }
    if (!WireFormatLite::SkipField(&in, tag)) Corrupt(path, "its message does not parse");
    rest.append(reinterpret_cast<const char*>(body) + start, static_cast<size_t>(in.CurrentPosition() - start));
  }
  if (!in.ConsumedEntireMessage() || static_cast<uint64_t>(in.CurrentPosition()) != length)
    Corrupt(path, "its message does not parse");
  summary::RunSummary meta;
  if (!meta.ParseFromString(rest)) Corrupt(path, "its message does not parse");
  try {
    return FromProto(meta);
  } catch (const InputError& e) {
    throw InputError(path, std::string("corrupt ") + e.what());
  }
}

bool KeyLess(const HostRef& a, const HostRef& b) { return std::tie(a.source, a.order) < std::tie(b.source, b.order); }

// A host's field in the message: its tag, its length, then its bytes.
std::string HostFieldPrefix(uint32_t length) {
  uint8_t buffer[10];  // Two varint32s of at most 5 bytes each.
  uint8_t* end = google::protobuf::io::CodedOutputStream::WriteVarint32ToArray(kHostsTag, buffer);
  end = google::protobuf::io::CodedOutputStream::WriteVarint32ToArray(length, end);
  return std::string(reinterpret_cast<const char*>(buffer), static_cast<size_t>(end - buffer));
}

}  // namespace

void CombineRunSummaryFiles(const std::vector<std::string>& paths, std::ostream& out, const ReadOptions& options) {
  // Pass 1: the run's metadata combined as CombineRunSummaries combines it
  // (options, parts, diagnostics, names, dropped copies); the hosts' keys.
  RunSummary run;
  std::vector<HostRef> hosts;
  for (size_t i = 0; i < paths.size(); ++i) {
    RunSummary meta = ScanFile(paths[i], i, hosts);
    try {
      CombineRunSummaries(run, std::move(meta));
    } catch (const std::invalid_argument& e) {
      throw InputError(paths[i], std::string("does not combine with the summaries before it: ") + e.what());
    }
  }
  // Within a file hosts are in canonical order; across files, merged.
  std::stable_sort(hosts.begin(), hosts.end(), KeyLess);
  for (size_t i = 1; i < hosts.size(); ++i) {
    const HostRef &a = hosts[i - 1], &b = hosts[i];
    if (KeyLess(a, b)) continue;
    if (a.file == b.file) Corrupt(paths[a.file], "hosts must be in ascending order of file name and order, each once");
    throw InputError(paths[std::max(a.file, b.file)],
                     "does not combine with the summaries before it: two run summaries hold host " + b.host +
                         " of capture file '" + b.source + "' (order " + std::to_string(b.order) + ")");
  }
  // Byte-identical captures: the first by key stays, as CombineRunSummaries keeps it.
  std::vector<HostIdentity> ids;
  ids.reserve(hosts.size());
  for (const HostRef& h : hosts) ids.push_back({h.source, h.host, h.sha256});
  const std::vector<bool> keep = DropByteIdenticalCopies(ids, run);
  std::vector<HostRef> kept;
  kept.reserve(hosts.size());
  for (size_t i = 0; i < hosts.size(); ++i)
    if (keep[i]) kept.push_back(std::move(hosts[i]));
  hosts = std::move(kept);

  // The message around the hosts: fields 1-5 before them, 7-9 after
  // (deterministic serialisation writes fields in number order).
  summary::RunSummary message;
  ToProto(run, &message);
  summary::RunSummary after;
  after.set_tool(message.tool());
  *after.mutable_dropped_copies() = message.dropped_copies();
  after.set_run_folder(message.run_folder());
  message.clear_tool();
  message.clear_dropped_copies();
  message.clear_run_folder();
  const std::string prefix = SerializeDeterministic(message), suffix = SerializeDeterministic(after);
  uint64_t length = prefix.size() + suffix.size();
  for (const HostRef& h : hosts) length += HostFieldPrefix(h.length).size() + h.length;
  if (length > kRunSummaryMaxMessageBytes)
    throw InputError(paths.empty() ? "" : paths.front(),
                     "the combined run summary would pass the 2 GiB protobuf reads; combine fewer hosts");

  const std::string header = RunSummaryHeader(run.schema_version, length);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(prefix.data(), static_cast<std::streamsize>(prefix.size()));

  // Pass 2: each host's message, checked and copied, one at a time.
  std::ifstream file;
  size_t open = paths.size();
  std::string bytes;
  for (const HostRef& h : hosts) {
    const std::string& path = paths[h.file];
    CheckRunSummaryMemory(h.length, path, options, "host " + h.host + " of this run summary");
    if (open != h.file) {
      file = std::ifstream(path, std::ios::binary);
      open = h.file;
    }
    bytes.resize(h.length);
    file.seekg(static_cast<std::streamoff>(h.offset));
    if (!file.read(bytes.data(), static_cast<std::streamsize>(h.length)))
      throw InputError(path, "cannot read: the file changed while combined");
    summary::HostPartials parsed;
    if (!parsed.ParseFromString(bytes)) Corrupt(path, "host " + h.host + "'s message does not parse");
    summary::HostPartials again;
    try {
      ToProto(FromProto(parsed), &again);
    } catch (const InputError& e) {
      throw InputError(path, std::string("corrupt ") + e.what());
    }
    if (SerializeDeterministic(again) != bytes)
      Corrupt(path, "host " + h.host + " is not stored as tfprof-analyze stores it");
    const std::string tag = HostFieldPrefix(h.length);
    out.write(tag.data(), static_cast<std::streamsize>(tag.size()));
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  out.write(suffix.data(), static_cast<std::streamsize>(suffix.size()));
}

}  // namespace tfprof
