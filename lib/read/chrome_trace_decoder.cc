#include "lib/read/chrome_trace_decoder.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <limits>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tfprof {
namespace {

namespace od = simdjson::ondemand;
using simdjson::error_code;
using simdjson::SUCCESS;

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

// "-123": up to 18 digits, nothing else (the common case, parsed without
// simdjson's general number path).
bool SmallInteger(std::string_view s, int64_t* out) {
  size_t i = !s.empty() && s[0] == '-';
  if (s.size() == i || s.size() - i > 18) return false;
  int64_t v = 0;
  for (size_t k = i; k < s.size(); ++k) {
    unsigned d = static_cast<unsigned char>(s[k]) - '0';
    if (d > 9) return false;
    v = v * 10 + d;
  }
  *out = i ? -v : v;
  return true;
}

bool IsNumberStart(char c) { return c == '-' || (c >= '0' && c <= '9'); }

// JSON's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
// simdjson reports a number beyond a double's range (1e400) and a malformed
// one alike; this tells them apart.
bool IsJsonNumber(std::string_view s) {
  size_t i = 0;
  auto digits = [&] {
    size_t from = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i > from;
  };
  if (i < s.size() && s[i] == '-') ++i;
  if (i < s.size() && s[i] == '0') ++i;
  else if (!digits()) return false;
  if (i < s.size() && s[i] == '.' && (++i, !digits())) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == s.size();
}

// The first '"' or '\\' in [p, end), or end. Reads in 16-byte steps, up to
// 15 bytes past `end`: the JSON buffers have SIMDJSON_PADDING bytes there.
const char* FindQuoteOrBackslash(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
  for (; p < end; p += 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    unsigned mask =
        static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash))));
    if (mask) return std::min(p + __builtin_ctz(mask), end);
  }
  return end;
#else
  while (p < end && *p != '"' && *p != '\\') ++p;
  return p;
#endif
}

// Checks the text of one JSON value (an object or array kept as text, which
// simdjson skipped over without checking its commas and literals). Iterative,
// so depth does not matter; brackets were already matched by the scanner.
bool ValidValue(std::string_view text, std::vector<char>& stack) {
  enum { kValue, kValueOrClose, kKeyOrClose, kKey, kColon, kAfterValue } state = kValue;
  stack.clear();
  size_t i = 0;
  const size_t n = text.size();
  auto skip_string = [&] {  // i is at the opening quote.
    for (++i; i < n; ++i) {
      if (text[i] == '\\') ++i;
      else if (text[i] == '"') return ++i, true;
    }
    return false;
  };
  for (;;) {
    while (i < n && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t')) ++i;
    if (i == n) return state == kAfterValue && stack.empty();
    char c = text[i];
    switch (state) {
      case kValue:
      case kValueOrClose:
        if (c == ']' && state == kValueOrClose) {
          stack.pop_back();
          ++i;
          state = kAfterValue;
        } else if (c == '{' || c == '[') {
          stack.push_back(c);
          ++i;
          state = c == '{' ? kKeyOrClose : kValueOrClose;
        } else if (c == '"') {
          if (!skip_string()) return false;
          state = kAfterValue;
        } else if (c == 't' || c == 'f' || c == 'n') {
          std::string_view word = c == 't' ? "true" : c == 'f' ? "false" : "null";
          if (text.substr(i, word.size()) != word) return false;
          i += word.size();
          state = kAfterValue;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
          while (i < n && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '-' || text[i] == '+' ||
                           text[i] == '.' || text[i] == 'e' || text[i] == 'E'))
            ++i;
          state = kAfterValue;
        } else {
          return false;
        }
        break;
      case kKeyOrClose:
      case kKey:
        if (c == '}' && state == kKeyOrClose) {
          stack.pop_back();
          ++i;
          state = kAfterValue;
        } else if (c == '"') {
          if (!skip_string()) return false;
          state = kColon;
        } else {
          return false;
        }
        break;
      case kColon:
        if (c != ':') return false;
        ++i;
        state = kValue;
        break;
      case kAfterValue:
        if (stack.empty()) return false;  // Text after the value.
        if (c == ',') state = stack.back() == '{' ? kKey : kValue;
        else if (c == stack.back() + 2) stack.pop_back();  // '[' + 2 == ']', '{' + 2 == '}'.
        else return false;
        ++i;
        break;
    }
  }
}

}  // namespace

