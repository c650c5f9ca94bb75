// Makes a large XSpace from a real one by repeating every line's events N
// times, each copy shifted past the previous, until the file reaches a target
// size. Used by scripts/bench/ to measure reading speed and memory on
// gigabyte captures. The output is assembled on the wire by hand because
// protobuf's classes cannot serialize a message of 2 GiB or more.
//
// Each copy is its own steps, as in a long training run: group_id stats are
// renumbered per copy (copy k adds k x (largest group id + 1)) and so are the
// names of the Steps line's events (a step event is named by its group id).
// A source not grouped when taken (current TensorFlow: no group_id) is
// grouped by the reader of the copy, through the ids its events link by:
// those are renumbered per copy in the same way (the producer/consumer
// context ids _p and _c, the step and iterator ids id, parent_id and
// element_id, and step_num), so that each copy's events link within the
// copy, as in a long capture, and not to the same events of every other
// copy (the links of a context met on both sides 64 times or more are
// dropped, as the reference drops them, so the copies would have been
// grouped by nesting alone).
// With --same-groups every copy keeps the source's group ids (and ids), so
// the whole capture is the source's few steps made very long.
//
//   make_big_xplane SOURCE.xplane.pb TARGET_MIB OUT.xplane.pb [--same-groups]
#include <charconv>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "proto/xplane.pb.h"

namespace {

void PutVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void PutField(std::string& out, uint32_t field, const std::string& payload) {
  PutVarint(out, (field << 3) | 2);
  PutVarint(out, payload.size());
  out += payload;
}

using Names = std::set<std::string>;
const Names kGroupIds = {"group_id"};
// The ids an ungrouped capture's events link by (see the top of the file).
const Names kLinkIds = {"_p", "_c", "id", "parent_id", "element_id", "step_num"};

// The plane's stat metadata ids of those names.
std::set<int64_t> KeysNamed(const tfprof::xplane::XPlane& plane, const Names& names) {
  std::set<int64_t> keys;
  for (const auto& [id, m] : plane.stat_metadata())
    if (names.count(m.name())) keys.insert(id);
  return keys;
}

int64_t StatInt(const tfprof::xplane::XStat& s) {
  if (s.value_case() == tfprof::xplane::XStat::kInt64Value) return s.int64_value();
  if (s.value_case() == tfprof::xplane::XStat::kUint64Value) return static_cast<int64_t>(s.uint64_value());
  return -1;
}

// One more than the largest integer value under `below` of the stats of
// those names (0 when none): the step between copies' ids.
int64_t StrideOf(const tfprof::xplane::XSpace& space, const Names& names, int64_t below) {
  int64_t stride = 0;
  for (const auto& p : space.planes()) {
    const std::set<int64_t> keys = KeysNamed(p, names);
    for (const auto& l : p.lines())
      for (const auto& e : l.events())
        for (const auto& st : e.stats())
          if (keys.count(st.metadata_id()))
            if (const int64_t v = StatInt(st); v >= 0 && v < below) stride = std::max(stride, v + 1);
  }
  return stride;
}

}  // namespace

