// Classifies JSON text 64 bytes at a time into bit masks: which bytes are
// brackets outside strings, split into opening and closing ones, carrying
// the string and escape state from block to block. The Chrome trace
// scanner's hot loop (chrome_trace_scanner.cc): it reads every byte of a
// trace before simdjson parses it, so it runs on the widest vectors the CPU
// has, chosen when the program runs (AVX-512, AVX2, else SSE2 or plain C++).
// Every variant gives the same masks (tests/read/json_block_classifier_test.cc).
#pragma once

#include <cstddef>
#include <cstdint>

namespace tfprof {

class JsonBlockClassifier {
 public:
  enum class Isa { kPortable, kAvx2, kAvx512 };
  // The widest this CPU and OS support.
  static Isa Best();
  static bool Supported(Isa isa);

  explicit JsonBlockClassifier(Isa isa = Best());

  // Classifies `blocks` whole blocks of 64 bytes from `p` into opens[i] and
  // closes[i] (bit j: byte 64 * i + j).
  void Classify(const char* p, size_t blocks, uint64_t* opens, uint64_t* closes);
  // The input's last, partial block of `n` < 64 bytes.
  void ClassifyTail(const char* p, size_t n, uint64_t* opens, uint64_t* closes);
  // After the bytes classified so far: inside a string.
  bool in_string() const { return state_.in_string != 0; }

  // What is carried from one block to the next.
  struct State {
    uint64_t in_string = 0;    // All ones while inside a string.
    bool escape_next = false;  // The last block ended in an unescaped backslash.
  };

 private:
  using Fn = void (*)(State&, const char*, size_t, uint64_t*, uint64_t*);
  Fn classify_;
  State state_;
};

}  // namespace tfprof
