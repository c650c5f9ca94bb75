#include "lib/summary/name_regex.h"

#include <stdexcept>

#include "fmt/format.h"
#include "re2/re2.h"

namespace tfprof {
namespace {

// The pattern as quoted in an error: one line, at most 80 bytes of it (a
// rejected pattern may be megabytes, or hold a newline).
std::string Quoted(std::string_view pattern) {
  constexpr size_t kShown = 80;
  std::string out;
  for (char c : pattern.substr(0, kShown)) out += (c == '\n' || c == '\r') ? ' ' : c;
  if (pattern.size() > kShown) out += fmt::format("… ({} bytes)", pattern.size());
  return out;
}

}  // namespace

NameRegex::NameRegex(std::string_view pattern, std::string_view option) {
  if (pattern.size() > kMaxNameRegexBytes)
    throw std::invalid_argument(fmt::format("{}: regular expression too long ({} bytes; at most {}): '{}'", option,
                                            pattern.size(), kMaxNameRegexBytes, Quoted(pattern)));
  RE2::Options options;
  options.set_log_errors(false);  // The error goes into our one error line, not to stderr.
  options.set_max_mem(kNameRegexMaxMem);
  re_ = std::make_unique<RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
  if (!re_->ok()) {
    // RE2's message quotes the offending part, which may be long: keep the
    // code's wording and the start of that part.
    throw std::invalid_argument(
        fmt::format("{}: bad regular expression '{}': {} (RE2 syntax)", option, Quoted(pattern), Quoted(re_->error())));
  }
}

NameRegex::~NameRegex() = default;
NameRegex::NameRegex(NameRegex&&) noexcept = default;
NameRegex& NameRegex::operator=(NameRegex&&) noexcept = default;

bool NameRegex::Matches(std::string_view name) const {
  return RE2::PartialMatch(re2::StringPiece(name.data(), name.size()), *re_);
}

}  // namespace tfprof