int main(int argc, char** argv) {
  const bool same_groups = argc == 5 && std::string(argv[4]) == "--same-groups";
  if (argc != 4 && !same_groups) {
    std::cerr << "usage: make_big_xplane SOURCE.xplane.pb TARGET_MIB OUT.xplane.pb [--same-groups]\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << "make_big_xplane: cannot open " << argv[1] << "\n";
    return 1;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  tfprof::xplane::XSpace space;
  if (!space.ParseFromString(ss.str())) {
    std::cerr << "cannot parse " << argv[1] << "\n";
    return 1;
  }
  const uint64_t target = std::stoull(argv[2]) << 20;
  // Only the lines are repeated, so size the copies by the lines' bytes.
  uint64_t line_bytes = 0;
  for (const auto& p : space.planes())
    for (const auto& l : p.lines()) line_bytes += l.ByteSizeLong();
  // An empty source would write an empty file and call it done.
  if (line_bytes == 0) {
    std::cerr << "make_big_xplane: " << argv[1] << " has no lines to repeat\n";
    return 1;
  }
  const uint64_t copies = std::max<uint64_t>(1, target / line_bytes);

  // Shift each copy by the capture's whole span so copies never overlap.
  int64_t first = INT64_MAX, last = INT64_MIN;
  for (const auto& p : space.planes())
    for (const auto& l : p.lines())
      for (const auto& e : l.events()) {
        first = std::min(first, l.timestamp_ns() * 1000 + e.offset_ps());
        last = std::max(last, l.timestamp_ns() * 1000 + e.offset_ps() + e.duration_ps());
      }
  const int64_t shift = (last - first) + 1'000'000;

  // Copy k's group ids are the source's plus k * group_stride.
  const int64_t group_stride = same_groups ? 0 : StrideOf(space, kGroupIds, INT64_MAX);

  // Without group ids, copy k's link ids are the source's plus k *
  // link_stride, past the largest id under 2^32: TensorFlow numbers some
  // contexts from 1 (thread-pool regions) and keys others by 64-bit hashes,
  // which stay as random (and as unique) moved by any stride.
  const int64_t link_stride = same_groups || group_stride > 0 ? 0 : StrideOf(space, kLinkIds, int64_t{1} << 32);

  std::ofstream out(argv[3], std::ios::binary | std::ios::trunc);
  uint64_t total = 0, events = 0;
  for (const auto& plane : space.planes()) {
    std::string body;
    tfprof::xplane::XPlane head = plane;
    head.clear_lines();
    const std::set<int64_t> group_keys = KeysNamed(plane, kGroupIds);
    const std::set<int64_t> link_keys = KeysNamed(plane, kLinkIds);
    // The Steps line's event names per copy: (copy, source metadata id) ->
    // a new metadata id named by the copy's group id.
    std::map<std::pair<uint64_t, int64_t>, int64_t> step_names;
    if (group_stride > 0) {
      int64_t next_id = 0;
      for (const auto& [id, m] : plane.event_metadata()) next_id = std::max(next_id, id + 1);
      for (const auto& line : plane.lines()) {
        if (line.name() != "Steps") continue;
        for (const auto& e : line.events()) {
          const std::string& name = plane.event_metadata().at(e.metadata_id()).name();
          int64_t group = 0;
          auto r = std::from_chars(name.data(), name.data() + name.size(), group);
          if (r.ec != std::errc() || r.ptr != name.data() + name.size()) continue;
          for (uint64_t k = 1; k < copies; ++k) {
            if (!step_names.emplace(std::pair{k, e.metadata_id()}, next_id).second) continue;
            tfprof::xplane::XEventMetadata& m = (*head.mutable_event_metadata())[next_id];
            m = plane.event_metadata().at(e.metadata_id());
            m.set_id(next_id);
            m.set_name(std::to_string(group + static_cast<int64_t>(k) * group_stride));
            ++next_id;
          }
        }
      }
    }
    body = head.SerializeAsString();  // id, name, metadata, stats
    for (const auto& line : plane.lines()) {
      tfprof::xplane::XLine lhead = line;
      lhead.clear_events();
      std::string lbytes = lhead.SerializeAsString();
      tfprof::xplane::XEvent e;
      for (uint64_t k = 0; k < copies; ++k) {
        for (const auto& src : line.events()) {
          e = src;
          e.set_offset_ps(src.offset_ps() + static_cast<int64_t>(k) * shift);
          if ((group_stride > 0 || link_stride > 0) && k > 0) {
            // Unsigned: a hash id moved past 2^63 wraps, as its uint64 would.
            const uint64_t add = k * static_cast<uint64_t>(group_stride > 0 ? group_stride : link_stride);
            const std::set<int64_t>& keys = group_stride > 0 ? group_keys : link_keys;
            for (auto& st : *e.mutable_stats()) {
              if (!keys.count(st.metadata_id())) continue;
              if (st.value_case() == tfprof::xplane::XStat::kInt64Value)
                st.set_int64_value(static_cast<int64_t>(static_cast<uint64_t>(st.int64_value()) + add));
              if (st.value_case() == tfprof::xplane::XStat::kUint64Value) st.set_uint64_value(st.uint64_value() + add);
            }
            auto renamed = step_names.find({k, src.metadata_id()});
            if (renamed != step_names.end()) e.set_metadata_id(renamed->second);
          }
          PutField(lbytes, 4, e.SerializeAsString());
          ++events;
        }
      }
      PutField(body, 3, lbytes);
    }
    std::string framed;
    PutVarint(framed, (1u << 3) | 2);
    PutVarint(framed, body.size());
    out.write(framed.data(), static_cast<std::streamsize>(framed.size()));
    out.write(body.data(), static_cast<std::streamsize>(body.size()));
    total += framed.size() + body.size();
  }
  for (const auto& h : space.hostnames()) {
    std::string f;
    PutField(f, 4, h);
    out.write(f.data(), static_cast<std::streamsize>(f.size()));
    total += f.size();
  }
  std::cerr << "wrote " << argv[3] << ": " << total << " bytes, " << copies << " copies, " << events << " events, "
            << (group_stride > 0  ? "group ids renumbered per copy"
                : link_stride > 0 ? "no group ids; the ids events link by renumbered per copy"
                                  : "group ids as in the source")
            << "\n";
  return out ? 0 : 1;
}
