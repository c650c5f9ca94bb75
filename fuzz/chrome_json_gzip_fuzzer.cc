// libFuzzer target: see FuzzFileReaders in fuzz/fuzz_inputs.h.
#include "fuzz/fuzz_inputs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tfprof::fuzz::FuzzFileReaders(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
