// PyTorch's tensorboard_trace_handler writes <worker>.<timestamp>.pt.trace.json
// per worker and profiling span: several files of one worker are several
// runs (spans), not several hosts.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "lib/model/errors.h"
#include "lib/read/capture_discovery.h"
#include "tests/support/corpus.h"
#include "tests/support/run_tool.h"
#include "tests/support/skip.h"
#include "tests/support/xspace_builder.h"

using namespace tfprof;
namespace fs = std::filesystem;

namespace {

void Write(const fs::path& p) {
  fs::create_directories(p.parent_path());
  // Distinct bytes: byte-identical host files are dropped as copies.
  std::ofstream(p, std::ios::binary) << R"({"traceEvents": [], "traceName": ")" << p.filename().string() << "\"}";
}

std::vector<std::string> Names(const DiscoveredInput& d) {
  std::vector<std::string> out;
  for (const ProfileRun& r : d.runs) out.push_back(r.name);
  return out;
}

std::vector<std::string> Files(const ProfileRun& r) {
  std::vector<std::string> out;
  for (const CaptureFile& f : r.files) out.push_back(f.host + "=" + fs::path(f.path).filename().string());
  return out;
}

}  // namespace

TEST_CASE("The spans of the kineto resnet50 sample are three runs of one worker", "[discovery][kineto]") {
  REQUIRE_CORPUS(folder, "kineto/samples/resnet50_num_workers_0");
  DiscoveredInput d = DiscoverInput(folder);
  // worker0.pt.trace.json.gz (no span) first, then the spans in time order.
  CHECK(Names(d) == std::vector<std::string>{"resnet50_num_workers_0", "resnet50_num_workers_0/1623143089861",
                                             "resnet50_num_workers_0/1623143566756"});
  CHECK(Files(d.selected) == std::vector<std::string>{"worker0=worker0.1623143566756.pt.trace.json.gz"});
  CHECK(Files(DiscoverInput(folder, "1623143089861").selected) ==
        std::vector<std::string>{"worker0=worker0.1623143089861.pt.trace.json.gz"});
  CHECK(Files(DiscoverInput(folder, "resnet50_num_workers_0").selected) ==
        std::vector<std::string>{"worker0=worker0.pt.trace.json.gz"});
  // One span alone is a file of worker0.
  CHECK(Files(DiscoverInput(folder + "/worker0.1623143089861.pt.trace.json.gz").selected) ==
        std::vector<std::string>{"worker0=worker0.1623143089861.pt.trace.json.gz"});

  auto listed = tfprof::testing::RunTool("info '" + folder + "' --list-runs -f csv");
  REQUIRE(listed.exit_code == 0);
  CHECK_THAT(listed.out, Catch::Contains("resnet50_num_workers_0/1623143089861,1,"));
  auto info = tfprof::testing::RunTool("info '" + folder + "' -f csv --table hosts");
  REQUIRE(info.exit_code == 0);
  CHECK_THAT(info.out, Catch::Contains("worker0"));
  CHECK_THAT(info.out, !Catch::Contains("1623143089861"));
}

