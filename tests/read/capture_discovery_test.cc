#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "lib/model/errors.h"
#include "lib/read/capture_discovery.h"
#include "tests/support/files.h"
#include "tests/support/unopenable_file.h"
#include "tests/support/xspace_builder.h"

using namespace tfprof;
namespace fs = std::filesystem;
using tfprof::testing::WriteFile;

namespace {

std::string Capture(const std::string& thread) {
  testing::XSpaceBuilder b;
  b.Plane("/host:CPU").Line(1, thread).Event("x", 0, 1);
  return b.Serialize();
}

std::vector<std::string> Hosts(const ProfileRun& r) {
  std::vector<std::string> out;
  for (const CaptureFile& f : r.files) out.push_back(f.host);
  return out;
}

ExitCode CodeOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.code();
  }
  return kExitOk;
}

}  // namespace

TEST_CASE("A logdir's newest run is chosen, --run picks another", "[discovery]") {
  fs::path root = testing::TempDir();
  WriteFile(root / "plugins/profile/2024_01_01_10_00_00/a.xplane.pb", Capture("old"));
  WriteFile(root / "plugins/profile/2024_01_02_09_00_00/a.xplane.pb", Capture("new-a"));
  WriteFile(root / "plugins/profile/2024_01_02_09_00_00/b.xplane.pb", Capture("new-b"));
  WriteFile(root / "plugins/profile/2024_01_02_09_00_00/a.overview_page.pb", "not a capture");

  DiscoveredInput d = DiscoverInput(root.string());
  CHECK(d.kind == InputKind::kLogdir);
  REQUIRE(d.runs.size() == 2);
  CHECK(d.runs[0].name == "2024_01_01_10_00_00");
  CHECK(d.selected.name == "2024_01_02_09_00_00");
  CHECK(Hosts(d.selected) == std::vector<std::string>{"a", "b"});

  DiscoveredInput old = DiscoverInput(root.string(), "2024_01_01_10_00_00");
  CHECK(Hosts(old.selected) == std::vector<std::string>{"a"});
  CHECK(CodeOf([&] { DiscoverInput(root.string(), "nope"); }) == kExitUsage);
}

TEST_CASE("The plugins/profile folder, or plugins/, reads as its logdir", "[discovery]") {
  fs::path root = testing::TempDir();
  WriteFile(root / "train/plugins/profile/2024_01_01_10_00_00/a.xplane.pb", Capture("old"));
  WriteFile(root / "train/plugins/profile/2024_01_02_09_00_00/b.xplane.pb", Capture("new"));
  for (const std::string& path : {(root / "train/plugins/profile").string(), (root / "train/plugins/profile/").string(),
                                  (root / "train/plugins").string(), (root / "train/plugins/").string()}) {
    INFO(path);
    DiscoveredInput d = DiscoverInput(path);
    CHECK(d.kind == InputKind::kLogdir);
    REQUIRE(d.runs.size() == 2);
    CHECK(d.runs[0].name == "2024_01_01_10_00_00");
    CHECK(d.selected.name == "2024_01_02_09_00_00");
    CHECK(Hosts(d.selected) == std::vector<std::string>{"b"});
    CHECK(Hosts(DiscoverInput(path, "2024_01_01_10_00_00").selected) == std::vector<std::string>{"a"});
  }
  // A folder merely named `profile` is no logdir.
  WriteFile(root / "other/profile/2024_01_01_10_00_00/a.xplane.pb", Capture("x"));
  CHECK(CodeOf([&] { DiscoverInput((root / "other/profile").string()); }) != kExitOk);
}

TEST_CASE("A logdir with several TensorBoard runs names runs by their tb run", "[discovery]") {
  fs::path root = testing::TempDir();
  WriteFile(root / "fit/20231107-181856/train/plugins/profile/2023_11_07_18_18_59/h.xplane.pb", Capture("x"));
  WriteFile(root / "fit/20231107-184716/train/plugins/profile/2023_11_07_18_47_18/h.xplane.pb", Capture("y"));
  DiscoveredInput d = DiscoverInput(root.string());
  REQUIRE(d.runs.size() == 2);
  CHECK(d.selected.name == "fit/20231107-184716/train/2023_11_07_18_47_18");
  CHECK(DiscoverInput(root.string(), "2023_11_07_18_18_59").selected.name ==
        "fit/20231107-181856/train/2023_11_07_18_18_59");
}

TEST_CASE("A run folder prefers a host's xplane.pb over its trace JSON", "[discovery]") {
  fs::path run = testing::TempDir();
  WriteFile(run / "a.xplane.pb", Capture("a"));
  WriteFile(run / "a.trace.json.gz", "{}");
  WriteFile(run / "b.trace.json", R"({"traceEvents": []})");
  DiscoveredInput d = DiscoverInput(run.string());
  CHECK(d.kind == InputKind::kRunFolder);
  REQUIRE(d.selected.files.size() == 2);
  CHECK(d.selected.files[0].host == "a");
  CHECK(d.selected.files[0].format == CaptureFormat::kXSpace);
  CHECK(d.selected.files[1].host == "b");
  CHECK(d.selected.files[1].format == CaptureFormat::kChromeTrace);
}

