// Discovery by content: .json / .json.gz files whose names no rule knows are
// captures when they hold Chrome trace JSON (lib/read/trace_json_sniff.h).
#include <sys/stat.h>
#include <zlib.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "lib/model/errors.h"
#include "lib/read/capture_discovery.h"
#include "lib/read/trace_json_sniff.h"
#include "tests/support/files.h"
#include "tests/support/xspace_builder.h"

using namespace tfprof;
namespace fs = std::filesystem;
using tfprof::testing::WriteFile;
using tfprof::testing::WriteGzipFile;

namespace {

std::vector<std::string> Hosts(const ProfileRun& r) {
  std::vector<std::string> out;
  for (const CaptureFile& f : r.files) out.push_back(f.host);
  return out;
}

constexpr const char* kKinetoHead = R"({"schemaVersion": 1, "deviceProperties": [], "traceEvents": [)";
constexpr const char* kEvent = R"({"ph": "X", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 2})";

}  // namespace

TEST_CASE("Traces named freely are found by their content", "[discovery][sniff]") {
  fs::path run = testing::TempDir();
  // Names seen in the wild: HTA's `*_kineto.json.gz`, a user's train.json,
  // xDiT's profile_trace_rank_0.json.gz, a TF1 timeline_01.json (already
  // known by name), and a bare event array (older Kineto).
  REQUIRE(WriteGzipFile(run / "rank0_kineto.json.gz", std::string(kKinetoHead) + kEvent + "]}"));
  WriteFile(run / "train.json", std::string("\xEF\xBB\xBF  \n") + kKinetoHead + kEvent + "]}");
  WriteFile(run / "profile_trace.json", std::string("[") + kEvent + "]");
  WriteFile(run / "timeline_01.json", std::string(R"({"traceEvents": [)") + kEvent + "]}");
  // Not traces: other JSON, a tool output holding events, JSON without the
  // keys in its first 64 KiB, a gzip that inflates to 8 MiB of spaces first,
  // and a FIFO (never opened: opening would block).
  WriteFile(run / "config.json", R"({"lr": 0.1, "phase": "train"})");
  WriteFile(run / "h.memory_profile.json", std::string(kKinetoHead) + kEvent + "]}");
  WriteFile(run / "late.json", "{\"metadata\": \"" + std::string(kTraceSniffBytes, 'x') + "\", \"traceEvents\": []}");
  REQUIRE(WriteGzipFile(run / "spaces.json.gz", std::string(8 << 20, ' ') + kKinetoHead + "]}"));
  WriteFile(run / "notes.txt", R"({"traceEvents": []})");
  REQUIRE(::mkfifo((run / "pipe.json").c_str(), 0600) == 0);

  DiscoveredInput d = DiscoverInput(run.string());
  CHECK(d.kind == InputKind::kRunFolder);
  CHECK(Hosts(d.selected) == std::vector<std::string>{"profile_trace", "rank0_kineto", "timeline_01", "train"});
  for (const CaptureFile& f : d.selected.files) CHECK(f.format == CaptureFormat::kChromeTrace);
  CHECK(d.selected.skipped.empty());
}

TEST_CASE("Beside an XPlane, a freely named trace is a view of it, not a host", "[discovery][sniff]") {
  // JAX's create_perfetto_trace=True writes perfetto_trace.json.gz beside
  // <host>.xplane.pb and <host>.trace.json.gz (testdata/captures/jax_gpu).
  fs::path run = testing::TempDir();
  testing::XSpaceBuilder b;
  b.Plane("/host:CPU").Line(1, "t").Event("x", 0, 1);
  WriteFile(run / "h.xplane.pb", b.Serialize());
  REQUIRE(WriteGzipFile(run / "perfetto_trace.json.gz", std::string(kKinetoHead) + kEvent + "]}"));
  DiscoveredInput d = DiscoverInput(run.string());
  CHECK(Hosts(d.selected) == std::vector<std::string>{"h"});
}

TEST_CASE("The sniff: first bytes and the trace keys", "[discovery][sniff]") {
  fs::path dir = testing::TempDir();
  auto looks = [&](const std::string& name, const std::string& bytes) {
    WriteFile(dir / name, bytes);
    return LooksLikeTraceJson((dir / name).string());
  };
  CHECK(looks("a.json", R"({"traceEvents": []})"));
  CHECK(looks("b.json", "\n\t [ {\"ph\":\"X\"} ]"));
  CHECK_FALSE(looks("c.json", R"({"events": []})"));
  CHECK_FALSE(looks("d.json", R"(x{"traceEvents": []})"));
  CHECK_FALSE(looks("e.json", ""));
  CHECK_FALSE(looks("f.json", "\x1f\x8b\x08\x00 truncated gzip"));
  // 30 KiB of deviceProperties before traceEvents (Kineto on a big node).
  CHECK(looks("g.json", "{\"deviceProperties\": \"" + std::string(30 << 10, 'p') + "\", \"traceEvents\": []}"));
  CHECK_FALSE(LooksLikeTraceJson((dir / "missing.json").string()));
  CHECK(HasJsonName("x.json"));
  CHECK(HasJsonName("x.json.gz"));
  CHECK_FALSE(HasJsonName(".json"));
  CHECK_FALSE(HasJsonName("x.jsonl"));
}

TEST_CASE("No captures: the message lists the names recognised", "[discovery][sniff]") {
  fs::path dir = testing::TempDir();
  WriteFile(dir / "config.json", R"({"lr": 0.1})");
  WriteFile(dir / "notes.txt", "hello");
  try {
    DiscoverInput(dir.string());
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.code() == kExitBadInput);
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("no captures found: recognised are <host>.xplane.pb[.gz]"));
    CHECK_THAT(what, Catch::Contains("any .json[.gz] holding Chrome trace JSON"));
    CHECK(what.find('\n') == std::string::npos);
  }
}
