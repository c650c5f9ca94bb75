// The format table (lib/read/capture_formats.h): every row's names and
// content resolve to that row through discovery and loading, the sniffs
// exclude each other, and a file no row claims gets the clear errors it got
// before the table.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

#include <unistd.h>

#include "lib/model/errors.h"
#include "lib/read/capture_discovery.h"
#include "lib/read/capture_formats.h"
#include "lib/read/capture_loader.h"
#include "lib/read/memory_guard.h"
#include "tests/support/xspace_builder.h"

using namespace tfprof;
namespace fs = std::filesystem;

namespace {

void Write(const fs::path& p, const std::string& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << bytes;
}

// One event on one thread, in each format.
std::string Sample(CaptureFormat format) {
  if (format == CaptureFormat::kXSpace) {
    testing::XSpaceBuilder b;
    b.Plane("/host:CPU").Line(1, "main").Event("op", 0, 1000);
    return b.Serialize();
  }
  return R"({"traceEvents": [{"ph": "X", "name": "op", "pid": 1, "tid": 1, "ts": 0, "dur": 1}]})";
}

uint64_t Events(const Host& host) {
  uint64_t n = 0;
  for (const Plane& p : host.planes)
    for (const Line& l : p.lines) n += l.events.size();
  return n;
}

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("tfprof_formats_" + std::to_string(::getpid()));
  TempDir() { fs::remove_all(path); }
  ~TempDir() { fs::remove_all(path); }
};

}  // namespace

TEST_CASE("Every capture format has one row", "[formats]") {
  REQUIRE(CaptureFormats().size() == 2);
  for (CaptureFormat f : {CaptureFormat::kXSpace, CaptureFormat::kChromeTrace}) CHECK(FormatRow(f).format == f);
  for (const CaptureFormatRow& row : CaptureFormats()) {
    INFO(CaptureFormatName(row.format));
    CHECK(&FormatRow(row.format) == &row);
    CHECK(row.starts_like);
    CHECK(row.read);
    CHECK(row.estimated_read_bytes);
    CHECK(row.inflate_room);
    CHECK_FALSE(row.host_suffixes.empty());
  }
}

TEST_CASE("Every row's names and content resolve to that row", "[formats]") {
  TempDir tmp;
  for (const CaptureFormatRow& row : CaptureFormats()) {
    INFO(CaptureFormatName(row.format));
    const std::string sample = Sample(row.format);
    // Its content: this row's sniff only, and DetectFormat says so under
    // a name that says nothing.
    for (const CaptureFormatRow& other : CaptureFormats()) CHECK(other.starts_like(sample) == (&other == &row));
    CHECK(FormatFromContent(sample) == &row);
    Write(tmp.path / "nameless.bin", sample);
    CHECK(DetectFormat((tmp.path / "nameless.bin").string()) == row.format);

    // Its names: each suffix names the host before it; each file is found
    // in a run folder, read by the row's reader, one event.
    std::vector<std::string> names;
    for (std::string_view suffix : row.host_suffixes) names.push_back("worker7" + std::string(suffix));
    for (std::string_view bare : row.bare_names) names.push_back(std::string(bare));
    for (const std::string& name : names) {
      INFO(name);
      std::optional<NamedCapture> named = CaptureFromFileName(name);
      REQUIRE(named);
      CHECK(named->format == row.format);
      const fs::path run = tmp.path / ("run_" + name);
      Write(run / name, sample);
      DiscoveredInput d = DiscoverInput(run.string());
      REQUIRE(d.selected.files.size() == 1);
      CHECK(d.selected.files[0].format == row.format);
      Diagnostics diagnostics;
      Host host = LoadCapture(d.selected.files[0], diagnostics);
      CHECK(host.format == row.format);
      CHECK(Events(host) == 1);
    }
  }
  // Hosts as the names say: the longest suffix wins, bare names are their stem.
  CHECK(CaptureFromFileName("worker0.pt.trace.json.gz")->host == "worker0");
  CHECK(CaptureFromFileName("worker0.trace.json")->host == "worker0");
  CHECK(CaptureFromFileName("h1.xplane.pb.gz")->host == "h1");
  CHECK(CaptureFromFileName("timeline.json.gz")->host == "timeline");
  CHECK(CaptureFromFileName("timeline_01.json")->host == "timeline_01");  // The TF1 rule.
  CHECK(CaptureFromFileName("timeline_01.json")->format == CaptureFormat::kChromeTrace);
  CHECK_FALSE(CaptureFromFileName("train.json"));  // Only by content.
  CHECK_FALSE(CaptureFromFileName("notes.txt"));
}

TEST_CASE("A row taken by content finds unnamed files of its format only", "[formats]") {
  TempDir tmp;
  Write(tmp.path / "run" / "rank0.json", Sample(CaptureFormat::kChromeTrace));
  Write(tmp.path / "run" / "config.json", R"({"lr": 0.1})");
  DiscoveredInput d = DiscoverInput((tmp.path / "run").string());
  REQUIRE(d.selected.files.size() == 1);
  CHECK(d.selected.files[0].host == "rank0");
  CHECK(d.selected.files[0].format == CaptureFormat::kChromeTrace);
  // Beside an XSpace, unnamed JSON is a view of it, not another host.
  Write(tmp.path / "run" / "h.xplane.pb", Sample(CaptureFormat::kXSpace));
  d = DiscoverInput((tmp.path / "run").string());
  REQUIRE(d.selected.files.size() == 1);
  CHECK(d.selected.files[0].host == "h");
}

TEST_CASE("A file no row claims gets the clear errors", "[formats]") {
  TempDir tmp;
  Write(tmp.path / "random.dat", "\x01\x02 not a capture");
  CHECK(ErrorOf([&] { DetectFormat((tmp.path / "random.dat").string()); }) ==
        (tmp.path / "random.dat").string() +
            ": unknown format: neither an XSpace protobuf (.xplane.pb) nor Chrome trace JSON");
  Write(tmp.path / "bom_only.json", "\xEF\xBB\xBF  \n");
  CHECK(ErrorOf([&] { DetectFormat((tmp.path / "bom_only.json").string()); }) ==
        (tmp.path / "bom_only.json").string() + ": file holds only whitespace");
  Write(tmp.path / "folder" / "notes.txt", "hello");
  CHECK(ErrorOf([&] { DiscoverInput((tmp.path / "folder").string()); }) ==
        (tmp.path / "folder").string() +
            ": no captures found: recognised are <host>.xplane.pb[.gz], <host>[.pt].trace.json[.gz], "
            "trace.json[.gz], timeline*.json[.gz], or any .json[.gz] holding Chrome trace JSON (\"traceEvents\" or "
            "\"ph\" in its first 64 KiB), in this folder, in its rank folders (rank_0/, rank_1/, ... or worker0/, ...) "
            "or in "
            "a logdir's plugins/profile/<run>/");
}

TEST_CASE("The memory estimate is the row's", "[formats]") {
  // The model of an XSpace is about 1.5x the file, of JSON about 0.5x.
  CHECK(EstimatedReadBytes(CaptureFormat::kXSpace, 1000) == 1500);
  CHECK(EstimatedReadBytes(CaptureFormat::kChromeTrace, 1000) == 500);
  // Gzip: an XSpace is inflated whole (2.5x with its model), JSON streamed.
  CHECK(FormatRow(CaptureFormat::kXSpace).inflate_room(1000) == 400);
  CHECK(FormatRow(CaptureFormat::kChromeTrace).inflate_room(1000) == 2000);
}
