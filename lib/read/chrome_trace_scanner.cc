#include "lib/read/chrome_trace_scanner.h"

#include <cstring>
#include <utility>

#include "lib/model/errors.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tfprof {
namespace {

bool IsSpace(int c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// The scanner's two hot loops: find the next byte that can change its state.
// Outside strings that is a quote, a bracket or a comma; inside strings a
// quote or a backslash. 16 bytes at a time where SSE2 is available (every
// x86-64), a plain loop elsewhere.
const char* FindStructural(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), comma = _mm_set1_epi8(',');
  // '{' and '[' differ only in bit 0x20, as do '}' and ']'.
  const __m128i bit = _mm_set1_epi8(0x20), open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}');
  for (; end - p >= 16; p += 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i folded = _mm_or_si128(v, bit);
    __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, comma)),
                               _mm_or_si128(_mm_cmpeq_epi8(folded, open), _mm_cmpeq_epi8(folded, close)));
    if (int mask = _mm_movemask_epi8(hit)) return p + __builtin_ctz(static_cast<unsigned>(mask));
  }
#endif
  for (; p < end; ++p) {
    char c = *p;
    if (c == '"' || c == ',' || c == '{' || c == '}' || c == '[' || c == ']') return p;
  }
  return end;
}

const char* FindQuoteOrBackslash(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
  for (; end - p >= 16; p += 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash));
    if (int mask = _mm_movemask_epi8(hit)) return p + __builtin_ctz(static_cast<unsigned>(mask));
  }
#endif
  for (; p < end; ++p)
    if (*p == '"' || *p == '\\') return p;
  return end;
}

bool IsBlank(std::string_view s) {
  for (char c : s)
    if (!IsSpace(static_cast<unsigned char>(c))) return false;
  return true;
}

std::string Printable(int c) {
  if (c >= 0x20 && c < 0x7f) return std::string("'") + static_cast<char>(c) + "'";
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02x", c & 0xff);
  return hex;
}

}  // namespace

TraceJsonScanner::TraceJsonScanner(std::string path, ChunkReader& input, TraceScanConsumer& consumer, size_t block_bytes)
    : path_(std::move(path)), input_(input), consumer_(consumer), block_bytes_(std::max<size_t>(block_bytes, 64)) {
  cap_ = block_bytes_;
  buf_.reset(new char[cap_]);
}

void TraceJsonScanner::Invalid(uint64_t offset, const std::string& what) const {
  throw InputError(path_, "invalid JSON at byte " + std::to_string(offset) + ": " + what);
}

void TraceJsonScanner::NotATrace(const std::string& what) const {
  throw InputError(path_, "JSON but not a Chrome trace: " + what);
}

bool TraceJsonScanner::Fill() {
  if (eof_) return false;
  if (keep_ > 0) {
    std::memmove(buf_.get(), buf_.get() + keep_, end_ - keep_);
    pos_ -= keep_;
    end_ -= keep_;
    base_ += keep_;
    keep_ = 0;
  }
  if (end_ == cap_) {
    // One element larger than the buffer: grow rather than split it.
    std::unique_ptr<char[]> bigger(new char[cap_ * 2]);
    std::memcpy(bigger.get(), buf_.get(), end_);
    buf_ = std::move(bigger);
    cap_ *= 2;
  }
  size_t n = input_.Read(buf_.get() + end_, cap_ - end_);
  if (n == 0) {
    eof_ = true;
    return false;
  }
  end_ += n;
  result_.content_bytes += n;
  return true;
}

int TraceJsonScanner::Peek() {
  while (pos_ == end_) {
    keep_ = pos_;
    if (!Fill()) return -1;
  }
  return static_cast<unsigned char>(buf_[pos_]);
}

int TraceJsonScanner::NextNonSpace() {
  for (;;) {
    int c = Peek();
    if (c < 0 || !IsSpace(c)) return c;
    ++pos_;
  }
}

void TraceJsonScanner::Expect(char c, const char* what) {
  int got = NextNonSpace();
  if (got != c) {
    Invalid(Offset(pos_), std::string("expected ") + what + (got < 0 ? ", found the end of the file" : ", found " + Printable(got)));
  }
  ++pos_;
}

