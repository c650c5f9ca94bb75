// libFuzzer target: see FuzzRules in fuzz/fuzz_rules.h.
#include "fuzz/fuzz_rules.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tfprof::fuzz::FuzzRules(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
