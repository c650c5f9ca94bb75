// The bad inputs of testdata/bad/ (made by scripts/make_bad_inputs.py; see
// its README for the table), run through the command: each must end with its
// documented exit code and exactly one error line naming the file, or read
// with the expected diagnostics. Also replays every fuzz finding kept in
// testdata/bad/fuzz/ through the code the fuzz target ran it through.
#include <sys/stat.h>
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "fuzz/fuzz_analyses.h"
#include "fuzz/fuzz_inputs.h"
#include "fuzz/fuzz_rules.h"
#include "lib/model/xplane_schema.h"
#include "nlohmann/json.hpp"
#include "tests/support/corpus.h"
#include "tests/support/run_tool.h"
#include "tests/support/skip.h"
#include "tests/support/unopenable_file.h"
#include "tests/support/xspace_builder.h"

namespace fs = std::filesystem;
using tfprof::testing::RunTool;
using tfprof::testing::ToolResult;

namespace {

const std::string kBad = std::string(TFPROF_SOURCE_DIR) + "/testdata/bad/";

struct ErrorCase {
  const char* file;
  const char* extra_args;
  int exit_code;
  const char* error_text;  // Must appear in the one error line.
};

// Keep in step with testdata/bad/README.md.
const ErrorCase kErrorCases[] = {
    {"truncated_7.xplane.pb", "", 3,
     "not a valid XSpace protobuf (truncated or corrupt): length 31331 runs past the end"},
    {"truncated_1000.xplane.pb", "", 3, "not a valid XSpace protobuf (truncated or corrupt)"},
    {"truncated_15769.xplane.pb", "", 3, "not a valid XSpace protobuf (truncated or corrupt)"},
    {"truncated_31537.xplane.pb", "", 3, "not a valid XSpace protobuf (truncated or corrupt)"},
    {"bitflip_length.xplane.pb", "", 3, "not a valid XSpace protobuf (truncated or corrupt)"},
    {"bitflip_scattered.xplane.pb", "", 3, "not a valid XSpace protobuf (truncated or corrupt)"},
    {"empty.xplane.pb", "", 3, "file is empty (0 bytes)"},
    {"whitespace.trace.json", "", 3, "file holds only whitespace"},
    {"image_png.xplane.pb", "", 3, "unknown format: neither an XSpace protobuf"},
    {"program_elf.xplane.pb", "", 3, "unknown format: neither an XSpace protobuf"},
    {"host.overview_page.pb", "", 3, "is TensorFlow's precomputed 'overview_page.pb' tool output, not a capture"},
    {"dangling_event_metadata.xplane.pb", "", 3,
     "an event refers to event metadata id 99, which its plane does not define"},
    {"dangling_stat_metadata.xplane.pb", "", 3,
     "a stat refers to stat metadata id 77, which its plane does not define"},
    {"empty.trace.json.gz", "", 3, "file is empty (0 bytes)"},
    {"empty_stream.trace.json.gz", "", 3, "gzip file inflates to nothing"},
    {"truncated.trace.json.gz", "", 3, "gzip data is truncated (unexpected end of file)"},
    {"truncated.xplane.pb.gz", "", 3, "gzip data is truncated (unexpected end of file)"},
    {"bomb.trace.json.gz", "--max-inflated-mb 16", 3, "gzip content inflates beyond the 16 MiB limit"},
    {"bomb.xplane.pb.gz", "--max-inflated-mb 16", 3, "gzip content inflates beyond the 16 MiB limit"},
    {"broken_nesting.trace.json", "", 3, "invalid JSON at byte 137: mismatched '}' in traceEvents, expected ']'"},
    {"unclosed.trace.json", "", 3, "unexpected end of the file inside traceEvents (truncated file?)"},
    {"not_a_trace.json", "", 3, "JSON but not a Chrome trace: no traceEvents array"},
    {"deep_unclosed.trace.json.gz", "", 3, "unexpected end of the file inside traceEvents (truncated file?)"},
    {"logdir_dangling", "", 3, "(skipped 2024_01_01_00_00_00/host.xplane.pb (a dangling symlink))"},
    {"logdir_capture_is_folder", "", 3, "(skipped 2024_01_01_00_00_00/host.xplane.pb (a folder))"},
};

void CheckOneErrorLine(const ToolResult& r, const std::string& path, int exit_code, const std::string& text) {
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == exit_code);
  REQUIRE(!r.err.empty());
  CHECK(r.err.back() == '\n');
  CHECK(r.err.find('\n') == r.err.size() - 1);  // Exactly one line.
  CHECK(r.err.rfind("tfprof-analyze: error: ", 0) == 0);
  CHECK(r.err.find(fs::path(path).filename().string()) != std::string::npos);
  CHECK(r.err.find(text) != std::string::npos);
  CHECK(r.out.empty());
}

