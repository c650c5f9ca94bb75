#include "lib/read/kineto_rank.h"

#include <charconv>

#include "lib/read/byte_source.h"

namespace tfprof {
namespace {

constexpr size_t kPeekBytes = 64 * 1024;

// A cursor over JSON text that may be cut short: every step says whether the
// text held what it needed (false at the cut or on a malformed value).
class JsonCursor {
 public:
  explicit JsonCursor(std::string_view text, size_t pos = 0) : s_(text), i_(pos) {}

  bool SkipSpace() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
    return i_ < s_.size();
  }
  bool Take(char c) {
    if (!SkipSpace() || s_[i_] != c) return false;
    ++i_;
    return true;
  }
  bool Peek(char c) { return SkipSpace() && s_[i_] == c; }
  // A string's raw text between its quotes (escapes left as they are).
  bool String(std::string_view* out) {
    if (!Take('"')) return false;
    const size_t begin = i_;
    for (; i_ < s_.size(); ++i_) {
      if (s_[i_] == '\\') ++i_;
      else if (s_[i_] == '"') break;
    }
    if (i_ >= s_.size()) return false;
    *out = s_.substr(begin, i_++ - begin);
    return true;
  }
  // Any value: strings, nested objects and arrays, scalars.
  bool SkipValue() {
    if (!SkipSpace()) return false;
    if (s_[i_] == '"') {
      std::string_view ignored;
      return String(&ignored);
    }
    if (s_[i_] == '{' || s_[i_] == '[') {
      int depth = 0;
      for (; i_ < s_.size(); ++i_) {
        const char c = s_[i_];
        if (c == '"') {
          std::string_view ignored;
          if (!String(&ignored)) return false;
          --i_;
        } else if (c == '{' || c == '[') {
          ++depth;
        } else if ((c == '}' || c == ']') && --depth == 0) {
          ++i_;
          return true;
        }
      }
      return false;
    }
    const size_t begin = i_;
    while (i_ < s_.size() && s_[i_] != ',' && s_[i_] != '}' && s_[i_] != ']') ++i_;
    return i_ < s_.size() && i_ > begin;
  }
  // The scalar text of the value here (a number, null, true, ...).
  bool Scalar(std::string_view* out) {
    if (!SkipSpace()) return false;
    const size_t begin = i_;
    while (i_ < s_.size() && s_[i_] != ',' && s_[i_] != '}' && s_[i_] != ']' && s_[i_] != ' ' && s_[i_] != '\n' &&
           s_[i_] != '\r' && s_[i_] != '\t')
      ++i_;
    if (i_ >= s_.size()) return false;
    *out = s_.substr(begin, i_ - begin);
    return true;
  }

 private:
  std::string_view s_;
  size_t i_;
};

std::optional<int64_t> NonNegativeInt(std::string_view text) {
  int64_t v = 0;
  auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size() || v < 0) return std::nullopt;
  return v;
}

// Reads the distributedInfo object at the cursor: kRank / kNone when the
// object was read to its end or to its "rank", kUnknown when cut short.
PeekedRank ReadObject(JsonCursor& c) {
  PeekedRank out;
  if (!c.Take('{')) return out;
  if (c.Peek('}')) return {PeekedRank::kNone, 0};
  for (;;) {
    std::string_view key;
    if (!c.String(&key) || !c.Take(':')) return out;
    if (key == "rank") {
      if (c.Peek('"') || c.Peek('{') || c.Peek('[')) return {PeekedRank::kNone, 0};
      std::string_view value;
      if (!c.Scalar(&value)) return out;
      auto rank = NonNegativeInt(value);
      return rank ? PeekedRank{PeekedRank::kRank, *rank} : PeekedRank{PeekedRank::kNone, 0};
    }
    if (!c.SkipValue()) return out;
    if (c.Take(',')) continue;
    if (c.Take('}')) return {PeekedRank::kNone, 0};
    return out;
  }
}

}  // namespace

std::optional<int64_t> RankOfDistributedInfo(std::string_view json) {
  JsonCursor c(json);
  // A complete object: a cut-short answer cannot happen unless it is malformed.
  PeekedRank p = ReadObject(c);
  if (p.state == PeekedRank::kRank) return p.rank;
  return std::nullopt;
}

PeekedRank PeekRank(const std::string& path) {
  std::string head;
  try {
    head = PeekContent(path, kPeekBytes);
  } catch (...) {
    return {};  // Unreadable here: the reader will say why.
  }
  // The top-level key, not a same-named arg inside an event.
  const size_t key = head.find("\"distributedInfo\"");
  const size_t events = head.find("\"traceEvents\"");
  if (key == std::string::npos || (events != std::string::npos && events < key)) return {};
  JsonCursor c(head, key + 17);
  if (!c.Take(':')) return {};
  return ReadObject(c);
}

std::string RankHostName(int64_t rank) { return "rank" + std::to_string(rank); }

bool IsRankHostName(std::string_view name) {
  return name.size() > 4 && name.substr(0, 4) == "rank" && NonNegativeInt(name.substr(4)).has_value();
}

}  // namespace tfprof
