// parity_report: one row per run × analysis × reference with how many values
// matched, differed (and the worst difference) or were not compared.
//   parity_report [--corpus DIR] [--verbose]
#include <cstring>
#include <iostream>

#include "fmt/format.h"
#include "tests/parity/parity.h"

int main(int argc, char** argv) {
  std::string corpus = TFPROF_CORPUS_DIR_DEFAULT;
  if (const char* env = std::getenv("TFPROF_CORPUS"); env && *env) corpus = env;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--corpus") && i + 1 < argc) corpus = argv[++i];
    else if (!std::strcmp(argv[i], "--verbose")) verbose = true;
  }
  auto cases = tfprof::parity::AllCases(TFPROF_SOURCE_DIR, corpus);
  std::cout << fmt::format("| {:<36} | {:<12} | {:<14} | {:>7} | {:>8} | {:>9} | {:>12} |\n", "capture", "analysis",
                           "reference", "matched", "differed", "not comp.", "worst diff");
  std::cout << "|" << std::string(38, '-') << "|" << std::string(14, '-') << "|" << std::string(16, '-') << "|"
            << std::string(9, '-') << "|" << std::string(10, '-') << "|" << std::string(11, '-') << "|"
            << std::string(14, '-') << "|\n";
  int failed = 0;
  for (auto& c : cases) {
    tfprof::parity::Tally t;
    try {
      t = c.run();
    } catch (const std::exception& e) {
      t.Text("error", e.what(), "");
    }
    failed += t.ok() ? 0 : 1;
    std::cout << fmt::format("| {:<36} | {:<12} | {:<14} | {:>7} | {:>8} | {:>9} | {:>12} |\n", c.capture, c.analysis,
                             c.reference, t.matched, t.differed, t.not_compared,
                             t.differed ? fmt::format("{:.3g}%", t.worst_relative * 100) : "-");
    if (verbose && !t.ok()) std::cout << t.Summary() << "\n";
  }
  std::cout << fmt::format("\n{} cases, {} with differences\n", cases.size(), failed);
  return failed ? 1 : 0;
}