error_code TraceEventParser::ParseArray(TraceEventSink& sink, const char* json, size_t length, size_t capacity,
                                        size_t* done) {
  sink_ = &sink;
  json_begin_ = json;
  json_end_ = json + length;
  od::document doc;
  SIMDJSON_TRY(parser_.iterate(json, length, capacity).get(doc));
  od::array array;
  SIMDJSON_TRY(doc.get_array().get(array));
  for (auto element : array) {
    // value_unsafe() after the error check: no copies (hot loop).
    SIMDJSON_TRY(element.error());
    SIMDJSON_TRY(DecodeElement(element.value_unsafe()));
    ++*done;
  }
  return SUCCESS;
}

error_code TraceEventParser::Token(od_value& value, std::string_view* out) const {
  // simdjson's On-Demand API does not check every comma: on malformed input
  // its iterator can drift, so a token is only trusted inside the document
  // and when it starts like a JSON value.
  std::string_view token = value.raw_json_token();
  if (token.empty() || token.data() < json_begin_ || token.data() + token.size() > json_end_)
    return simdjson::TAPE_ERROR;
  switch (token[0]) {
    case ',':
    case ':':
    case ']':
    case '}': return simdjson::TAPE_ERROR;
  }
  *out = token;
  return SUCCESS;
}

error_code TraceEventParser::DecodeElement(od_value& value) {
  std::string_view token;
  SIMDJSON_TRY(Token(value, &token));
  if (token.empty() || token[0] != '{') {
    sink_->Count(TraceDiag::kNonObjectEvent, TrimRight(token).substr(0, 40));
    return SUCCESS;
  }
  od::object object;
  SIMDJSON_TRY(value.get_object().get(object));
  event_ = &sink_->NextEvent();
  event_->Clear();
  bool any_field = false;
  for (auto field_result : object) {
    SIMDJSON_TRY(field_result.error());
    od::field& field = field_result.value_unsafe();
    any_field = true;
    SIMDJSON_TRY(DecodeField(field.key().raw(), field.value()));
  }
  if (!any_field) return SUCCESS;  // TensorFlow ends its array with an empty {}.
  if (event_->entry_count > 0 && !event_->event_stats.empty()) {
    // Packed counters name their first value column by event_stats.
    for (size_t row = 0; row < event_->entry_count; ++row)
      if (!event_->entry_values[row].empty()) event_->entry_values[row][0].key = event_->event_stats;
  }
  sink_->Commit();
  return SUCCESS;
}

error_code TraceEventParser::DecodeField(const char* key, od_value& value) {
  // Dispatch on the key's bytes where it lies, closing quote included, so
  // that the fields the reader skips cost no scan. (The buffer is padded:
  // reading a few bytes past a short key is safe.)
  auto is = [key](const char* quoted) { return std::memcmp(key, quoted, std::strlen(quoted)) == 0; };
  switch (key[0]) {
    case 'p':
      if (is("ph\"")) return DecodeText(value, &event_->ph);
      if (is("pid\"")) return DecodeId(value, &event_->pid);
      break;
    case 't':
      if (is("ts\"")) return DecodeTime(value, &event_->ts);
      if (is("tid\"")) return DecodeId(value, &event_->tid);
      break;
    case 'd':
      if (is("dur\"")) return DecodeTime(value, &event_->dur);
      break;
    case 'n':
      if (is("name\"")) return DecodeText(value, &event_->name);
      break;
    case 'c':
      if (is("cat\"")) {
        event_->has_cat = true;
        return DecodeText(value, &event_->cat);
      }
      break;
    case 'a':
      if (is("args\"")) return DecodeArgs(value);
      break;
    case 'i':
      if (is("id\"") || is("id2\"")) return DecodeEventId(value);
      break;
    case 'b':
      if (is("bind_id\"")) return DecodeBindId(value);
      break;
    case 'f':
      if (is("flow_in\"")) return DecodeFlag(value, &event_->flow_in);
      if (is("flow_out\"")) return DecodeFlag(value, &event_->flow_out);
      break;
    case 'e':
      if (is("entries\"")) return DecodeEntries(value);
      if (is("event_stats\"")) return DecodeText(value, &event_->event_stats);
      break;
  }
  return SUCCESS;  // Display-only fields (s, sf, cname, tts, bp, ...); the iterator skips them.
}

std::string_view TraceEventParser::KeyText(const char* start) {
  // simdjson validated the text, so a closing quote follows.
  const char* end = FindQuoteOrBackslash(start, json_end_);
  if (end < json_end_ && *end == '"') return std::string_view(start, static_cast<size_t>(end - start));
  for (;;) {  // An escape: find the real closing quote, then unescape.
    end = static_cast<const char*>(std::memchr(end, '"', static_cast<size_t>(json_end_ - end)));
    if (!end) return {};
    size_t backslashes = 0;
    while (end - backslashes > start && end[-1 - static_cast<ptrdiff_t>(backslashes)] == '\\') ++backslashes;
    if (backslashes % 2 == 0) break;
    ++end;  // An escaped quote.
  }
  return Unescape(std::string_view(start, static_cast<size_t>(end - start)));
}

