// Wall time of the phases of one run, for finding where time goes on a
// large capture: with TFPROF_PHASE_TIMES set in the environment, each
// PhaseTimer prints "phase NAME: T ms" to stderr when it ends (threads
// print their own phases; lines are written whole). Without it a timer
// costs one cached check. Not an output of the tool: nothing parses it.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace tfprof {

class PhaseTimer {
 public:
  explicit PhaseTimer(const char* name) : name_(name) {
    if (Enabled()) start_ = std::chrono::steady_clock::now();
  }
  ~PhaseTimer() { Stop(); }
  // Ends the phase before the scope does (once).
  void Stop() {
    if (!Enabled() || name_ == nullptr) return;
    const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start_;
    std::fprintf(stderr, "phase %s: %.1f ms\n", name_, took.count());
    name_ = nullptr;
  }
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

  static bool Enabled() {
    static const bool enabled = std::getenv("TFPROF_PHASE_TIMES") != nullptr;
    return enabled;
  }

 private:
  const char* name_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace tfprof