TEST_CASE("Spans of several workers pair by index; other names are left alone", "[discovery][kineto]") {
  fs::path run = fs::path(testing::TempDir()) / "job";
  Write(run / "node1_7.1700000000000000001.pt.trace.json");
  Write(run / "node1_7.1700000000500000000.pt.trace.json.gz");
  Write(run / "node2_9.1700000000000000003.pt.trace.json");
  Write(run / "node2_9.1700000000500000004.pt.trace.json");
  Write(run / "node3_4.1700000000000000002.pt.trace.json");  // Profiled only once.
  DiscoveredInput d = DiscoverInput(run.string());
  CHECK(Names(d) == std::vector<std::string>{"job/1700000000000000001", "job/1700000000500000000"});
  CHECK(Files(d.runs[0]) == std::vector<std::string>{"node1_7=node1_7.1700000000000000001.pt.trace.json",
                                                     "node2_9=node2_9.1700000000000000003.pt.trace.json",
                                                     "node3_4=node3_4.1700000000000000002.pt.trace.json"});
  CHECK(Files(d.selected) == std::vector<std::string>{"node1_7=node1_7.1700000000500000000.pt.trace.json.gz",
                                                      "node2_9=node2_9.1700000000500000004.pt.trace.json"});
  CHECK(DiscoverInput(run.string(), "job/1700000000000000001").selected.files.size() == 3);
  // The folder's name is every span's: ambiguous.
  try {
    DiscoverInput(run.string(), "job");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.code() == kExitUsage);
    CHECK_THAT(e.what(), Catch::Contains("ambiguous"));
  }

  // Short digit suffixes are part of the host name; .trace.json files
  // (TensorFlow's) never have spans.
  fs::path other = fs::path(testing::TempDir()) / "other";
  Write(other / "node.7.pt.trace.json");
  Write(other / "host.1700000000000.trace.json.gz");
  DiscoveredInput o = DiscoverInput(other.string());
  REQUIRE(o.runs.size() == 1);
  CHECK(Files(o.selected) ==
        std::vector<std::string>{"host.1700000000000=host.1700000000000.trace.json.gz", "node.7=node.7.pt.trace.json"});
}

TEST_CASE("Spans in a logdir run folder are runs of the logdir", "[discovery][kineto]") {
  fs::path logdir = fs::path(testing::TempDir()) / "logs";
  fs::path run = logdir / "plugins" / "profile" / "2024_01_01_00_00_00";
  Write(run / "w.1700000000001.pt.trace.json");
  Write(run / "w.1700000000002.pt.trace.json");
  DiscoveredInput d = DiscoverInput(logdir.string());
  CHECK(Names(d) == std::vector<std::string>{"2024_01_01_00_00_00/1700000000001", "2024_01_01_00_00_00/1700000000002"});
  CHECK(Files(DiscoverInput(logdir.string(), "1700000000001").selected) ==
        std::vector<std::string>{"w=w.1700000000001.pt.trace.json"});
}

TEST_CASE("A folder of traces under other names: JSON holding traceEvents are its hosts", "[discovery][kineto]") {
  fs::path dir = fs::path(testing::TempDir()) / "ranks";
  fs::create_directories(dir);
  std::ofstream(dir / "trace_8_rank_0.json") << R"({"schemaVersion": 1, "traceEvents": [], "traceName": "0"})";
  std::ofstream(dir / "trace_8_rank_1.json") << R"({"schemaVersion": 1, "traceEvents": [], "traceName": "1"})";
  std::ofstream(dir / "execution_trace.json") << R"({"schema": "1.0.1", "nodes": []})";  // Not a Chrome trace.
  std::ofstream(dir / "notes.txt") << "not json";
  DiscoveredInput d = DiscoverInput(dir.string());
  CHECK(d.kind == InputKind::kRunFolder);
  CHECK(Files(d.selected) ==
        std::vector<std::string>{"trace_8_rank_0=trace_8_rank_0.json", "trace_8_rank_1=trace_8_rank_1.json"});
  // A capture named as such does not hide the others: every Chrome trace of
  // a folder without an .xplane.pb is a host (README, "Inputs").
  std::ofstream(dir / "w.pt.trace.json") << R"({"traceEvents": [], "traceName": "w"})";
  CHECK(Files(DiscoverInput(dir.string()).selected) == std::vector<std::string>{"trace_8_rank_0=trace_8_rank_0.json",
                                                                                "trace_8_rank_1=trace_8_rank_1.json",
                                                                                "w=w.pt.trace.json"});

  // HTA's folder of a Kineto trace beside its execution trace.
  REQUIRE_CORPUS(real, "hta/execution_trace");
  CHECK(Files(DiscoverInput(real).selected) ==
        std::vector<std::string>{"benchmark_simple_add_trace=benchmark_simple_add_trace.json.gz"});
  // JSON without traceEvents only: still no captures.
  fs::path none = fs::path(testing::TempDir()) / "none";
  fs::create_directories(none);
  std::ofstream(none / "config.json") << R"({"lr": 0.1})";
  CHECK_THROWS_AS(DiscoverInput(none.string()), InputError);
}