TEST_CASE("Byte-identical host files are read once", "[discovery]") {
  fs::path run = testing::TempDir();
  WriteFile(run / "h1.xplane.pb", Capture("same"));
  WriteFile(run / "h2.xplane.pb", Capture("same"));
  WriteFile(run / "h3.xplane.pb", Capture("different"));
  DiscoveredInput d = DiscoverInput(run.string());
  CHECK(Hosts(d.selected) == std::vector<std::string>{"h1", "h3"});
  CHECK(d.selected.duplicates == std::vector<std::string>{"h2 (a byte-identical copy of h1)"});
}

TEST_CASE("Formats are detected from the content, not the name", "[discovery]") {
  fs::path dir = testing::TempDir();
  WriteFile(dir / "capture.bin", Capture("t"));
  WriteFile(dir / "trace.txt", "  \n[{\"ph\":\"X\"}]");
  CHECK(DetectFormat((dir / "capture.bin").string()) == CaptureFormat::kXSpace);
  CHECK(DetectFormat((dir / "trace.txt").string()) == CaptureFormat::kChromeTrace);
  DiscoveredInput d = DiscoverInput((dir / "capture.bin").string());
  CHECK(d.kind == InputKind::kFile);
  CHECK(d.selected.files.at(0).format == CaptureFormat::kXSpace);
}

TEST_CASE("Bad inputs fail with a message naming the path", "[discovery][bad]") {
  fs::path dir = testing::TempDir();
  WriteFile(dir / "empty.xplane.pb", "");
  WriteFile(dir / "random.dat",
            "\x7f"
            "ELF\x02\x01\x01");
  WriteFile(dir / "h.kernel_stats.pb", "\x0a\x00");
  fs::create_directories(dir / "emptydir");
  WriteFile(dir / "unrelated/notes.txt", "hello");

  auto message = [](const std::string& path) -> std::string {
    try {
      DiscoverInput(path);
    } catch (const InputError& e) {
      CHECK(e.code() == kExitBadInput);
      return e.what();
    }
    return "(no error)";
  };
  CHECK_THAT(message((dir / "missing").string()), Catch::EndsWith("missing: no such file or folder"));
  CHECK_THAT(message((dir / "empty.xplane.pb").string()), Catch::EndsWith("empty.xplane.pb: file is empty (0 bytes)"));
  CHECK_THAT(message((dir / "random.dat").string()), Catch::Contains("unknown format"));
  CHECK_THAT(message((dir / "h.kernel_stats.pb").string()),
             Catch::Contains("'kernel_stats.pb' tool output, not a capture"));
  CHECK_THAT(message((dir / "emptydir").string()), Catch::EndsWith("emptydir: folder is empty"));
  CHECK_THAT(message((dir / "unrelated").string()), Catch::Contains("unrelated: no captures found"));
}

TEST_CASE("PyTorch and bare trace names give their host names", "[discovery]") {
  fs::path run = testing::TempDir();
  WriteFile(run / "worker0.1623143089861.pt.trace.json.gz", R"({"traceEvents": [1]})");
  WriteFile(run / "rank-1.pt.trace.json", R"({"traceEvents": [2]})");
  DiscoveredInput d = DiscoverInput(run.string());
  CHECK(Hosts(d.selected) == std::vector<std::string>{"rank-1", "worker0"});  // The span timestamp is not the host.

  fs::path bare = testing::TempDir();
  WriteFile(bare / "trace.json", R"({"traceEvents": []})");
  DiscoveredInput b = DiscoverInput(bare.string());
  CHECK(b.kind == InputKind::kRunFolder);
  CHECK(Hosts(b.selected) == std::vector<std::string>{"trace"});

  fs::path dir = testing::TempDir();
  WriteFile(dir / "run8.json", R"({"traceEvents": []})");
  CHECK(Hosts(DiscoverInput((dir / "run8.json").string()).selected) == std::vector<std::string>{"run8"});
}

