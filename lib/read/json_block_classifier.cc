#include "lib/read/json_block_classifier.h"

#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#define TFPROF_X86 1
#endif

namespace tfprof {
namespace {

using State = JsonBlockClassifier::State;

// Bytes escaped by a backslash: the byte after each backslash that is not
// itself escaped. Backslashes are rare in traces, so a loop over them is
// cheap.
[[gnu::always_inline]] inline uint64_t Escaped(uint64_t backslash, State& s) {
  uint64_t escaped = 0;
  if (s.escape_next) {
    escaped = 1;
    backslash &= ~uint64_t{1};
    s.escape_next = false;
  }
  while (backslash) {
    int bit = __builtin_ctzll(backslash);
    backslash &= backslash - 1;
    if (bit == 63) {
      s.escape_next = true;
      break;
    }
    escaped |= uint64_t{1} << (bit + 1);
    backslash &= ~(uint64_t{1} << (bit + 1));
  }
  return escaped;
}

// A block's brackets outside strings, from its unescaped quotes' running
// parity (each quote flips it: `quote_parity`, the prefix XOR of the
// quotes) and the state carried from the block before.
[[gnu::always_inline]] inline void Brackets(State& s, uint64_t quote_parity, uint64_t open, uint64_t close,
                                            uint64_t* opens, uint64_t* closes) {
  const uint64_t inside = quote_parity ^ s.in_string;
  s.in_string = static_cast<uint64_t>(static_cast<int64_t>(inside) >> 63);
  *opens = open & ~inside;
  *closes = close & ~inside;
}

uint64_t ShiftPrefixXor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

// '{' and '[' differ only in bit 0x20, as do '}' and ']': one compare each
// after setting that bit.
void ClassifyPortable(State& s, const char* p, size_t blocks, uint64_t* opens, uint64_t* closes) {
  for (size_t i = 0; i < blocks; ++i, p += 64) {
    uint64_t q = 0, b = 0, o = 0, c = 0;
#if defined(__SSE2__)
    const __m128i vq = _mm_set1_epi8('"'), vb = _mm_set1_epi8('\\');
    const __m128i bit = _mm_set1_epi8(0x20), vo = _mm_set1_epi8('{'), vc = _mm_set1_epi8('}');
    for (int k = 0; k < 4; ++k) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
      const __m128i folded = _mm_or_si128(v, bit);
      const int shift = 16 * k;
      q |= uint64_t{static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, vq)))} << shift;
      b |= uint64_t{static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, vb)))} << shift;
      o |= uint64_t{static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(folded, vo)))} << shift;
      c |= uint64_t{static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(folded, vc)))} << shift;
    }
#else
    for (int k = 0; k < 64; ++k) {
      const uint64_t m = uint64_t{1} << k;
      switch (p[k]) {
        case '"': q |= m; break;
        case '\\': b |= m; break;
        case '{':
        case '[': o |= m; break;
        case '}':
        case ']': c |= m; break;
      }
    }
#endif
    Brackets(s, ShiftPrefixXor(q & ~Escaped(b, s)), o, c, opens + i, closes + i);
  }
}

#if defined(TFPROF_X86)
// The parity prefix as one carry-less multiply by all ones.
__attribute__((target("pclmul"), always_inline)) inline uint64_t ClmulPrefixXor(uint64_t x) {
  return static_cast<uint64_t>(
      _mm_cvtsi128_si64(_mm_clmulepi64_si128(_mm_set_epi64x(0, static_cast<int64_t>(x)), _mm_set1_epi8(-1), 0)));
}

// The bytes of two 32-byte halves whose top bit is set, as 64 bits.
__attribute__((target("avx2"), always_inline)) inline uint64_t Mask64(__m256i lo, __m256i hi) {
  return uint64_t{static_cast<uint32_t>(_mm256_movemask_epi8(lo))} |
         (uint64_t{static_cast<uint32_t>(_mm256_movemask_epi8(hi))} << 32);
}

