#include "lib/read/chrome_trace_scanner.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "lib/model/errors.h"
#include "lib/read/json_block_classifier.h"

namespace tfprof {
namespace {

bool IsSpace(int c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

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

TraceJsonScanner::TraceJsonScanner(std::string path, ChunkReader& input, TraceScanConsumer& consumer,
                                   size_t block_bytes)
    : path_(std::move(path)), input_(input), consumer_(consumer), block_bytes_(std::max<size_t>(block_bytes, 64)) {
  cap_ = block_bytes_;
  buf_.reset(new char[cap_ + TraceScanConsumer::kPaddingAfter]);
}

void TraceJsonScanner::Invalid(uint64_t offset, const std::string& what) const {
  throw InputError(path_, "invalid JSON at byte " + std::to_string(offset) + ": " + what);
}

void TraceJsonScanner::NotATrace(const std::string& what) const {
  throw InputError(path_, "JSON but not a Chrome trace: " + what);
}

void TraceJsonScanner::KeptAtFront() {
  pos_ -= keep_;
  end_ -= keep_;
  base_ += keep_;
  keep_ = 0;
}

void TraceJsonScanner::HandOver() {
  const size_t kept = end_ - keep_;
  TraceScanConsumer::Buffer fresh = consumer_.NewBuffer(cap_ + TraceScanConsumer::kPaddingAfter);
  if (!fresh.data || fresh.capacity < cap_ + TraceScanConsumer::kPaddingAfter)
    throw std::logic_error("TraceScanConsumer::NewBuffer gave less than it was asked for");
  std::memcpy(fresh.data.get(), buf_.get() + keep_, kept);
  TraceScanConsumer::Buffer old{std::move(buf_), cap_ + TraceScanConsumer::kPaddingAfter};
  buf_ = std::move(fresh.data);
  cap_ = fresh.capacity - TraceScanConsumer::kPaddingAfter;
  KeptAtFront();
  const PendingRun run = std::exchange(pending_, PendingRun{});
  consumer_.OnElementsInBuffer(std::move(old), run.elements, run.size, run.offset);
}

bool TraceJsonScanner::Fill() {
  if (pending_.elements) HandOver();
  if (eof_) return false;
  if (keep_ > 0) {
    std::memmove(buf_.get(), buf_.get() + keep_, end_ - keep_);
    KeptAtFront();
  }
  if (end_ == cap_) {
    // One element larger than the buffer: grow rather than split it.
    std::unique_ptr<char[]> bigger(new char[cap_ * 2 + TraceScanConsumer::kPaddingAfter]);
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
    Invalid(Offset(pos_),
            std::string("expected ") + what + (got < 0 ? ", found the end of the file" : ", found " + Printable(got)));
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
        case '"':
        case '\\':
        case '/': key += static_cast<char>(e); break;
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
      bool scalar_char =
          (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '.' || c == '-' || c == '+' || c == 'E';
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
        Invalid(Offset(pos_ - 1),
                "mismatched " + Printable(c) + (closers.empty() ? "" : ", expected " + Printable(closers.back())));
      closers.pop_back();
      if (closers.empty()) break;
    }
  }
  flush();
}

void TraceJsonScanner::ExpectSeparator(size_t element) {
  // simdjson's On-Demand parser does not insist on the commas between array
  // elements, so check that each element starting with a bracket follows a
  // ',' that follows an element, or the array's '['. Those bytes are still
  // in the buffer: it keeps everything from the end of the previous element.
  auto previous = [&](size_t i) {  // Index of the last non-space byte before i, or npos.
    while (i > 0 && IsSpace(static_cast<unsigned char>(buf_[i - 1]))) --i;
    return i == 0 ? std::string::npos : i - 1;
  };
  size_t before = previous(element);
  if (before == std::string::npos) return;  // Nothing kept before: cannot tell.
  if (buf_[before] == '[') return;
  if (buf_[before] != ',') Invalid(Offset(element), "missing ',' before this traceEvents element");
  size_t element_end = previous(before);
  if (element_end != std::string::npos && (buf_[element_end] == ',' || buf_[element_end] == '['))
    Invalid(Offset(before), "empty element (extra comma) in traceEvents");
}

void TraceJsonScanner::ScanEventArray(bool bare) {
  // pos_ is just past the array's '['. The array is cut after elements that
  // end with a bracket at depth 0; each run of whole elements goes to the
  // consumer at once. Bytes are classified 64 at a time, a batch of blocks
  // per call (JsonBlockClassifier).
  constexpr size_t kNone = static_cast<size_t>(-1);
  size_t batch_begin = pos_;
  size_t last_end = kNone;  // Just past the last element-closing bracket.
  bool first_slice = true;
  int64_t depth = 0;
  std::vector<char> open_brackets;  // On the heap: nesting may be arbitrarily deep.
  JsonBlockClassifier blocks;
  constexpr size_t kBatch = 64;  // Blocks classified at a time: 4 KB of text.
  uint64_t block_opens[kBatch], block_closes[kBatch];

  // A slice is [previous cut, this cut): "[,] element, element, ...".
  // `hand_over`: the buffer may go with the run (the next Fill hands it).
  auto emit = [&](size_t begin, size_t end, bool last, bool unterminated, bool hand_over = false) {
    std::string_view slice(buf_.get() + begin, end - begin);
    size_t i = 0;
    while (i < slice.size() && IsSpace(static_cast<unsigned char>(slice[i]))) ++i;
    bool comma = i < slice.size() && slice[i] == ',';
    if (comma && first_slice) Invalid(Offset(begin + i), "empty element (extra comma) at the start of traceEvents");
    if (!comma && !first_slice && i < slice.size())
      Invalid(Offset(begin + i), "missing ',' between traceEvents elements");
    if (comma) ++i;
    while (i < slice.size() && IsSpace(static_cast<unsigned char>(slice[i]))) ++i;
    slice.remove_prefix(i);
    if (unterminated) {
      // A writer that died mid-array usually leaves "...}," behind.
      while (!slice.empty() && IsSpace(static_cast<unsigned char>(slice.back()))) slice.remove_suffix(1);
      if (!slice.empty() && slice.back() == ',') slice.remove_suffix(1);
    }
    if (IsBlank(slice)) {
      if (comma && last && !unterminated) Invalid(Offset(end), "trailing comma at the end of traceEvents");
      return;
    }
    // The slice starts past the '[' or a previous element, so
    // slice.data()[-1] is in the buffer, as is the padding after its end.
    if (hand_over && consumer_.TakesBuffers())
      pending_ = PendingRun{const_cast<char*>(slice.data()), slice.size(), Offset(begin + i)};
    else consumer_.OnElements(const_cast<char*>(slice.data()), slice.size(), Offset(begin + i));
    first_slice = false;
  };

  // Handles one block's brackets; true when the array's ']' was found.
  auto structure = [&](size_t at, uint64_t opens, uint64_t closes) {
    uint64_t marks = opens | closes;
    while (marks) {
      int bit = __builtin_ctzll(marks);
      marks &= marks - 1;
      size_t index = at + static_cast<size_t>(bit);
      if ((opens >> bit) & 1) {
        if (depth++ == 0) ExpectSeparator(index);
        open_brackets.push_back(buf_[index]);
        continue;
      }
      if (depth == 0) {
        if (buf_[index] == '}') Invalid(Offset(index), "mismatched '}' in traceEvents");
        if (last_end != kNone) {
          emit(batch_begin, last_end, false, false);
          batch_begin = last_end;
        }
        emit(batch_begin, index, true, false);
        pos_ = index + 1;
        keep_ = pos_;
        return true;
      }
      // '[' + 2 == ']' and '{' + 2 == '}'.
      if (open_brackets.back() + 2 != buf_[index])
        Invalid(Offset(index), "mismatched " + Printable(buf_[index]) + " in traceEvents, expected " +
                                   Printable(open_brackets.back() + 2));
      open_brackets.pop_back();
      if (--depth == 0) last_end = index + 1;
    }
    return false;
  };

  for (;;) {
    while (end_ - pos_ >= 64) {
      const size_t n = std::min((end_ - pos_) / 64, kBatch);
      blocks.Classify(buf_.get() + pos_, n, block_opens, block_closes);
      for (size_t i = 0; i < n; ++i, pos_ += 64)
        if ((block_opens[i] | block_closes[i]) && structure(pos_, block_opens[i], block_closes[i])) return;
    }
    if (last_end != kNone) {
      constexpr bool kHandOver = true;  // The buffer goes with the run: no copy.
      emit(batch_begin, last_end, false, false, kHandOver);
      batch_begin = last_end;
      last_end = kNone;
    }
    keep_ = batch_begin - 1;  // One byte before the elements stays, for the consumer.
    bool more = Fill();
    batch_begin = keep_ + 1;  // Fill moved the kept bytes to the front.
    if (more) continue;
    // End of the input: classify the partial last block.
    if (pos_ < end_) {
      blocks.ClassifyTail(buf_.get() + pos_, end_ - pos_, block_opens, block_closes);
      if ((block_opens[0] | block_closes[0]) && structure(pos_, block_opens[0], block_closes[0])) return;
      pos_ = end_;
    }
    if (bare && depth == 0 && !blocks.in_string()) {
      // The format lets a bare array end without its ']' (a process that
      // died while tracing); take what is complete.
      if (last_end != kNone) {
        emit(batch_begin, last_end, false, false);
        batch_begin = last_end;
      }
      emit(batch_begin, end_, true, true);
      result_.unterminated_array = true;
      return;
    }
    Invalid(Offset(end_), blocks.in_string()
                              ? "unexpected end of the file inside a string in traceEvents (truncated file?)"
                              : "unexpected end of the file inside traceEvents (truncated file?)");
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
  if (c < 0)
    throw InputError(path_, result_.content_bytes == 0 ? "file is empty, not a Chrome trace"
                                                       : "file holds only whitespace, not a Chrome trace");

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
  if (trailing >= 0)
    Invalid(Offset(pos_), "unexpected data after the end of the JSON document (" + Printable(trailing) + ")");
  if (result_.trace_event_arrays == 0) NotATrace("no traceEvents array");
  return result_;
}

}  // namespace tfprof