std::string_view TraceEventParser::StringToken(std::string_view token) {
  // A string's token runs from its opening quote to the next structural
  // character: the closing quote is its last non-space byte.
  token = TrimRight(token);
  std::string_view text = token.size() >= 2 ? token.substr(1, token.size() - 2) : std::string_view();
  const char* text_end = text.data() + text.size();
  const char* special = FindQuoteOrBackslash(text.data(), text_end);  // No quote inside but escaped ones.
  return special == text_end ? text : Unescape(text);
}

std::string_view TraceEventParser::Unescape(std::string_view raw) {
  std::string& out = sink_->Strings().emplace_back();
  out.reserve(raw.size());
  auto hex4 = [&](size_t at, uint32_t* v) {
    if (at + 4 > raw.size()) return false;
    auto [end, ec] = std::from_chars(raw.data() + at, raw.data() + at + 4, *v, 16);
    return ec == std::errc() && end == raw.data() + at + 4;
  };
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c != '\\' || i + 1 == raw.size()) {
      out += c;
      continue;
    }
    char e = raw[++i];
    switch (e) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'u': {
        uint32_t cp;
        if (!hex4(i + 1, &cp)) {
          out += "\\u";
          break;
        }
        i += 4;
        uint32_t low;
        if (cp >= 0xD800 && cp < 0xDC00 && i + 2 < raw.size() && raw[i + 1] == '\\' && raw[i + 2] == 'u' &&
            hex4(i + 3, &low) && low >= 0xDC00 && low < 0xE000) {
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          i += 6;
        } else if (cp >= 0xD800 && cp < 0xE000) {
          cp = 0xFFFD;  // A lone surrogate.
        }
        if (cp < 0x80) {
          out += static_cast<char>(cp);
        } else if (cp < 0x800) {
          out += static_cast<char>(0xC0 | (cp >> 6));
          out += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
          out += static_cast<char>(0xE0 | (cp >> 12));
          out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
          out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
          out += static_cast<char>(0xF0 | (cp >> 18));
          out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
          out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
          out += static_cast<char>(0x80 | (cp & 0x3F));
        }
        break;
      }
      default: out += e;  // \" \\ \/
    }
  }
  return out;
}

error_code TraceEventParser::RawContainer(od_value& value, std::string_view* out) {
  // Nested objects and arrays are kept as their JSON text.
  std::string_view token;
  SIMDJSON_TRY(Token(value, &token));
  if (token[0] == '{') {
    od::object o;
    SIMDJSON_TRY(value.get_object().get(o));
    SIMDJSON_TRY(o.raw_json().get(*out));
  } else {
    od::array a;
    SIMDJSON_TRY(value.get_array().get(a));
    SIMDJSON_TRY(a.raw_json().get(*out));
  }
  if (out->data() < json_begin_ || out->data() + out->size() > json_end_) return simdjson::TAPE_ERROR;
  *out = TrimRight(*out);
  return ValidValue(*out, validation_stack_) ? SUCCESS : simdjson::TAPE_ERROR;
}

error_code TraceEventParser::DecodeText(od_value& value, std::string_view* out) {
  std::string_view token;
  SIMDJSON_TRY(Token(value, &token));
  switch (token[0]) {
    case '"': *out = StringToken(token); return SUCCESS;
    case '{':
    case '[': sink_->Count(TraceDiag::kBadFieldType, "a name, ph or cat that is not a string"); return SUCCESS;
    default: *out = TrimRight(token); return SUCCESS;  // A number or literal: its text.
  }
}

error_code TraceEventParser::DecodeId(od_value& value, TraceId* out) {
  std::string_view token;
  SIMDJSON_TRY(Token(value, &token));
  if (token[0] == '"') {
    out->kind = TraceId::kString;
    out->text = StringToken(token);
    return SUCCESS;
  }
  if (IsNumberStart(token[0])) {
    out->kind = TraceId::kNumber;
    if (SmallInteger(TrimRight(token), &out->number)) return SUCCESS;
    double d;
    error_code error = value.get_double().get(d);
    if (error == simdjson::NUMBER_ERROR && IsJsonNumber(TrimRight(token))) {
      // Beyond a double (1e400): no process or thread number; its text
      // names it, as for other ids that are not int64.
      sink_->Count(TraceDiag::kNumberOutOfRange, TrimRight(token).substr(0, 40));
      out->kind = TraceId::kString;
      out->text = TrimRight(token);
      return SUCCESS;
    }
    SIMDJSON_TRY(error);
    if (d >= -9e18 && d <= 9e18 && d == static_cast<double>(static_cast<int64_t>(d))) {
      out->number = static_cast<int64_t>(d);
      return SUCCESS;
    }
    // Not an int64 (a uint64 id, a fraction): keep its text as a name.
    out->kind = TraceId::kString;
    out->text = TrimRight(token);
    return SUCCESS;
  }
  out->kind = token[0] == 'n' ? TraceId::kMissing : TraceId::kInvalid;
  return SUCCESS;
}

