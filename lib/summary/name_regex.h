// The regular expressions of the name options (--step-marker, kernel-stats
// --kernel / --op), compiled with RE2: matching takes time linear in the
// name and uses no recursion, so neither a long event name nor a deeply
// nested or ambiguous pattern (`(a+)+$`) can exhaust the stack or take
// exponential time, as std::regex's backtracking did. RE2 syntax is Perl's
// without backreferences and lookaround (docs/overview.md).
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace tfprof {

// Longest pattern accepted. RE2's time is linear in the name but also grows
// with the pattern (a deeply nested `((a)*)*` of 16 KiB takes seconds per
// 60k-character name once its DFA outgrows the memory budget); 4 KiB is far
// beyond any filter written by hand and keeps every match fast.
inline constexpr size_t kMaxNameRegexBytes = 4096;
// RE2's memory budget for the compiled pattern and its DFA caches; a pattern
// whose program does not fit (`\pL{1000}`) is refused.
inline constexpr int64_t kNameRegexMaxMem = 8 << 20;

class NameRegex {
 public:
  // `option` names the flag in errors. Throws std::invalid_argument (a usage
  // error, exit 2) for a malformed, too long or too large pattern, with a
  // one-line message that quotes at most the pattern's first 80 bytes.
  NameRegex(std::string_view pattern, std::string_view option);
  ~NameRegex();
  NameRegex(NameRegex&&) noexcept;
  NameRegex& operator=(NameRegex&&) noexcept;

  // Whether the pattern matches somewhere in `name` (a search, as
  // std::regex_search and grep: anchor with ^ and $ for a whole name).
  bool Matches(std::string_view name) const;

 private:
  std::unique_ptr<re2::RE2> re_;
};

}  // namespace tfprof
