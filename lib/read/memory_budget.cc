#include "lib/read/memory_budget.h"

#include <algorithm>
#include <cstdio>

#include "lib/model/errors.h"
#include "lib/read/capture_formats.h"

namespace tfprof {
namespace {

// "20,000": counts in the error are read by people.
std::string WithCommas(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string WhatGrew(Growth what, uint64_t count, uint64_t bytes, CaptureFormat format) {
  const GrowthNouns& nouns = FormatRow(format).growth_nouns;
  auto counted = [&](std::string_view noun) { return WithCommas(count) + " " + std::string(noun); };
  switch (what) {
    case Growth::kPlanes: return counted(nouns.planes);
    case Growth::kLines: return counted(nouns.lines);
    case Growth::kEventNames: return WithCommas(count) + " event names";
    case Growth::kStatNames: return counted(nouns.stat_names);
    case Growth::kEvents: return WithCommas(count) + " events";
    case Growth::kStats: return counted(nouns.stats);
    case Growth::kText: return WithCommas(count) + " distinct strings";
    case Growth::kInflated: return MemorySize(bytes) + " of inflated capture";
    case Growth::kCount: break;
  }
  return "?";
}

}  // namespace

std::string MemorySize(uint64_t bytes) {
  char text[32];
  if (bytes >= (uint64_t{1} << 30))
    std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1 << 30));
  else if (bytes >= (uint64_t{1} << 20))
    std::snprintf(text, sizeof text, "%llu MiB", static_cast<unsigned long long>(bytes >> 20));
  else std::snprintf(text, sizeof text, "%llu KiB", static_cast<unsigned long long>(bytes >> 10));
  return text;
}

MemoryBudget::MemoryBudget(std::string path, const ReadOptions& options, CaptureFormat format)
    : path_(std::move(path)),
      format_(format),
      limit_(options.memory_limit_bytes ? options.memory_limit_bytes : UINT64_MAX),
      limit_from_env_(options.memory_limit_from_env) {}

void MemoryBudget::Release(Growth what, uint64_t bytes) {
  uint64_t& held = bytes_[static_cast<size_t>(what)];
  bytes = std::min(bytes, held);
  held -= bytes;
  used_ -= bytes;
}

void MemoryBudget::Exceeded() const {
  size_t biggest = 0;
  for (size_t k = 1; k < static_cast<size_t>(Growth::kCount); ++k)
    if (bytes_[k] > bytes_[biggest]) biggest = k;
  const auto what = static_cast<Growth>(biggest);
  std::string limit = limit_from_env_ ? "the " + MemorySize(limit_) + " memory limit"
                                      : "the " + MemorySize(limit_) + " of memory available";
  std::string remedy = limit_from_env_ ? "set TFPROF_MEMORY_LIMIT higher if this machine has the memory"
                                       : "free memory, or read it on a machine with more";
  // Only events and their stats are what a cap on the events read bounds.
  const bool events = what == Growth::kEvents || what == Growth::kStats;
  if (events) remedy += ", or read part of it";
  throw InputError(path_,
                   "reading needs more than " + limit + " (" +
                       WhatGrew(what, counts_[biggest], bytes_[biggest], format_) + " so far); " + remedy,
                   kExitBadInput, events ? InputHint::kReadPartOfTheEvents : InputHint::kNone);
}

}  // namespace tfprof