error_code TraceEventParser::DecodeTime(od_value& value, TraceField* out) {
  std::string_view token;
  SIMDJSON_TRY(Token(value, &token));
  std::string_view text;
  if (IsNumberStart(token[0])) text = TrimRight(token);
  else if (token[0] == '"') text = StringToken(token);  // Some writers quote them.
  else {
    out->kind = TraceField::kInvalid;
    return SUCCESS;
  }
  out->kind = ParseTraceTime(text, &out->time) ? TraceField::kValid : TraceField::kInvalid;
  return SUCCESS;
}

error_code TraceEventParser::DecodeEventId(od_value& value) {
  std::string_view token;
  SIMDJSON_TRY(Token(value, &token));
  event_->has_id = true;
  event_->id_is_number = IsNumberStart(token[0]);
  if (token[0] == '"') event_->id = StringToken(token);
  else if (token[0] == '{' || token[0] == '[') return RawContainer(value, &event_->id);  // id2: {"local": ...}
  else event_->id = TrimRight(token);
  return SUCCESS;
}

error_code TraceEventParser::DecodeBindId(od_value& value) {
  std::string_view token;
  SIMDJSON_TRY(Token(value, &token));
  bool quoted = token[0] == '"';
  std::string_view digits = quoted ? StringToken(token) : TrimRight(token);
  // Written as 123, "123" or "0x7b".
  bool hex = quoted && digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X');
  if (hex) digits.remove_prefix(2);
  bool negative = !hex && !digits.empty() && digits[0] == '-';
  if (negative) digits.remove_prefix(1);
  uint64_t u;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), u, hex ? 16 : 10);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size()) {
    sink_->Count(TraceDiag::kBadFieldType, "bind_id");
    return SUCCESS;
  }
  event_->bind_id = negative ? 0 - u : u;
  return SUCCESS;
}

error_code TraceEventParser::DecodeFlag(od_value& value, bool* out) {
  std::string_view token;
  SIMDJSON_TRY(Token(value, &token));
  char first = token[0];
  if (first == 't' || first == 'f') return value.get_bool().get(*out);
  sink_->Count(TraceDiag::kBadFieldType, "flow_in/flow_out");
  return SUCCESS;
}

error_code TraceEventParser::DecodeArgs(od_value& value) {
  std::string_view token;
  SIMDJSON_TRY(Token(value, &token));
  char first = token[0];
  if (first != '{') {
    if (first != 'n') sink_->Count(TraceDiag::kBadFieldType, "args");
    return SUCCESS;
  }
  od::object object;
  SIMDJSON_TRY(value.get_object().get(object));
  // The args no analysis of the command reads are skipped, their values
  // left unread, but on metadata events (names, labels, sort order) and
  // counters (whose args are the values). Where "ph" comes after "args"
  // (208 events of the corpus's TF1 timelines) all are kept: a superset,
  // which analyses read the same.
  const bool filter = arg_filter_ && event_->ph.size() == 1 && event_->ph[0] != 'M' && event_->ph[0] != 'C';
  for (auto field_result : object) {
    SIMDJSON_TRY(field_result.error());
    od::field& field = field_result.value_unsafe();
    const std::string_view key = KeyText(field.key().raw());
    od_value& value_of_key = field.value();
    if (filter && !arg_filter_->Keeps(key)) {
      // A null is decoded all the same: the builder counts null args
      // ("json.null_arg") whatever their names, so every command says so.
      std::string_view token;
      SIMDJSON_TRY(Token(value_of_key, &token));
      if (token[0] != 'n') {
        ++event_->dropped_args;
        continue;
      }
    }
    TraceArg& arg = event_->args.emplace_back();
    arg.key = key;
    SIMDJSON_TRY(DecodeValue(value_of_key, &arg));
  }
  return SUCCESS;
}