// kind -> count, from the command's JSON output.
std::map<std::string, uint64_t> Diagnostics(const ToolResult& r) {
  std::map<std::string, uint64_t> out;
  const nlohmann::json doc = nlohmann::json::parse(r.out);  // Not a temporary: the loop outlives it.
  for (const auto& d : doc.at("diagnostics")) out[d.at("kind").get<std::string>()] = d.at("count").get<uint64_t>();
  return out;
}

uint64_t Events(const ToolResult& r) {
  uint64_t events = 0;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  for (const auto& host : doc.at("tables").at("hosts")) events += host.at("events").get<uint64_t>();
  return events;
}

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~ScopedEnv() { ::unsetenv(name_); }

 private:
  const char* name_;
};

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("Every bad input ends with its exit code and one error line naming the file", "[bad_inputs]") {
  for (const ErrorCase& c : kErrorCases) {
    SECTION(c.file) {
      const std::string path = kBad + c.file;
      ToolResult r = RunTool("info '" + path + "' " + c.extra_args);
      CheckOneErrorLine(r, path, c.exit_code, c.error_text);
    }
  }
}

TEST_CASE("Every file of testdata/bad/ is covered by a case", "[bad_inputs]") {
  std::set<std::string> covered;
  for (const ErrorCase& c : kErrorCases) covered.insert(c.file);
  for (const char* f : {"odd_times.trace.json", "deep_args.trace.json.gz", "deep_top.trace.json.gz",
                        "good_small.xplane.pb", "README.md", "fuzz"})
    covered.insert(f);
  for (const auto& e : fs::directory_iterator(kBad)) CHECK(covered.count(e.path().filename().string()) == 1);
}

TEST_CASE("Absurd and negative times read with diagnostics, exit 0", "[bad_inputs]") {
  ToolResult r = RunTool("info -f json '" + kBad + "odd_times.trace.json'");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto d = Diagnostics(r);
  // ts 1e300, ts "abc", ts 10^23 (events dropped) and dur 9.3e18 (the
  // event kept without a duration): not times this reader can hold.
  CHECK(d["json.bad_field_type"] == 4);
  CHECK(d["json.negative_duration"] == 1);
  CHECK(d["json.unclosed_begin"] == 1);
  CHECK(d["json.unmatched_end"] == 1);
  CHECK(Events(r) == 4);  // ok, negative_ts, negative_dur (clamped to 0), huge_dur (no duration).
}

TEST_CASE("100k levels of JSON nesting neither crash nor recurse away the stack", "[bad_inputs]") {
  ToolResult args = RunTool("info -f json '" + kBad + "deep_args.trace.json.gz'");
  INFO(args.err);
  CHECK(args.exit_code == 0);
  CHECK(Events(args) == 2);  // The deep args value is kept as its JSON text.
  // A bare array whose only element is that deep array holds no event
  // object: parsed, then refused as no trace (exit 3), in one line.
  ToolResult top = RunTool("info -f json '" + kBad + "deep_top.trace.json.gz'");
  INFO(top.err);
  CHECK(top.exit_code == 3);
  CHECK(top.err.find("deep_top.trace.json.gz: JSON but not a Chrome trace: an array with no event object, only one "
                     "other value: an array") != std::string::npos);
}

