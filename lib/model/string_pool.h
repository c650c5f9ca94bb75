// Interned strings: every name in a capture (event names, stat names, string
// stat values) is stored once and referred to by a 32-bit id.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace tfprof {

using StringId = uint32_t;

class StringPool {
 public:
  // Id 0 is always the empty string, so a zero-initialised id reads as "".
  static constexpr StringId kEmpty = 0;

  StringPool() { Intern(""); }
  StringPool(const StringPool&) = delete;
  StringPool& operator=(const StringPool&) = delete;
  StringPool(StringPool&&) = default;
  StringPool& operator=(StringPool&&) = default;

  StringId Intern(std::string_view s) {
    auto it = index_.find(s);
    if (it != index_.end()) return it->second;
    std::string_view stored = Store(s);
    auto id = static_cast<StringId>(views_.size());
    views_.push_back(stored);
    index_.emplace(stored, id);
    return id;
  }

  // Returns kNotFound when the string was never interned.
  static constexpr StringId kNotFound = UINT32_MAX;
  StringId Find(std::string_view s) const {
    auto it = index_.find(s);
    return it == index_.end() ? kNotFound : it->second;
  }

  std::string_view Get(StringId id) const { return id < views_.size() ? views_[id] : std::string_view(); }
  size_t size() const { return views_.size(); }
  size_t bytes() const { return stored_bytes_; }
  // Memory the pool holds: the text (the unused tail of its blocks is never
  // touched, so takes no memory), a view per string, and the index's slots.
  size_t MemoryBytes() const {
    return stored_bytes_ + views_.capacity() * sizeof(std::string_view) +
           index_.capacity() * (sizeof(std::pair<std::string_view, StringId>) + 1);
  }

 private:
  // Strings live in large blocks that never move, so the views stay valid.
  std::string_view Store(std::string_view s) {
    constexpr size_t kBlock = 1 << 20;
    if (blocks_.empty() || blocks_.back().capacity() - blocks_.back().size() < s.size()) {
      blocks_.emplace_back();
      blocks_.back().reserve(std::max(kBlock, s.size()));
    }
    std::string& block = blocks_.back();
    size_t at = block.size();
    block.append(s);
    stored_bytes_ += s.size();
    return std::string_view(block.data() + at, s.size());
  }

  std::deque<std::string> blocks_;
  std::vector<std::string_view> views_;
  absl::flat_hash_map<std::string_view, StringId> index_;
  size_t stored_bytes_ = 0;
};

}  // namespace tfprof