// An arg value: integers as int64 (uint64 above INT64_MAX), other numbers as
// double, booleans as 0/1, strings as themselves, objects and arrays as their
// JSON text.
error_code TraceEventParser::DecodeValue(od_value& value, TraceArg* arg) {
  std::string_view token;
  SIMDJSON_TRY(Token(value, &token));
  switch (token[0]) {
    case '"':
      arg->kind = TraceArg::kString;
      arg->s = StringToken(token);
      return SUCCESS;
    case '{':
    case '[': arg->kind = TraceArg::kString; return RawContainer(value, &arg->s);
    case 't':
    case 'f': {
      bool b;
      SIMDJSON_TRY(value.get_bool().get(b));
      arg->kind = TraceArg::kInt;
      arg->i = b ? 1 : 0;
      return SUCCESS;
    }
    case 'n':
      SIMDJSON_TRY(value.is_null().error());
      arg->kind = TraceArg::kNull;
      return SUCCESS;
  }
  std::string_view number = TrimRight(token);
  if (SmallInteger(number, &arg->i)) {
    arg->kind = TraceArg::kInt;
    return SUCCESS;
  }
  if (number.find_first_of(".eE") == std::string_view::npos) {
    // An integer of 19 digits or more: int64, uint64, or kept as its digits.
    const char* const last = number.data() + number.size();
    std::from_chars_result r = std::from_chars(number.data(), last, arg->i);
    if (r.ec == std::errc() && r.ptr == last) {
      arg->kind = TraceArg::kInt;
      return SUCCESS;
    }
    r = std::from_chars(number.data(), last, arg->u);
    if (r.ec == std::errc() && r.ptr == last) {
      arg->kind = TraceArg::kUint;
      return SUCCESS;
    }
    if (r.ec == std::errc::result_out_of_range) {
      arg->kind = TraceArg::kString;
      arg->s = number;
      return SUCCESS;
    }
  }
  error_code error = value.get_double().get(arg->d);
  if (error == simdjson::NUMBER_ERROR && IsJsonNumber(number)) {
    // Beyond a double (1e400): saturated to the largest double of its sign,
    // and counted, rather than rejecting the whole trace.
    arg->d = number[0] == '-' ? -std::numeric_limits<double>::max() : std::numeric_limits<double>::max();
    sink_->Count(TraceDiag::kNumberOutOfRange, number.substr(0, 40));
    error = SUCCESS;
  }
  SIMDJSON_TRY(error);
  arg->kind = TraceArg::kDouble;
  return SUCCESS;
}

// xprof's packed counter samples: "entries": [[ts, v1, v2, ...], ...].
error_code TraceEventParser::DecodeEntries(od_value& value) {
  std::string_view token;
  SIMDJSON_TRY(Token(value, &token));
  if (token[0] != '[') {
    sink_->Count(TraceDiag::kBadFieldType, "entries");
    return SUCCESS;
  }
  od::array rows;
  SIMDJSON_TRY(value.get_array().get(rows));
  for (auto row_result : rows) {
    SIMDJSON_TRY(row_result.error());
    od_value& row_value = row_result.value_unsafe();
    std::string_view row_token;
    SIMDJSON_TRY(Token(row_value, &row_token));
    if (row_token[0] != '[') {
      sink_->Count(TraceDiag::kBadFieldType, "entries row");
      continue;
    }
    od::array row;
    SIMDJSON_TRY(row_value.get_array().get(row));
    if (event_->entry_count == event_->entry_values.size()) {
      event_->entry_values.emplace_back();
      event_->entry_ts.emplace_back();
    }
    std::vector<TraceArg>& values = event_->entry_values[event_->entry_count];
    values.clear();
    TraceField ts;
    size_t column = 0;
    for (auto cell : row) {
      SIMDJSON_TRY(cell.error());
      od_value& v = cell.value_unsafe();
      if (column++ == 0) {
        SIMDJSON_TRY(DecodeTime(v, &ts));
        continue;
      }
      TraceArg& arg = values.emplace_back();
      SIMDJSON_TRY(DecodeValue(v, &arg));
      arg.key = ValueName(column - 1);
    }
    if (ts.kind != TraceField::kValid) {
      sink_->Count(TraceDiag::kMissingTs, event_->name);
      continue;
    }
    event_->entry_ts[event_->entry_count++] = ts.time;
  }
  return SUCCESS;
}

// Column names of packed counter values: "value", "value2", ...; the first
// becomes the event's event_stats name when it has one (DecodeElement).
std::string_view TraceEventParser::ValueName(size_t column) {
  while (value_names_.size() < column)
    value_names_.push_back(value_names_.empty() ? "value" : "value" + std::to_string(value_names_.size() + 1));
  return value_names_[column - 1];
}

}  // namespace tfprof
