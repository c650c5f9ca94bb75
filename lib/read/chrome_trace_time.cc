// ParseTraceTime: Chrome trace timestamps (microseconds as JSON numbers) to
// whole microseconds plus picoseconds, exactly for decimal text.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "lib/read/chrome_trace_builder.h"

namespace tfprof {
namespace {

constexpr int64_t kPsPerUs = 1'000'000;
constexpr uint64_t kPow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000};

bool IsDigit(char c) { return static_cast<unsigned char>(c - '0') <= 9; }

// Eight ASCII digits at once (epoch timestamps have 16 before the point):
// whether the eight bytes are all digits, and their value (SWAR: pairs,
// then fours, then the eight, by multiplications within the word).
bool EightDigits(const char* p, uint64_t* value) {
  uint64_t x;
  std::memcpy(&x, p, 8);
  // Every byte 0x30-0x39: its high nibble is 3, and adding 6 keeps it 3.
  if ((x & 0xF0F0F0F0F0F0F0F0ull) != 0x3030303030303030ull ||
      ((x + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) != 0x3030303030303030ull)
    return false;
  x -= 0x3030303030303030ull;  // Little-endian: the first digit is the low byte.
  x = (x * 10) + (x >> 8);     // Each even byte: two digits.
  x = (((x & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
       (((x >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >>
      32;
  *value = x;
  return true;
}

// Exponent forms and huge integers: through a double (what the text means
// is then only known to ~16 significant digits anyway).
bool ViaDouble(std::string_view text, TraceTime* out) {
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || std::fabs(v) > 9e15) return false;
  double floor_us = std::floor(v);
  out->us = static_cast<int64_t>(floor_us);
  out->frac_ps = std::llround((v - floor_us) * 1e6);
  if (out->frac_ps >= kPsPerUs) {
    out->us += 1;
    out->frac_ps -= kPsPerUs;
  }
  return true;
}

}  // namespace

bool ParseTraceTime(std::string_view text, TraceTime* out) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n' || text.back() == '\r' || text.back() == '\t'))
    text.remove_suffix(1);
  const char* p = text.data();
  const char* const end = p + text.size();
  const bool negative = p < end && *p == '-';
  if (negative) ++p;

  const char* digits = p;
  uint64_t whole = 0;  // Wraps past 19 digits, which go through a double below.
  for (uint64_t eight; end - p >= 8 && EightDigits(p, &eight); p += 8) whole = whole * 100'000'000 + eight;
  while (p < end && IsDigit(*p)) whole = whole * 10 + static_cast<uint64_t>(*p++ - '0');
  const size_t whole_digits = static_cast<size_t>(p - digits);
  if (whole_digits > 18) return ViaDouble(text, out);

  // Up to 6 decimals are picoseconds; the 7th rounds (half away from zero,
  // as llround would); the rest cannot matter.
  uint64_t frac = 0;
  size_t frac_digits = 0;
  bool round_up = false;
  if (p < end && *p == '.') {
    const char* first = ++p;
    while (p < end && IsDigit(*p) && p - first < 6) frac = frac * 10 + static_cast<uint64_t>(*p++ - '0');
    frac_digits = static_cast<size_t>(p - first);
    if (p < end && IsDigit(*p)) round_up = *p >= '5';
    while (p < end && IsDigit(*p)) ++p;
    if (p == first) return false;  // "1." is not a number.
  }
  if (whole_digits == 0) return false;  // Nor is ".5".
  if (p < end && (*p == 'e' || *p == 'E')) return ViaDouble(text, out);
  if (p != end) return false;

  frac *= kPow10[6 - frac_digits];
  if (round_up && ++frac == static_cast<uint64_t>(kPsPerUs)) {
    frac = 0;
    ++whole;
  }
  if (whole > 9'000'000'000'000'000ull) return false;
  if (!negative || frac == 0) {
    out->us = negative ? -static_cast<int64_t>(whole) : static_cast<int64_t>(whole);
    out->frac_ps = static_cast<int64_t>(frac);
  } else {  // -1.25 us is -2 us + 0.75 us.
    out->us = -static_cast<int64_t>(whole) - 1;
    out->frac_ps = kPsPerUs - static_cast<int64_t>(frac);
  }
  return true;
}

}  // namespace tfprof
