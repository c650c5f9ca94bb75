// Times ReadChromeTraceFile on one or more files and prints throughput and
// the model's size, for docs/performance.md. Build with build_json_bench.sh
// (a Release build of just the reader; independent of the CLI).
//
//   scripts/bench/build_json_bench.sh && /tmp/chrome_trace_bench FILE...
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <exception>

#include "lib/read/chrome_trace_reader.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s TRACE.json[.gz]...\n", argv[0]);
    return 2;
  }
  for (int i = 1; i < argc; ++i) {
    tfprof::Diagnostics diagnostics;
    auto t0 = std::chrono::steady_clock::now();
    tfprof::Host host;
    try {
      host = tfprof::ReadChromeTraceFile(argv[i], diagnostics);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return 3;
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    size_t events = 0, stats = 0, lines = 0;
    for (const auto& p : host.planes) {
      lines += p.lines.size();
      for (const auto& l : p.lines) {
        events += l.events.size();
        stats += l.stats.size();
      }
    }
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    std::printf("%s: %.1f MB on disk, %.3f s, %.0f MB/s (of the file), planes %zu lines %zu events %zu stats %zu strings %zu (%.1f MB), peak RSS %.1f MB\n",
                argv[i], host.file_bytes / 1e6, seconds, host.file_bytes / 1e6 / seconds, host.planes.size(), lines, events,
                stats, host.strings.size(), host.strings.bytes() / 1e6, usage.ru_maxrss / 1024.0);
    for (const auto& d : diagnostics.Entries())
      std::printf("  %s %s x%llu (%s)\n", std::string(tfprof::SeverityName(d.severity)).c_str(), d.kind.c_str(),
                  static_cast<unsigned long long>(d.count), d.example.c_str());
  }
  return 0;
}