TEST_CASE("The gzip bomb guard follows the available memory", "[bad_inputs]") {
  ScopedEnv limit("TFPROF_MEMORY_LIMIT", "20M");  // An XSpace may then inflate to 8 MiB.
  ToolResult r = RunTool("info '" + kBad + "bomb.xplane.pb.gz'");
  CheckOneErrorLine(r, "bomb.xplane.pb.gz", 3, "more than this machine's available memory allows reading");
}

TEST_CASE("A capture larger than the available memory is refused early, and read in part with --max-events",
          "[bad_inputs]") {
  const std::string capture = std::string(TFPROF_SOURCE_DIR) + "/testdata/captures/tf_input_bound";
  {
    ScopedEnv limit("TFPROF_MEMORY_LIMIT", "100K");
    ToolResult r = RunTool("info '" + capture + "'");
    CheckOneErrorLine(r, "tfprof-capture.xplane.pb", 3,
                      "of memory, but only 100 KiB is available; read part of it with --max-events N");
    ToolResult part = RunTool("info -f json --max-events 1000 '" + capture + "'");
    INFO(part.err);
    CHECK(part.exit_code == 0);
    CHECK(Diagnostics(part).count("read.max_events_reached") == 1);
    CHECK(Events(part) == 1000);
  }
  ToolResult whole = RunTool("info -f json '" + capture + "'");
  CHECK(whole.exit_code == 0);
  CHECK(Diagnostics(whole).count("read.max_events_reached") == 0);
}

TEST_CASE("The Chrome trace reader is capped by --max-events too, with a warning", "[bad_inputs]") {
  const std::string trace = std::string(TFPROF_SOURCE_DIR) + "/testdata/captures/torch_mlp/trace.json";
  ToolResult r = RunTool("info -f json --max-events 10 '" + trace + "'");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto d = Diagnostics(r);
  CHECK(d.count("read.max_events_reached") == 1);
  CHECK(Events(r) <= 10);
  ToolResult text = RunTool("info --max-events 10 '" + trace + "'");
  CHECK(text.out.find("read.max_events_reached") != std::string::npos);  // Shown without --verbose.
}

TEST_CASE("FIFOs are never opened: not as an input, not in a run folder", "[bad_inputs]") {
  fs::path dir = tfprof::testing::TempDir();
  fs::create_directories(dir / "run");
  REQUIRE(::mkfifo((dir / "run/host.xplane.pb").c_str(), 0600) == 0);
  ToolResult direct = RunTool("info '" + (dir / "run/host.xplane.pb").string() + "'");
  CheckOneErrorLine(direct, "host.xplane.pb", 3, "is neither a file nor a folder");
  ToolResult folder = RunTool("info '" + (dir / "run").string() + "'");
  CheckOneErrorLine(folder, "run", 3, "no readable capture: host.xplane.pb (a FIFO)");

  // Beside a good capture: read the good one, warn about the other.
  fs::copy_file(kBad + "good_small.xplane.pb", dir / "run/good.xplane.pb");
  ToolResult mixed = RunTool("info -f json '" + (dir / "run").string() + "'");
  INFO(mixed.err);
  REQUIRE(mixed.exit_code == 0);
  CHECK(Diagnostics(mixed)["input.skipped_file"] == 1);
}

TEST_CASE("Reading never writes into the input", "[bad_inputs]") {
  std::map<std::string, std::string> before;
  for (const auto& e : fs::recursive_directory_iterator(kBad))
    if (e.is_regular_file()) before[e.path().string()] = Slurp(e.path());
  for (const ErrorCase& c : kErrorCases) RunTool("info '" + kBad + c.file + "' " + c.extra_args);
  for (const auto& [path, bytes] : before) CHECK(Slurp(path) == bytes);
}

