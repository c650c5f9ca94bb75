// The analyses on whatever a fuzzed capture reads as: readers accept
// plenty of odd-but-valid input (events out of order, stats of unexpected
// types, steps without ends, ids that collide), and every analysis must
// cope with it. Shared by fuzz/analyses_fuzzer.cc and the regression test
// that replays the findings (tests/read/bad_inputs_test.cc).
#pragma once

#include <string_view>

#include "fuzz/fuzz_common.h"
#include "fuzz/host_check.h"
#include "lib/analyze/run_metrics.h"
#include "lib/read/chrome_trace_reader.h"
#include "lib/read/xplane_reader.h"

namespace tfprof::fuzz {

// The first byte picks the reader (even: XSpace, odd: Chrome JSON) and the
// step options; the rest is the capture. Every analysis then runs through
// RunMetricsCollector, which summarises the host with each of them (op
// metrics, kernels, steps and the overview, memory, tf.data).
inline void FuzzAnalyses(std::string_view bytes) {
  if (bytes.empty()) return;
  const unsigned char mode = static_cast<unsigned char>(bytes.front());
  bytes.remove_prefix(1);
  ExpectOnlyInputErrors([&] {
    Diagnostics diagnostics;
    Host host = (mode & 1) ? ReadChromeTraceText(bytes, "fuzz.trace.json", diagnostics, FuzzReadOptions())
                           : ReadXSpaceBytes(bytes, "fuzz.xplane.pb", diagnostics, FuzzReadOptions());
    CheckHost(host);
    AnalysisOptions options;
    options.compat = static_cast<Compat>((mode >> 1) % 3);
    if (mode & 8) options.whole_trace = true;
    if (mode & 16) options.step_marker = "^[a-zA-Z]+#?\\d*$";
    RunMetricsCollector collector(options);
    collector.AddHost(host, diagnostics);
    RunAnalysis run = collector.Finish("fuzz");
    for (const Metric& m : run.metrics)
      if (m.def == nullptr) std::abort();  // Every metric is in the catalogue.
  });
}

}  // namespace tfprof::fuzz
