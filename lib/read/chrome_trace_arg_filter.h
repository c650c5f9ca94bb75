// Which trace event args the Chrome trace reader keeps as event stats when a
// command analyses only (ReadOptions::event_stats without keep_all): the
// names the analyses read (lib/summary/analysed_event_stats.cc) and those the
// reader's conventions read before them (kChromeTraceConventionArgs,
// kTfStringIntegerArgs: chrome_trace_conventions.h). The
// parsers test every arg key of every event against it, before decoding the
// value, so the test is a length bucket and a few compares, no hash.
//
// A skipped value is not read, so not checked either: a malformed number or
// literal there, which a whole read refuses, passes, as in the fields the
// reader never reads (s, cname, tts, ...); and a number beyond a double's
// range there is not counted. A null is read (json.null_arg is counted
// whatever the arg's name).
//
// A Kineto trace's events carry a dozen args each that no analysis reads
// (CUPTI's cbid, "Ev Idx", "Input Dims", occupancy figures, ...): at 1 GB,
// about 40% of the args, every one of them decoded, keyed, interned and
// stored before this filter.
#pragma once

#include <algorithm>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "lib/read/chrome_trace_conventions.h"
#include "lib/read/read_options.h"

namespace tfprof {

class TraceArgFilter {
 public:
  // Null when `kept` keeps every stat.
  static std::unique_ptr<TraceArgFilter> For(const EventStatFilter& kept) {
    if (kept.keep_all) return nullptr;
    auto filter = std::make_unique<TraceArgFilter>();
    for (std::string_view name : kept.names) filter->Add(name);
    for (std::string_view name : kChromeTraceConventionArgs) filter->Add(name);
    for (std::string_view name : kTfStringIntegerArgs) filter->Add(name);
    return filter;
  }

  bool Keeps(std::string_view key) const {
    const std::vector<std::string_view>& names = by_length_[std::min(key.size(), kBuckets - 1)];
    for (std::string_view name : names)
      if (name.size() == key.size() &&
          (key.empty() || (name[0] == key[0] && std::memcmp(name.data(), key.data(), key.size()) == 0)))
        return true;
    return false;
  }

 private:
  void Add(std::string_view name) {
    std::vector<std::string_view>& names = by_length_[std::min(name.size(), kBuckets - 1)];
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }

  // Names by length; the longer ones share the last bucket.
  static constexpr size_t kBuckets = 40;
  std::vector<std::string_view> by_length_[kBuckets];
};

}  // namespace tfprof
