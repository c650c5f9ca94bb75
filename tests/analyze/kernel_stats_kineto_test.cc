// Kernel stats from a real PyTorch/Kineto Chrome trace, checked against the
// same numbers computed independently here from the JSON.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <tuple>

#include "lib/analyze/host_summary.h"
#include "lib/read/byte_source.h"
#include "lib/read/chrome_trace_reader.h"
#include "nlohmann/json.hpp"
#include "tests/support/corpus.h"
#include "tests/support/skip.h"

using namespace tfprof;

TEST_CASE("Kernel stats from a Kineto trace match an independent count", "[kernels][corpus]") {
  REQUIRE_CORPUS(path, "hta/timeline_analysis/sampled_rank-0.json.gz");
  // Independent: group `cat: kernel` events by name and launch parameters.
  nlohmann::json doc = nlohmann::json::parse(ReadWholeFile(path, 1u << 30));
  using Key = std::tuple<std::string, std::string, std::string, int64_t, int64_t>;
  struct Sum {
    uint64_t count = 0, total_ns = 0, max_ns = 0;
  };
  std::map<Key, Sum> expected;
  for (const auto& e : doc["traceEvents"]) {
    if (!e.contains("cat") || e["cat"] != "kernel" || e.value("ph", "") != "X") continue;
    const auto& a = e["args"];
    const uint64_t ns = static_cast<uint64_t>(std::llround(e["dur"].get<double>() * 1000));
    if (ns == 0) continue;
    Sum& s = expected[{e["name"].get<std::string>(), a["grid"].dump(), a["block"].dump(),
                       a.value("registers per thread", int64_t{0}), a.value("shared memory", int64_t{0})}];
    s.count += 1;
    s.total_ns += ns;
    s.max_ns = std::max(s.max_ns, ns);
  }
  std::vector<Sum> want;
  for (const auto& [k, s] : expected) want.push_back(s);
  std::sort(want.begin(), want.end(), [](const Sum& a, const Sum& b) { return a.total_ns > b.total_ns; });

  Diagnostics d;
  Host host = ReadChromeTraceFile(path, d);
  HostSummary summary = SummarizeHostOps(host, d);
  std::vector<KernelReport> got = summary.kernels.Sorted(0);
  REQUIRE(got.size() == expected.size());  // 419 rows for 1154 launches.
  uint64_t launches = 0;
  for (const KernelReport& r : got) launches += r.occurrences;
  CHECK(launches == 1154);
  for (size_t i = 0; i < 10; ++i) {
    INFO("row " << i << " " << got[i].name);
    CHECK(got[i].occurrences == want[i].count);
    CHECK(got[i].total_ns == want[i].total_ns);
    CHECK(got[i].max_ns == want[i].max_ns);
  }
  CHECK(got[0].name.rfind("ncclKernel_SendRecv", 0) == 0);
  CHECK(got[0].params.registers_per_thread == 96);
  CHECK(got[0].params.block == std::array<uint32_t, 3>{640, 1, 1});
}
