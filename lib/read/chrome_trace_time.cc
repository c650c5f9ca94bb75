// ParseTraceTime: Chrome trace timestamps (microseconds as JSON numbers) to
// whole microseconds plus picoseconds, exactly for decimal text.
#include <charconv>
#include <cmath>

#include "lib/read/chrome_trace_builder.h"

namespace tfprof {
namespace {

constexpr int64_t kPsPerUs = 1'000'000;
constexpr uint64_t kPow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000};

bool IsDigit(char c) { return static_cast<unsigned char>(c - '0') <= 9; }

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
  uint64_t whole = 0;
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