std::string TraceJsonScanner::ReadKey() {
  Expect('"', "a key string");
  std::string key;
  for (;;) {
    int c = Peek();
    if (c < 0) Invalid(Offset(pos_), "unexpected end of the file inside a key");
    ++pos_;
    if (c == '"') return key;
    if (c == '\\') {
      // Keys are only compared with plain names; keep escapes other than
      // the simple ones as written.
      int e = Peek();
      if (e < 0) Invalid(Offset(pos_), "unexpected end of the file inside a key");
      ++pos_;
      switch (e) {
        case 'n': key += '\n'; break;
        case 't': key += '\t'; break;
        case 'r': key += '\r'; break;
        case 'b': key += '\b'; break;
        case 'f': key += '\f'; break;
        case '"': case '\\': case '/': key += static_cast<char>(e); break;
        default: key += '\\'; key += static_cast<char>(e);
      }
      continue;
    }
    if (c < 0x20) Invalid(Offset(pos_ - 1), "control character inside a key string");
    key += static_cast<char>(c);
  }
}

void TraceJsonScanner::SkipValue(std::string* capture, bool* overflow) {
  size_t segment = pos_;  // Start of the text not yet appended to `capture`.
  auto flush = [&] {
    if (capture && !*overflow) {
      if (capture->size() + (pos_ - segment) > kMaxCapturedValue) {
        *overflow = true;
        capture->clear();
        capture->shrink_to_fit();
      } else {
        capture->append(buf_.get() + segment, pos_ - segment);
      }
    }
  };
  auto more = [&] {
    flush();
    keep_ = pos_;
    bool got = Fill();
    segment = pos_;
    return got;
  };

  if (pos_ == end_ && !more()) Invalid(Offset(pos_), "unexpected end of the file, expected a value");
  char first = buf_[pos_];
  if (first != '"' && first != '{' && first != '[') {
    // A scalar: a number, true, false or null.
    if (!(first == '-' || (first >= '0' && first <= '9') || first == 't' || first == 'f' || first == 'n'))
      Invalid(Offset(pos_), "unexpected " + Printable(static_cast<unsigned char>(first)) + ", expected a value");
    for (;;) {
      if (pos_ == end_ && !more()) break;
      char c = buf_[pos_];
      bool scalar_char = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '.' || c == '-' || c == '+' || c == 'E';
      if (!scalar_char) break;
      ++pos_;
    }
    flush();
    return;
  }

  // A string, object or array: track strings and a stack of open brackets
  // (on the heap, so that deep nesting cannot exhaust the call stack).
  std::vector<char> closers;
  bool in_string = false, escaped = false;
  for (;;) {
    if (pos_ == end_ && !more()) {
      Invalid(Offset(pos_), in_string ? "unexpected end of the file inside a string (truncated file?)"
                                      : "unexpected end of the file inside an object or array (truncated file?)");
    }
    char c = buf_[pos_++];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') {
        in_string = false;
        if (closers.empty()) break;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{') {
      closers.push_back('}');
    } else if (c == '[') {
      closers.push_back(']');
    } else if (c == '}' || c == ']') {
      if (closers.empty() || closers.back() != c)
        Invalid(Offset(pos_ - 1), "mismatched " + Printable(c) + (closers.empty() ? "" : ", expected " + Printable(closers.back())));
      closers.pop_back();
      if (closers.empty()) break;
    }
  }
  flush();
}

