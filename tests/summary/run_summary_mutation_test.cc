// Run summaries are inputs too (a `.tfsum` handed over from another
// machine): a damaged one must be one InputError, or read as some summary
// every analysis then runs on, never a crash or another exception. Bytes of
// a real summary are overwritten one at a time, and the file cut short, at
// positions spread over the message; each result goes through the reader,
// the host-by-host combine and every analysis (RunSummaryToMetrics runs
// them all), and the hosts table. Under the sanitizer build this is also a
// memory-safety sweep. (run_summary_file_test.cc sweeps every byte of a
// small hand-made summary through the reader alone.)
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "lib/analyze/hosts_analysis.h"
#include "lib/analyze/run_summary_to_metrics.h"
#include "lib/model/errors.h"
#include "lib/read/capture_discovery.h"
#include "lib/summary/captures_to_run_summary.h"
#include "lib/summary/run_summary_file.h"
#include "lib/summary/run_summary_stream_combine.h"
#include "tests/support/corpus.h"
#include "tests/support/files.h"
#include "tests/support/xspace_builder.h"

namespace tfprof {
namespace {

// What happened to one damaged summary.
enum class Outcome { kRefused, kRead };

Outcome Exercise(const std::string& bytes, const std::string& path) {
  testing::WriteFile(path, bytes);
  try {
    const RunSummary run = RunSummaryFromBytes(bytes, path);
    (void)RunSummaryToMetrics(run);
    (void)AnalyzeHosts(run);
  } catch (const InputError&) {
    return Outcome::kRefused;
  }
  // The streaming combine reads the same bytes its own way.
  std::ostringstream out;
  try {
    CombineRunSummaryFiles({path}, out);
  } catch (const InputError&) {
    // Also fine: it checks each host re-encodes to the same bytes.
  }
  return Outcome::kRead;
}

}  // namespace

TEST_CASE("A damaged run summary is refused with one InputError or read; never a crash", "[summary][proto][bad]") {
  // A real two-host TF2 summary with steps, ops, tf.data (and a PyTorch GPU
  // one with a memory profile): every part of the message is hit.
  for (const char* capture : {"testdata/captures/tf_two_hosts", "testdata/captures/torch_gpu_amp"}) {
    INFO(capture);
    SummaryOptions options;
    options.parts = SummaryParts::All();
    RunReadOptions read;
    read.hash_sources = true;
    const std::string good =
        RunSummaryToBytes(CapturesToRunSummary(DiscoverInput(testing::SourcePath(capture)), read, options));
    REQUIRE(good.size() > 2000);
    const std::string path = testing::TempDir() + "/damaged.tfsum";
    size_t refused = 0, read_ok = 0;
    const size_t stride = std::max<size_t>(1, (good.size() - kRunSummaryHeaderBytes) / 700);
    for (size_t at = kRunSummaryHeaderBytes; at < good.size(); at += stride) {
      for (char value : {'\xff', '\x00', '\x7f'}) {
        std::string damaged = good;
        if (damaged[at] == value) continue;
        damaged[at] = value;
        (Exercise(damaged, path) == Outcome::kRefused ? refused : read_ok) += 1;
      }
      // Cut short, with the header's length fixed to match: a message that ends early.
      std::string cut = good.substr(0, at);
      const uint64_t length = at - kRunSummaryHeaderBytes;
      for (int i = 0; i < 8; ++i) cut[12 + i] = static_cast<char>((length >> (8 * i)) & 0xff);
      (Exercise(cut, path) == Outcome::kRefused ? refused : read_ok) += 1;
    }
    std::filesystem::remove(path);
    // Both happen: damage in a count reads as another count, damage in a
    // tag or length is refused.
    CHECK(refused > 100);
    CHECK(read_ok > 100);
  }
}

}  // namespace tfprof
