// Wall and CPU time of the phases of one run, for finding where time goes
// on a large capture: with TFPROF_PHASE_TIMES set in the environment, each
// PhaseTimer prints "phase NAME: T ms, CPU C ms, peak RSS M MiB" to stderr
// when it ends. C is the CPU time of all the process's threads over the
// phase's span, those of any phase running beside it included: for a
// phase that runs alone, C/T is how many cores it kept busy. The peak is
// the process's so far. Threads print their own phases; lines are written
// whole. Without it a timer costs one cached check. Not an output of the
// tool: nothing parses it.
#pragma once

#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace tfprof {

class PhaseTimer {
 public:
  explicit PhaseTimer(const char* name) : name_(name) {
    if (Enabled()) {
      start_ = std::chrono::steady_clock::now();
      cpu_start_ms_ = ProcessCpuMs();
    }
  }
  ~PhaseTimer() { Stop(); }
  // Ends the phase before the scope does (once).
  void Stop() {
    if (!Enabled() || name_ == nullptr) return;
    const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start_;
    std::fprintf(stderr, "phase %s: %.1f ms, CPU %.1f ms, peak RSS %ld MiB\n", name_, took.count(),
                 ProcessCpuMs() - cpu_start_ms_, PeakRssKiB() / 1024);
    name_ = nullptr;
  }
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

  static bool Enabled() {
    static const bool enabled = std::getenv("TFPROF_PHASE_TIMES") != nullptr;
    return enabled;
  }

 private:
  // The CPU time of all the process's threads so far.
  static double ProcessCpuMs() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
  }
  // VmHWM of /proc/self/status (0 where there is none).
  static long PeakRssKiB() {
    std::FILE* f = std::fopen("/proc/self/status", "r");
    if (f == nullptr) return 0;
    char line[256];
    long kib = 0;
    while (std::fgets(line, sizeof line, f) != nullptr)
      if (std::sscanf(line, "VmHWM: %ld kB", &kib) == 1) break;
    std::fclose(f);
    return kib;
  }

  const char* name_;
  std::chrono::steady_clock::time_point start_;
  double cpu_start_ms_ = 0;
};

}  // namespace tfprof
