// Copying events from one plane into another, possibly of another host, for
// the passes that rebuild planes (the TF1 timeline conventions gather many
// processes into a host plane and device planes; several timeline files are
// gathered into one host). Names, stat names and string stat values are
// interned into the destination's pool; metadata is shared by name.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lib/model/model.h"

namespace tfprof {

class EventCopier {
 public:
  // `from_host` may be `to_host`.
  EventCopier(const Host& from_host, const Plane& from, Host& to_host, Plane& to);

  // Stats named `from` in the source are named `to` in the destination.
  void RenameStat(std::string_view from, std::string_view to);

  // Appends event `index` of `line` (of the source plane) to `out`, its
  // start moved by `shift_ps`, named `name` / `display_name` (strings of the
  // destination's pool) when they are not kEmpty, else as in the source.
  // `out` is left unsorted: call Line::SortEvents when done.
  void Copy(const Line& line, size_t index, Line& out, int64_t shift_ps = 0, StringId name = StringPool::kEmpty,
            StringId display_name = StringPool::kEmpty);

  // A source string's id in the destination pool.
  StringId ToDest(StringId source);

 private:
  StatKey Key(StatKey source);
  EventMetadataId Metadata(EventMetadataId source, StringId name, StringId display_name);

  const Host& from_host_;
  const Plane& from_;
  Host& to_host_;
  Plane& to_;
  const bool same_pool_;
  std::vector<int64_t> keys_;  // Source StatKey -> destination key, -1 until needed.
  absl::flat_hash_map<std::string_view, std::string_view> renames_;
  absl::flat_hash_map<StringId, StringId> strings_;
  absl::flat_hash_map<std::pair<StringId, StringId>, EventMetadataId> metadata_;  // (name, display) in `to_`.
};

// Sets each line's timestamp and duration from its (sorted) events; with
// `shared_start`, every line starts at the plane's first event, as the
// stream lines of an XPlane's GPU plane do.
void SetLineSpans(const Host& host, Plane& plane, bool shared_start);

}  // namespace tfprof
