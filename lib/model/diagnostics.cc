#include "lib/model/diagnostics.h"

#include <algorithm>

#include "lib/model/diagnostic_kinds.h"

namespace tfprof {

std::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::kInfo: return "info";
    case Severity::kWarning: return "warning";
    case Severity::kError: return "error";
  }
  return "unknown";
}

void Diagnostics::Add(const DiagnosticKind& kind, std::string_view example, uint64_t count) {
  AddWithMessage(kind, kind.meaning, example, count);
}

void Diagnostics::AddWithMessage(const DiagnosticKind& kind, std::string_view message, std::string_view example,
                                 uint64_t count) {
  Insert(kind.severity, kind.id, message, example, count);
}

void Diagnostics::AddEntry(const DiagnosticEntry& entry) {
  Insert(entry.severity, entry.kind, entry.message, entry.example, entry.count);
}

// Readers count some kinds once per event: nothing is copied but on a kind's
// first occurrence.
void Diagnostics::Insert(Severity severity, std::string_view kind, std::string_view message, std::string_view example,
                         uint64_t count) {
  if (count == 0) return;
  auto it = entries_.find(kind);
  if (it == entries_.end()) {
    DiagnosticEntry e{severity, std::string(kind), std::string(message), 0, std::string(example.substr(0, 200))};
    it = entries_.emplace(std::string(kind), std::move(e)).first;
  }
  it->second.count += count;
  if (severity > it->second.severity) it->second.severity = severity;
}

void Diagnostics::Merge(const Diagnostics& other) {
  for (const auto& [kind, e] : other.entries_) AddEntry(e);
}

std::vector<DiagnosticEntry> Diagnostics::Entries() const {
  std::vector<DiagnosticEntry> out;
  for (const auto& [kind, e] : entries_) out.push_back(e);
  std::stable_sort(out.begin(), out.end(),
                   [](const DiagnosticEntry& a, const DiagnosticEntry& b) { return a.severity > b.severity; });
  return out;
}

uint64_t Diagnostics::Count(std::string_view kind) const {
  auto it = entries_.find(kind);
  return it == entries_.end() ? 0 : it->second.count;
}

}  // namespace tfprof
