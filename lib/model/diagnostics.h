// Every dropped, clamped or odd thing a reader or analysis meets is counted
// here by kind, never silently skipped. Shown with --verbose and in JSON.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tfprof {

enum class Severity { kInfo, kWarning, kError };
std::string_view SeverityName(Severity s);

struct DiagnosticEntry {
  Severity severity;
  std::string kind;     // Stable machine-readable key, e.g. "json.unmatched_end".
  std::string message;  // What it means, for people.
  uint64_t count = 0;
  std::string example;  // The first occurrence's detail.
};

class Diagnostics {
 public:
  // Counts one occurrence of `kind`; the message and first example are kept.
  void Add(Severity severity, std::string_view kind, std::string_view message, std::string_view example = {},
           uint64_t count = 1);
  void Merge(const Diagnostics& other);

  std::vector<DiagnosticEntry> Entries() const;  // Most severe first, then by kind.
  uint64_t Count(std::string_view kind) const;
  bool empty() const { return entries_.empty(); }

 private:
  std::map<std::string, DiagnosticEntry, std::less<>> entries_;
};

}  // namespace tfprof