void TraceJsonScanner::ScanEventArray(bool bare) {
  // pos_ is just past the array's '['. Elements are cut at the commas found
  // at depth 0; everything between two cuts goes to the consumer at once.
  constexpr size_t kNone = static_cast<size_t>(-1);
  size_t batch_begin = pos_;
  size_t last_comma = kNone;
  uint64_t commas = 0;
  int64_t depth = 0;
  bool in_string = false, escaped = false;

  auto emit = [&](size_t begin, size_t end, bool last) {
    std::string_view slice(buf_.get() + begin, end - begin);
    if (IsBlank(slice)) {
      if (last && commas == 0) return;  // An empty array.
      Invalid(Offset(end), last ? "trailing comma at the end of traceEvents" : "empty element (extra comma) in traceEvents");
    }
    consumer_.OnElements(slice, Offset(begin));
  };

  for (;;) {
    if (pos_ == end_) {
      if (last_comma != kNone) {
        emit(batch_begin, last_comma, false);
        batch_begin = last_comma + 1;
        last_comma = kNone;
      }
      keep_ = batch_begin;
      if (!Fill()) {
        if (bare && depth == 0 && !in_string) {
          // The format lets a bare array end without its ']' (a process
          // that died while tracing); take what is complete.
          emit(keep_, end_, true);
          result_.unterminated_array = true;
          return;
        }
        Invalid(Offset(end_), in_string ? "unexpected end of the file inside a string in traceEvents (truncated file?)"
                                        : "unexpected end of the file inside traceEvents (truncated file?)");
      }
      batch_begin = keep_;
    }

    const char* const b = buf_.get();
    const char* p = b + pos_;
    const char* const e = b + end_;
    if (escaped) {
      escaped = false;
      ++p;
    }
    while (p < e) {
      if (in_string) {
        p = FindQuoteOrBackslash(p, e);
        if (p == e) break;
        if (*p == '"') {
          in_string = false;
          ++p;
        } else if (p + 1 < e) {
          p += 2;  // Skip the escaped character (it may be a quote).
        } else {
          escaped = true;  // It is in the next block.
          p = e;
        }
        continue;
      }
      p = FindStructural(p, e);
      if (p == e) break;
      switch (*p) {
        case '"': in_string = true; break;
        case '{': case '[': ++depth; break;
        case ',':
          if (depth == 0) {
            last_comma = static_cast<size_t>(p - b);
            ++commas;
          }
          break;
        default:  // '}' or ']'
          if (depth == 0) {
            if (*p == '}') Invalid(Offset(static_cast<size_t>(p - b)), "mismatched '}' in traceEvents");
            pos_ = static_cast<size_t>(p - b);
            if (last_comma != kNone) {
              emit(batch_begin, last_comma, false);
              batch_begin = last_comma + 1;
            }
            emit(batch_begin, pos_, true);
            ++pos_;
            keep_ = pos_;
            return;
          }
          --depth;
      }
      ++p;
    }
    pos_ = static_cast<size_t>(p - b);
  }
}

TraceScanResult TraceJsonScanner::Run() {
  int c = NextNonSpace();
  if (c == 0xEF) {  // A UTF-8 byte order mark.
    for (char bom : {'\xEF', '\xBB', '\xBF'}) {
      if (Peek() != static_cast<unsigned char>(bom)) Invalid(Offset(pos_), "not JSON (starts with a stray byte)");
      ++pos_;
    }
    c = NextNonSpace();
  }
  if (c < 0) throw InputError(path_, result_.content_bytes == 0 ? "file is empty, not a Chrome trace" : "file holds only whitespace, not a Chrome trace");

  if (c == '[') {
    ++pos_;
    result_.bare_array = true;
    result_.trace_event_arrays = 1;
    ScanEventArray(true);
  } else if (c == '{') {
    ++pos_;
    if (NextNonSpace() == '}') {
      ++pos_;
    } else {
      for (;;) {
        std::string key = ReadKey();
        Expect(':', "':' after a key");
        int v = NextNonSpace();
        if (v < 0) Invalid(Offset(pos_), "unexpected end of the file, expected a value");
        if (key == "traceEvents") {
          if (v != '[') NotATrace("traceEvents is not an array");
          ++pos_;
          ++result_.trace_event_arrays;
          ScanEventArray(false);
        } else if (consumer_.WantsTopLevelValue(key)) {
          std::string raw;
          bool overflow = false;
          SkipValue(&raw, &overflow);
          if (!overflow) consumer_.OnTopLevelValue(key, raw);
        } else {
          SkipValue(nullptr, nullptr);
        }
        int sep = NextNonSpace();
        if (sep == ',') {
          ++pos_;
          continue;
        }
        if (sep == '}') {
          ++pos_;
          break;
        }
        Invalid(Offset(pos_), sep < 0 ? "unexpected end of the file inside the top-level object (truncated file?)"
                                      : "expected ',' or '}' after a top-level value, found " + Printable(sep));
      }
    }
  } else if (c == '"' || c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n') {
    SkipValue(nullptr, nullptr);
    if (NextNonSpace() >= 0) Invalid(Offset(pos_), "unexpected data after the end of the JSON value");
    NotATrace("no traceEvents array (the document is a single scalar value)");
  } else {
    Invalid(Offset(pos_), "not JSON (starts with " + Printable(c) + ")");
  }

  int trailing = NextNonSpace();
  if (trailing >= 0) Invalid(Offset(pos_), "unexpected data after the end of the JSON document (" + Printable(trailing) + ")");
  if (result_.trace_event_arrays == 0) NotATrace("no traceEvents array");
  return result_;
}

}  // namespace tfprof