TEST_CASE("A distributed run's rank folders read as one run folder", "[discovery]") {
  // Each rank wrote into a folder of its own, files named alike.
  fs::path run = testing::TempDir();
  WriteFile(run / "rank_0" / "trace.json", R"({"traceEvents": [1]})");
  WriteFile(run / "rank_1" / "trace.json", R"({"traceEvents": [2]})");
  WriteFile(run / "notes" / "trace.json", R"({"traceEvents": [3]})");  // Not a rank's folder.
  DiscoveredInput d = DiscoverInput(run.string());
  CHECK(d.kind == InputKind::kRunFolder);
  CHECK(Hosts(d.selected) == std::vector<std::string>{"rank_0/trace", "rank_1/trace"});

  // Ranks writing a span a file (tensorboard_trace_handler), a container's
  // pid in every worker's name: span i of each rank makes run i.
  fs::path spans = testing::TempDir();
  for (const char* rank : {"Rank0", "rank-1"})
    for (const char* ts : {"1700000000000000001", "1700000000000000002"})
      WriteFile(spans / rank / (std::string("node_1.") + ts + ".pt.trace.json"),
                std::string(R"({"traceEvents": [], "rank": ")") + rank + "\"}");  // Bytes of their own.
  DiscoveredInput s = DiscoverInput(spans.string());
  REQUIRE(s.runs.size() == 2);
  CHECK(Hosts(s.runs[0]) == std::vector<std::string>{"Rank0/node_1", "rank-1/node_1"});
  CHECK(Hosts(s.selected) == std::vector<std::string>{"Rank0/node_1", "rank-1/node_1"});
  CHECK(s.selected.name == s.runs[1].name);  // The newest span.

  // Folders that only look like ranks' are not.
  fs::path other = testing::TempDir();
  WriteFile(other / "ranking" / "trace.json", R"({"traceEvents": []})");
  WriteFile(other / "rank_" / "trace.json", R"({"traceEvents": []})");
  WriteFile(other / "worker1a" / "trace.json", R"({"traceEvents": []})");
  CHECK_THROWS_WITH(DiscoverInput(other.string()), Catch::Contains("no captures found"));
}

TEST_CASE("A logdir's symlinks back into itself are walked once", "[discovery]") {
  // k symlinks to the logdir itself made the folder walk k^4 listings long
  // and listed the one run under 1 + k + k^2 + k^3 + k^4 names.
  fs::path root = testing::TempDir();
  WriteFile(root / "plugins/profile/2024_01_01_00_00_00/h.xplane.pb", Capture("x"));
  fs::create_directories(root / "fit/train");
  for (int i = 0; i < 6; ++i) fs::create_directory_symlink(".", root / ("loop" + std::to_string(i)));
  fs::create_directory_symlink("../..", root / "fit/train/up");  // Back to the root from below.
  DiscoveredInput d = DiscoverInput(root.string());
  REQUIRE(d.runs.size() == 1);
  CHECK(d.runs[0].name == "2024_01_01_00_00_00");
  CHECK(d.runs[0].path == (root / "plugins/profile/2024_01_01_00_00_00").string());
  // The real folders are the root, fit and fit/train: each listed once.
  CHECK(d.work.folders_listed == 3);
}

TEST_CASE("Finding copies among same-size host files reads each file once", "[discovery]") {
  // 40 hosts whose files have one size but differ, one copy of h07, and one
  // file of a size no other has. Comparing every same-size pair read
  // 2 x (40 x 39 / 2 + 8) = 1576 files.
  fs::path run = testing::TempDir();
  auto name = [](int i) { return std::string(i < 10 ? "h0" : "h") + std::to_string(i); };
  for (int i = 0; i < 40; ++i) WriteFile(run / (name(i) + ".xplane.pb"), Capture("thread" + name(i)));
  WriteFile(run / "zz.xplane.pb", Capture("thread" + name(7)));
  WriteFile(run / "solo.xplane.pb", Capture("a thread name of another length"));
  DiscoveredInput d = DiscoverInput(run.string());
  CHECK(d.selected.files.size() == 41);
  CHECK(d.selected.duplicates == std::vector<std::string>{"zz (a byte-identical copy of h07)"});
  // 41 same-size files hashed once each; one pair of equal hashes compared.
  CHECK(d.work.file_reads == 41 + 2);
}

TEST_CASE("A host file that cannot be opened is skipped, not fatal", "[discovery]") {
  fs::path root = testing::TempDir();
  fs::path run = root / "plugins/profile/2024_01_01_00_00_00";
  WriteFile(run / "good.xplane.pb", Capture("x"));
  REQUIRE(testing::MakeUnopenableFile((run / "locked.xplane.pb").string()));
  for (const std::string& path : {root.string(), run.string()}) {
    DiscoveredInput d = DiscoverInput(path);
    CHECK(Hosts(d.selected) == std::vector<std::string>{"good"});
    CHECK(d.selected.skipped == std::vector<std::string>{"locked.xplane.pb (cannot be opened: Permission denied)"});
  }
  // Alone in its run, it leaves nothing to read: an error naming it.
  fs::path alone = testing::TempDir();
  REQUIRE(testing::MakeUnopenableFile((alone / "locked.xplane.pb").string()));
  try {
    DiscoverInput(alone.string());
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.code() == kExitBadInput);
    CHECK_THAT(e.what(),
               Catch::EndsWith("no readable capture: locked.xplane.pb (cannot be opened: Permission denied)"));
  }
}