TEST_CASE("Fuzz findings kept in testdata/bad/fuzz/ stay fixed", "[bad_inputs][fuzz]") {
  size_t replayed = 0;
  for (const auto& e : fs::directory_iterator(kBad + "fuzz")) {
    const std::string name = e.path().filename().string();
    if (name == "README.md") continue;
    const std::string bytes = Slurp(e.path());
    INFO(name);
    // The target's name is the file name's prefix; an abort here is the
    // finding coming back.
    if (name.rfind("xplane_fuzzer-", 0) == 0) tfprof::fuzz::FuzzXplane(bytes);
    else if (name.rfind("chrome_json_fuzzer-", 0) == 0) tfprof::fuzz::FuzzChromeJson(bytes);
    else if (name.rfind("chrome_json_gzip_fuzzer-", 0) == 0) tfprof::fuzz::FuzzFileReaders(bytes);
    else if (name.rfind("discovery_fuzzer-", 0) == 0) tfprof::fuzz::FuzzDiscovery(bytes);
    else if (name.rfind("analyses_fuzzer-", 0) == 0) tfprof::fuzz::FuzzAnalyses(bytes);
    else if (name.rfind("rules_fuzzer-", 0) == 0) tfprof::fuzz::FuzzRules(bytes);
    else FAIL("unknown fuzz target prefix: " << name);
    ++replayed;
  }
  CHECK(replayed >= 2);  // The two findings of the first runs at least.
}

TEST_CASE("Every XSpace of testdata, bad or good, read as the fuzz target reads it", "[bad_inputs][fuzz]") {
  // FuzzXplane reads twice: whole, and as the analysing commands read (lines
  // they do not read skipped by their length, allocator events left out);
  // FuzzAnalyses as the report commands read and analyse.
  // A bad input must end in an InputError either way, a good one in a model
  // whose invariants hold (an abort here is a finding).
  size_t read = 0;
  for (const std::string& dir : {kBad, std::string(TFPROF_SOURCE_DIR) + "/testdata/captures"}) {
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      const std::string name = e.path().filename().string();
      if (!e.is_regular_file() || name.size() < 10 || name.substr(name.size() - 10) != ".xplane.pb") continue;
      INFO(e.path().string());
      const std::string bytes = Slurp(e.path());
      tfprof::fuzz::FuzzXplane(bytes);
      // And analysed as the report commands read it, allocator records
      // and all (FuzzAnalyses's first byte: bit 32 for that read, the
      // compat mode (mode >> 1) % 3 and chunks of 1 + (mode >> 6) events:
      // 36 our rules in chunks of 1, 100 TensorFlow 2.x's in chunks of 2;
      // not --compat xprof, whose op metrics keep the stats pooled).
      for (const char mode : {char{36}, char{100}}) tfprof::fuzz::FuzzAnalyses(std::string(1, mode) + bytes);
      ++read;
    }
  }
  CHECK(read >= 20);
}

