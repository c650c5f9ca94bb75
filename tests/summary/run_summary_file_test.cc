// The run summary file: its header, and one clear error (exit 3) for every
// file that is not a whole summary of this schema version.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "lib/model/errors.h"
#include "lib/read/memory_budget.h"
#include "lib/summary/run_summary_file.h"
#include "lib/summary/run_summary_proto.h"
#include "tests/support/corpus.h"

namespace tfprof {
namespace {

// A small summary with one of every kind of thing.
RunSummary SmallSummary() {
  RunSummary run;
  run.run = "2026_11_21_08_22_42";
  run.parts = SummaryPart::kOps | SummaryPart::kMemory;
  run.options.compat = Compat::kXprof;
  run.options.step_marker = "^train$";
  run.input_diagnostics.AddEntry({Severity::kWarning, "input.duplicate", "a duplicate", 1, "b.xplane.pb"});
  for (uint32_t order : {0u, 3u}) {
    HostPartials& h = run.hosts.emplace_back();
    h.order = order;
    h.host = "host" + std::to_string(order);
    // Captures carry names that are not UTF-8; they survive as they are.
    h.ops.host_ops.Lookup(0, "bad\xff\xfename").category = "\xc3";
    h.format = order ? CaptureFormat::kChromeTrace : CaptureFormat::kXSpace;
    OpMetrics& m = h.ops.host_ops.Lookup(0, "MatMul");
    m.category = "MatMul";
    m.occurrences = 3;
    m.self_time_ps = m.time_ps = 1500;
    h.ops.host_ops.total_op_time_ps = 1500;
    h.ops.host_ops.SetTotalTime(2000);
    h.ops.host_ops.AddIdle();
    AllocatorMemoryProfile& a = h.memory.allocators.emplace_back();
    a.memory_id = "GPU_0_bfc";
    MemorySnapshot s;
    s.op_name = h.memory.strings.Intern("MatMul");
    s.heap_bytes = 4096;
    a.timeline.push_back(s);
    h.diagnostics.memory.AddEntry(
        {Severity::kInfo, "memory.unmatched_deallocation", "frees", 2, "GPU_0_bfc address 7"});
  }
  return run;
}

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("tfprof_run_summary_" + name)).string();
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The error reading `bytes` from a file gives: "<path>: <problem>", one
// line, exit 3.
std::string ReadError(const std::string& bytes, ReadOptions options = {}) {
  const std::string path = TempPath("bad");
  WriteBytes(path, bytes);
  std::string what = "no error";
  try {
    ReadRunSummary(path, options);
  } catch (const InputError& e) {
    CHECK(e.code() == kExitBadInput);
    CHECK(e.path() == path);
    what = e.what();
    CHECK(what.find('\n') == std::string::npos);
    REQUIRE(what.rfind(path + ": ", 0) == 0);
    what = what.substr(path.size() + 2);
  }
  std::filesystem::remove(path);
  return what;
}

void PutU32(std::string& bytes, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) bytes[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

TEST_CASE("run summary file: the header, then the deterministic message", "[summary][proto]") {
  const RunSummary run = SmallSummary();
  const std::string bytes = RunSummaryToBytes(run);
  REQUIRE(bytes.size() > kRunSummaryHeaderBytes);
  CHECK(bytes.substr(0, 8) == std::string("\x89tfprof\n", 8));
  CHECK(bytes.substr(8, 4) == std::string("\x03\x00\x00\x00", 4));  // Schema version 3.
  const uint64_t length = bytes.size() - kRunSummaryHeaderBytes;
  std::string length_le;
  for (int i = 0; i < 8; ++i) length_le += static_cast<char>((length >> (8 * i)) & 0xff);
  CHECK(bytes.substr(12, 8) == length_le);
  summary::RunSummary message;
  REQUIRE(message.ParseFromString(bytes.substr(kRunSummaryHeaderBytes)));
  CHECK(message.schema_version() == 3);
  CHECK(message.hosts_size() == 2);
  CHECK(message.hosts(1).order() == 3);

  // Through a file and back: the same bytes, the same values.
  const std::string path = TempPath("ok");
  WriteRunSummary(run, path);
  const RunSummary back = ReadRunSummary(path);
  std::filesystem::remove(path);
  CHECK(RunSummaryToBytes(back) == bytes);
  CHECK(back.run == run.run);
  CHECK(back.parts == run.parts);
  CHECK(back.options.compat == Compat::kXprof);
  CHECK(back.options.step_marker == "^train$");
  CHECK(back.input_diagnostics.Count("input.duplicate") == 1);
  REQUIRE(back.hosts.size() == 2);
  CHECK(back.hosts[1].order == 3);
  CHECK(back.hosts[1].format == CaptureFormat::kChromeTrace);
  CHECK(back.hosts[1].diagnostics.memory.Count("memory.unmatched_deallocation") == 2);
  REQUIRE(back.hosts[0].ops.host_ops.rows().size() == 3);  // bad..name, MatMul and IDLE.
  CHECK(back.hosts[0].ops.host_ops.rows()[0].name == "bad\xff\xfename");
  CHECK(back.hosts[0].ops.host_ops.rows()[0].category == "\xc3");
  CHECK(back.hosts[0].ops.host_ops.rows()[2].is_idle());
  CHECK(back.hosts[0].ops.host_ops.rows()[2].self_time_ps == 500);
  CHECK(back.hosts[0].memory.Str(back.hosts[0].memory.allocators[0].timeline[0].op_name) == "MatMul");

  std::ostringstream stream;
  WriteRunSummary(run, stream);
  CHECK(stream.str() == bytes);
}

TEST_CASE("run summary file: a wrong, truncated, corrupt or other-version file is one clear error",
          "[summary][proto]") {
  const std::string good = RunSummaryToBytes(SmallSummary());
  const size_t message = good.size() - kRunSummaryHeaderBytes;

  CHECK(ReadError("") == "not a tfprof-analyze run summary (no run summary header)");
  // A capture is not a summary.
  std::ifstream capture(testing::SourcePath("testdata/captures/tf_memory/plugins/profile/2026_11_21_08_22_42/"
                                            "tfprof-capture.xplane.pb"),
                        std::ios::binary);
  const std::string xplane((std::istreambuf_iterator<char>(capture)), std::istreambuf_iterator<char>());
  REQUIRE(xplane.size() == 33539);
  CHECK(ReadError(xplane) == "not a tfprof-analyze run summary (no run summary header)");

  CHECK(ReadError(good.substr(0, 5)) == "truncated run summary: 5 bytes, less than its 20-byte header");
  CHECK(ReadError(good.substr(0, good.size() - 1)) == "truncated run summary: its header says " +
                                                          std::to_string(message) + " bytes follow, the file has " +
                                                          std::to_string(message - 1));
  CHECK(ReadError(good + "x") ==
        "corrupt run summary: 1 bytes past the " + std::to_string(message) + " its header says");

  std::string other_version = good;
  PutU32(other_version, 8, 1);  // What tfprof-analyze wrote before hosts were ordered by file name.
  CHECK(ReadError(other_version) ==
        "run summary schema version 1, this tfprof-analyze reads version 3 (summarise the captures again with this "
        "version)");

  std::string absurd = good.substr(0, kRunSummaryHeaderBytes);
  PutU32(absurd, 16, 0x100);  // Length 2^40.
  CHECK(ReadError(absurd) ==
        "corrupt run summary: its header claims a 1024.0 GiB message, beyond the 2 GiB protobuf "
        "reads");

  // A message byte that is no protobuf: field 0 is never valid.
  std::string garbled = good;
  garbled[kRunSummaryHeaderBytes] = 0;
  CHECK(ReadError(garbled) == "corrupt run summary: its message does not parse");

  // A message that parses but no summary gives: its own version differs.
  summary::RunSummary wrong;
  wrong.set_schema_version(7);
  std::string wrong_bytes = good.substr(0, 12);
  const std::string body = SerializeDeterministic(wrong);
  for (int i = 0; i < 8; ++i) wrong_bytes += static_cast<char>((uint64_t{body.size()} >> (8 * i)) & 0xff);
  CHECK(ReadError(wrong_bytes + body) == "corrupt run summary: schema version 7, this tfprof-analyze reads version 3");

  // Hosts out of order (CombineRunSummaries relies on the order).
  summary::RunSummary unordered;
  unordered.set_schema_version(3);
  unordered.add_hosts()->set_order(2);
  unordered.add_hosts()->set_order(1);
  summary::HostPartials* named = unordered.add_hosts();  // A file name orders before the order.
  named->set_source("a.xplane.pb");
  named->set_order(9);
  const std::string body2 = SerializeDeterministic(unordered);
  std::string unordered_bytes = good.substr(0, 12);
  for (int i = 0; i < 8; ++i) unordered_bytes += static_cast<char>((uint64_t{body2.size()} >> (8 * i)) & 0xff);
  CHECK(ReadError(unordered_bytes + body2) ==
        "corrupt run summary: host  (file '', order 1) after host  (file '', order 2): hosts must be in ascending "
        "order of file name and order, each once");
  unordered.mutable_hosts()->SwapElements(0, 1);
  const std::string body3 = SerializeDeterministic(unordered);
  std::string ordered_bytes = good.substr(0, 12);
  for (int i = 0; i < 8; ++i) ordered_bytes += static_cast<char>((uint64_t{body3.size()} >> (8 * i)) & 0xff);
  CHECK(ReadError(ordered_bytes + body3) == "no error");  // "" < "a.xplane.pb": (1), (2), then the named host.
}

TEST_CASE("run summary file: reading stays within the memory limit", "[summary][proto]") {
  const std::string good = RunSummaryToBytes(SmallSummary());
  const uint64_t message = good.size() - kRunSummaryHeaderBytes;
  ReadOptions options;
  options.memory_limit_bytes = message * kRunSummaryReadBytesPerByte - 1;
  options.memory_limit_from_env = true;
  CHECK(ReadError(good, options) ==
        "reading this run summary needs about " + MemorySize(message * kRunSummaryReadBytesPerByte) +
            ", more than the " + MemorySize(options.memory_limit_bytes) +
            " memory limit (set TFPROF_MEMORY_LIMIT higher if this machine has the memory)");
  options.memory_limit_bytes = message * kRunSummaryReadBytesPerByte;
  CHECK(ReadError(good, options) == "no error");
}

// Every single-byte corruption of a small summary reads as a summary or
// fails with InputError: never a crash or another exception. What reads
// back is canonical: written again and read again, it gives its own bytes.
TEST_CASE("run summary file: any corrupted byte is a summary or an input error", "[summary][proto]") {
  const std::string good = RunSummaryToBytes(SmallSummary());
  size_t read = 0, refused = 0;
  for (size_t at = 0; at < good.size(); ++at) {
    for (const unsigned char value : {0x00, 0x01, 0x7f, 0x80, 0xff}) {
      std::string bad = good;
      if (static_cast<unsigned char>(bad[at]) == value) continue;
      bad[at] = static_cast<char>(value);
      try {
        const std::string again = RunSummaryToBytes(RunSummaryFromBytes(bad, "bad"));
        CHECK(RunSummaryToBytes(RunSummaryFromBytes(again, "again")) == again);
        ++read;
      } catch (const InputError& e) {
        CHECK(e.code() == kExitBadInput);
        ++refused;
      }
    }
  }
  // Both happen: header and tags are refused, most values just change.
  CHECK(read > 0);
  CHECK(refused > 0);
}

}  // namespace
}  // namespace tfprof
