// libFuzzer target: see FuzzAnalyses in fuzz/fuzz_analyses.h.
#include "fuzz/fuzz_analyses.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tfprof::fuzz::FuzzAnalyses(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
