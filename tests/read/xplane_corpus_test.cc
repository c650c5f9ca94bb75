// Reads every real XSpace capture in the shared corpus with our wire reader
// and checks it event by event against protobuf's own generated parser: same
// planes, lines, events, names, times, durations and stat counts.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "lib/model/errors.h"
#include "lib/read/xplane_reader.h"
#include "proto/xplane.pb.h"
#include "tests/support/corpus.h"
#include "tests/support/files.h"
#include "tests/support/skip.h"

using namespace tfprof;
using tfprof::testing::Slurp;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> CorpusXPlanes() {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(testing::CorpusDir(), ec); it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    std::string p = it->path().string();
    if (p.size() > 10 && p.compare(p.size() - 10, 10, ".xplane.pb") == 0) out.push_back(p);
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool IsKnownCorrupt(const std::string& p) {
  // MANIFEST: corrupted upstream (bytes replaced by EF BF BD).
  return p.find("xprof_test_xplanes/tpu_inference_2.xplane.pb") != std::string::npos;
}

}  // namespace

TEST_CASE("Every corpus XSpace reads exactly as protobuf's own parser reads it", "[xplane][corpus]") {
  std::vector<std::string> files = CorpusXPlanes();
  if (files.empty()) {
    testing::SkipTest("no corpus at " + testing::CorpusDir() + " (set TFPROF_CORPUS)");
    return;
  }
  size_t checked = 0;
  for (const std::string& path : files) {
    if (IsKnownCorrupt(path)) continue;
    INFO(path);
    std::string bytes = Slurp(path);
    xplane::XSpace expected;
    REQUIRE(expected.ParseFromString(bytes));
    Diagnostics diag;
    Host h = ReadXSpaceFile(path, diag);
    REQUIRE(h.planes.size() == static_cast<size_t>(expected.planes_size()));
    for (int pi = 0; pi < expected.planes_size(); ++pi) {
      const xplane::XPlane& ep = expected.planes(pi);
      const Plane& p = h.planes[pi];
      REQUIRE(h.PlaneName(p) == ep.name());
      REQUIRE(p.id == ep.id());
      REQUIRE(p.lines.size() == static_cast<size_t>(ep.lines_size()));
      REQUIRE(p.event_metadata.size() == ep.event_metadata().size());
      for (int li = 0; li < ep.lines_size(); ++li) {
        const xplane::XLine& el = ep.lines(li);
        const Line& l = p.lines[li];
        REQUIRE(l.events.size() == static_cast<size_t>(el.events_size()));
        // Our reader sorts lines the profiler left unsorted; compare as sets
        // of (start, duration, name, stat count) then.
        std::vector<std::tuple<int64_t, int64_t, std::string, size_t>> want, got;
        for (int ei = 0; ei < el.events_size(); ++ei) {
          const xplane::XEvent& e = el.events(ei);
          const auto& meta = ep.event_metadata().at(e.metadata_id());
          int64_t start = (el.timestamp_ns() - h.time_origin_ns) * 1000 + e.offset_ps();
          want.emplace_back(start, e.duration_ps(), meta.display_name().empty() ? meta.name() : meta.display_name(),
                            static_cast<size_t>(e.stats_size()));
        }
        for (size_t ei = 0; ei < l.events.size(); ++ei)
          got.emplace_back(l.events[ei].start_ps, l.events[ei].duration_ps, std::string(h.EventName(p, l.events[ei])),
                           l.EventStats(ei).size());
        std::sort(want.begin(), want.end());
        std::sort(got.begin(), got.end());
        REQUIRE(got == want);
      }
    }
    ++checked;
  }
  CHECK(checked == files.size() - 1);  // All but the one known-corrupt capture.
  CHECK(checked >= 26);                // As many as the corpus held when this was written.
}

TEST_CASE("Corpus captures match the MANIFEST's counts", "[xplane][corpus]") {
  REQUIRE_CORPUS(path,
                 "e4040-2023fall-assign2-hd2551/logs/fit/20231107-181856/train/plugins/profile/"
                 "2023_11_07_18_18_59/instance-2.xplane.pb");
  Diagnostics diag;
  Host h = ReadXSpaceFile(path, diag);
  // MANIFEST: 2 planes, 880 events; /host:CPU 6 lines/503 ev; /device:GPU:0 7 lines/377 ev [cc 7.5, 40 SMs, 16 GB].
  REQUIRE(h.planes.size() == 2);
  CHECK(h.PlaneName(h.planes[0]) == "/host:CPU");
  CHECK(h.planes[0].lines.size() == 6);
  CHECK(h.planes[0].EventCount() == 503);
  const Plane& gpu = h.planes[1];
  CHECK(h.PlaneName(gpu) == "/device:GPU:0");
  CHECK(gpu.lines.size() == 7);
  CHECK(gpu.EventCount() == 377);
  CHECK(gpu.device.compute_cap_major == 7);
  CHECK(gpu.device.compute_cap_minor == 5);
  CHECK(gpu.device.core_count == 40);
  CHECK(gpu.device.memory_bytes == 15'843'721'216);
  CHECK(h.hostnames == std::vector<std::string>{"instance-2"});
  std::map<std::string, size_t> per_line;
  for (const Line& l : gpu.lines) per_line[std::string(h.LineName(l))] = l.events.size();
  CHECK(per_line == std::map<std::string, size_t>{{"Stream #13(Compute)", 144},
                                                  {"Stream #14(MemcpyH2D)", 5},
                                                  {"Stream #17(Compute)", 4},
                                                  {"Stream #15(MemcpyD2H)", 3},
                                                  {"TensorFlow Ops", 107},
                                                  {"TensorFlow Name Scope", 113},
                                                  {"Steps", 1}});
}

TEST_CASE("The corrupted corpus capture fails with one clear line", "[xplane][corpus][bad]") {
  REQUIRE_CORPUS(path, "xprof_test_xplanes/tpu_inference_2.xplane.pb");
  Diagnostics diag;
  try {
    ReadXSpaceFile(path, diag);
    FAIL("the corrupted capture was accepted");
  } catch (const InputError& e) {
    std::string what = e.what();
    CHECK(e.code() == kExitBadInput);
    CHECK(what.find(path) == 0);
    CHECK(what.find("not a valid XSpace protobuf") != std::string::npos);
    CHECK(what.find('\n') == std::string::npos);
  }
}