__attribute__((target("avx2,pclmul"))) void ClassifyAvx2(State& s, const char* p, size_t blocks, uint64_t* opens,
                                                         uint64_t* closes) {
  const __m256i vq = _mm256_set1_epi8('"'), vb = _mm256_set1_epi8('\\');
  const __m256i bit = _mm256_set1_epi8(0x20), vo = _mm256_set1_epi8('{'), vc = _mm256_set1_epi8('}');
  for (size_t i = 0; i < blocks; ++i, p += 64) {
    const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32));
    const __m256i flo = _mm256_or_si256(lo, bit), fhi = _mm256_or_si256(hi, bit);
    const uint64_t q = Mask64(_mm256_cmpeq_epi8(lo, vq), _mm256_cmpeq_epi8(hi, vq));
    const uint64_t b = Mask64(_mm256_cmpeq_epi8(lo, vb), _mm256_cmpeq_epi8(hi, vb));
    Brackets(s, ClmulPrefixXor(q & ~Escaped(b, s)), Mask64(_mm256_cmpeq_epi8(flo, vo), _mm256_cmpeq_epi8(fhi, vo)),
             Mask64(_mm256_cmpeq_epi8(flo, vc), _mm256_cmpeq_epi8(fhi, vc)), opens + i, closes + i);
  }
}

__attribute__((target("avx512bw,pclmul"))) void ClassifyAvx512(State& s, const char* p, size_t blocks, uint64_t* opens,
                                                               uint64_t* closes) {
  const __m512i vq = _mm512_set1_epi8('"'), vb = _mm512_set1_epi8('\\');
  const __m512i bit = _mm512_set1_epi8(0x20), vo = _mm512_set1_epi8('{'), vc = _mm512_set1_epi8('}');
  for (size_t i = 0; i < blocks; ++i, p += 64) {
    const __m512i v = _mm512_loadu_si512(p);
    const __m512i folded = _mm512_or_si512(v, bit);
    const uint64_t q = _mm512_cmpeq_epi8_mask(v, vq), b = _mm512_cmpeq_epi8_mask(v, vb);
    Brackets(s, ClmulPrefixXor(q & ~Escaped(b, s)), _mm512_cmpeq_epi8_mask(folded, vo),
             _mm512_cmpeq_epi8_mask(folded, vc), opens + i, closes + i);
  }
}
#endif

}  // namespace

bool JsonBlockClassifier::Supported(Isa isa) {
  switch (isa) {
    case Isa::kPortable: return true;
#if defined(TFPROF_X86)
    // libgcc's checks include the OS's: that it saves the wide registers.
    case Isa::kAvx2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul");
    case Isa::kAvx512: return __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("pclmul");
#else
    default: return false;
#endif
  }
  return false;
}

JsonBlockClassifier::Isa JsonBlockClassifier::Best() {
  static const Isa best = Supported(Isa::kAvx512) ? Isa::kAvx512 : Supported(Isa::kAvx2) ? Isa::kAvx2 : Isa::kPortable;
  return best;
}

JsonBlockClassifier::JsonBlockClassifier(Isa isa) : classify_(ClassifyPortable) {
#if defined(TFPROF_X86)
  if (isa == Isa::kAvx512 && Supported(isa)) classify_ = ClassifyAvx512;
  else if (isa == Isa::kAvx2 && Supported(isa)) classify_ = ClassifyAvx2;
#else
  (void)isa;
#endif
}

void JsonBlockClassifier::Classify(const char* p, size_t blocks, uint64_t* opens, uint64_t* closes) {
  classify_(state_, p, blocks, opens, closes);
}

void JsonBlockClassifier::ClassifyTail(const char* p, size_t n, uint64_t* opens, uint64_t* closes) {
  char block[64];
  std::memset(block, ' ', sizeof block);  // Spaces match nothing.
  std::memcpy(block, p, n < 64 ? n : 64);
  classify_(state_, block, 1, opens, closes);
}

}  // namespace tfprof
