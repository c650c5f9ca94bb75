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

struct DiagnosticKind;  // lib/model/diagnostic_kinds.h: the catalogue of kinds.

struct DiagnosticEntry {
  Severity severity;
  std::string kind;     // Stable machine-readable key, e.g. "json.unmatched_end".
  std::string message;  // What it means, for people.
  uint64_t count = 0;
  std::string example;  // The first occurrence's detail.
};

class Diagnostics {
 public:
  // Counts `count` occurrences of `kind` (none when 0), with the kind's
  // meaning as message; the first example is kept.
  void Add(const DiagnosticKind& kind, std::string_view example = {}, uint64_t count = 1);
  // The same, worded for the case at hand (a PyTorch or a TensorFlow
  // variant, a number in the text); the first wording is kept.
  void AddWithMessage(const DiagnosticKind& kind, std::string_view message, std::string_view example = {},
                      uint64_t count = 1);
  // Adds an entry as stored (by Merge, or read back from a saved summary):
  // its kind need not be in this build's catalogue.
  void AddEntry(const DiagnosticEntry& entry);
  void Merge(const Diagnostics& other);

  std::vector<DiagnosticEntry> Entries() const;  // Most severe first, then by kind.
  uint64_t Count(std::string_view kind) const;
  bool empty() const { return entries_.empty(); }

 private:
  void Insert(Severity severity, std::string_view kind, std::string_view message, std::string_view example,
              uint64_t count);

  std::map<std::string, DiagnosticEntry, std::less<>> entries_;
};

}  // namespace tfprof