TEST_CASE("The fuzz targets read a capture grouped when taken as `memory` alone does, leaving events out",
          "[bad_inputs][fuzz][corpus]") {
  // scripts/fuzz.sh seeds the targets with such captures of the corpus (no
  // capture of testdata is grouped when taken): this checks that their
  // read takes the leave-out by groups, by offsets and by marks alike, and
  // runs them through both targets as the fuzzer starts from them.
  REQUIRE_CORPUS(path,
                 "e4040-2022fall-assign2-yg2820/logs/fit/20221104-212610/train/plugins/profile/2022_11_04_21_26_12/"
                 "instance-ecbm.xplane.pb");
  const std::string bytes = Slurp(path);
  REQUIRE(bytes.size() > 100000);
  auto read = [&](size_t size) {
    tfprof::Diagnostics diag;
    return tfprof::ReadXSpaceBytes(bytes, "fuzz.xplane.pb", diag, tfprof::fuzz::MemoryAloneFuzzReadOptions(size));
  };
  tfprof::ReadOptions whole_options;
  tfprof::Diagnostics diag;
  const tfprof::Host whole = tfprof::ReadXSpaceBytes(bytes, "whole.xplane.pb", diag, whole_options);
  const tfprof::Plane* whole_cpu = whole.FindPlane(tfprof::schema::kHostThreadsPlane);
  REQUIRE(whole_cpu);
  // Sizes of either parity: the kept events by offsets (even), by marks (odd).
  const tfprof::Host by_offsets = read(bytes.size() + bytes.size() % 2),
                     by_marks = read(bytes.size() + 1 - bytes.size() % 2);
  for (const tfprof::Host* h : {&by_offsets, &by_marks}) {
    const tfprof::Plane* cpu = h->FindPlane(tfprof::schema::kHostThreadsPlane);
    REQUIRE(cpu);
    // The host events that are no allocator events and hold one integer
    // group_id and no step_name: 272, counted once on the whole model with
    // the rule xplane_groups_left_out_test.cc's T4 case counts by.
    CHECK(cpu->EventsLeftOut() == 272);
    CHECK(cpu->EventCount() + cpu->EventsLeftOut() == whole_cpu->EventCount());
    CHECK(!cpu->left_out_group_ids.empty());
    CHECK(cpu->allocator_records_complete);
  }
  const tfprof::Plane& a = *by_offsets.FindPlane(tfprof::schema::kHostThreadsPlane);
  const tfprof::Plane& b = *by_marks.FindPlane(tfprof::schema::kHostThreadsPlane);
  CHECK(a.left_out_group_ids == b.left_out_group_ids);
  REQUIRE(a.lines.size() == b.lines.size());
  for (size_t l = 0; l < a.lines.size(); ++l) {
    REQUIRE(a.lines[l].events.size() == b.lines[l].events.size());
    for (size_t e = 0; e < a.lines[l].events.size(); ++e) {
      CHECK(a.lines[l].events[e].start_ps == b.lines[l].events[e].start_ps);
      CHECK(a.lines[l].events[e].metadata == b.lines[l].events[e].metadata);
    }
  }
  // And the same allocator records (cut into blocks by each read's chunks,
  // which differ): per line and event, the same sizes and address.
  auto records = [](const tfprof::Plane& p) {
    std::vector<std::tuple<uint32_t, uint32_t, int64_t, uint64_t>> out;
    for (const tfprof::AllocatorRecordBlock& block : p.allocator_records)
      for (const tfprof::AllocatorStats& r : block.records)
        out.emplace_back(block.line, r.event, r.bytes_allocated, r.address);
    std::sort(out.begin(), out.end());
    return out;
  };
  const auto records_a = records(a);
  size_t allocator_events = 0;  // One record each.
  for (const tfprof::Line& line : whole_cpu->lines)
    for (const tfprof::Event& event : line.events)
      allocator_events += tfprof::schema::IsAllocatorEvent(whole.EventName(*whole_cpu, event));
  CHECK(allocator_events == 160);  // `memory` reports 77 + 77 and 3 + 3 allocations and frees.
  CHECK(records_a.size() == allocator_events);
  CHECK(records_a == records(b));
  tfprof::fuzz::FuzzXplane(bytes);
  for (const char mode : {char{0x26}, char{0x66}}) tfprof::fuzz::FuzzAnalyses(std::string(1, mode) + bytes);
}

TEST_CASE("A host file that cannot be opened is skipped with a warning", "[bad_inputs]") {
  // Issue #13: one unreadable file made `info <logdir>` and `--list-runs`
  // fail. It is now skipped and reported like a FIFO. (Tests run as root,
  // whom chmod 000 does not stop: see tests/support/unopenable_file.h.)
  fs::path logdir = tfprof::testing::TempDir();
  fs::path run = logdir / "plugins/profile/2024_01_01_00_00_00";
  fs::create_directories(run);
  fs::copy_file(kBad + "good_small.xplane.pb", run / "good.xplane.pb");
  REQUIRE(tfprof::testing::MakeUnopenableFile((run / "locked.xplane.pb").string()));

  ToolResult info = RunTool("info -f json '" + logdir.string() + "'");
  INFO(info.err);
  REQUIRE(info.exit_code == 0);
  CHECK(Diagnostics(info)["input.skipped_file"] == 1);
  CHECK(nlohmann::json::parse(info.out).at("tables").at("hosts").size() == 1);

  ToolResult runs = RunTool("info --list-runs -f csv '" + logdir.string() + "'");
  INFO(runs.err);
  REQUIRE(runs.exit_code == 0);
  CHECK(runs.out == "run,hosts,path\n2024_01_01_00_00_00,1," + run.string() + "\n");
}
