#include "lib/read/chrome_trace_tf1_memory.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/model/tf1_timeline.h"
#include "lib/model/tf_data_type.h"
#include "lib/model/xplane_schema.h"
#include "lib/read/chrome_trace_tf1_timeline.h"
#include "lib/read/stat_edit.h"
#include "lib/util/parse_number.h"
#include "lib/util/saturating.h"
#include "simdjson.h"

namespace tfprof {
namespace {

// What a tensor's snapshot says (its TensorDescription).
struct TensorDescription {
  std::string allocator;
  int64_t requested_bytes = 0;
  std::optional<int64_t> allocated_bytes;
  int64_t data_type = 0;  // DT_INVALID when not said.
  std::string shape;      // "[8,1]", "[]" (a scalar), "<unknown>" (unknown rank).
};

// absl's StripAsciiWhitespace on a std::string_view (this absl's
// string_view is its own type).
std::string_view Strip(std::string_view s) {
  const absl::string_view stripped = absl::StripAsciiWhitespace(absl::string_view(s.data(), s.size()));
  return {stripped.data(), stripped.size()};
}

// The text proto timeline.py writes (str() of the TensorDescription, its
// quotes removed): "key: value" lines in nested "name {" ... "}" blocks.
// Only the fields the profile reads are looked at; anything else, and any
// line it cannot read, is passed over. Not protobuf's TextFormat: it needs
// the full runtime and TensorFlow's descriptors, where the tool links the
// lite runtime (start-up, performance-history.md session 29), and the
// removed quotes make string fields no longer text format anyway.
TensorDescription ParseTensorDescription(std::string_view text) {
  TensorDescription d;
  std::vector<std::string_view> blocks;
  std::vector<int64_t> dims;
  bool unknown_rank = false;
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    std::string_view line = Strip(text.substr(0, eol));
    text = eol == text.npos ? std::string_view() : text.substr(eol + 1);
    if (line.empty()) continue;
    if (line == "}") {
      if (!blocks.empty()) blocks.pop_back();
      continue;
    }
    if (line.back() == '{') {
      blocks.push_back(Strip(line.substr(0, line.size() - 1)));
      continue;
    }
    const size_t colon = line.find(':');
    if (colon == line.npos) continue;
    const std::string_view key = line.substr(0, colon);
    const std::string_view value = Strip(line.substr(colon + 1));
    const std::string_view block = blocks.empty() ? std::string_view() : blocks.back();
    if (blocks.empty() && key == "dtype") {
      d.data_type = DataTypeFromEnumName(value).value_or(0);
    } else if (blocks.size() == 2 && blocks[0] == "shape" && block == "dim" && key == "size") {
      int64_t n;
      if (ParseWhole(value, &n)) dims.push_back(n);
    } else if (blocks.size() == 1 && block == "shape" && key == "unknown_rank") {
      unknown_rank = value == "true";
    } else if (blocks.size() == 1 && block == "allocation_description") {
      if (key == "requested_bytes") ParseWhole(value, &d.requested_bytes);
      else if (key == "allocated_bytes") {
        int64_t n;
        if (ParseWhole(value, &n)) d.allocated_bytes = n;
      } else if (key == "allocator_name") {
        d.allocator = std::string(value);
      }
    }
  }
  // A tensor without allocator_name counts under "", as timeline.py counts it.
  d.shape = unknown_rank ? std::string("<unknown>") : absl::StrCat("[", absl::StrJoin(dims, ","), "]");
  return d;
}

// The snapshot arg ({"tensor_description": "..."}, kept as its JSON text):
// the description's text, or nullopt when it is not there. One parser for
// all the tensors of a timeline.
std::optional<std::string> DescriptionText(simdjson::dom::parser& parser, std::string_view snapshot_json) {
  simdjson::dom::element root;
  if (parser.parse(simdjson::padded_string(snapshot_json)).get(root) != simdjson::SUCCESS) return std::nullopt;
  std::string_view text;
  if (root["tensor_description"].get_string().get(text) != simdjson::SUCCESS) return std::nullopt;
  return std::string(text);
}

// "gradients/MatMul_grad/MatMul:1" -> "gradients/MatMul_grad/MatMul": an
// output other than the first is named "<op>:<index>".
std::string_view OpOfTensor(std::string_view tensor) {
  const size_t colon = tensor.rfind(':');
  if (colon == tensor.npos || colon + 1 == tensor.size()) return tensor;
  for (char c : tensor.substr(colon + 1))
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return tensor;
  return tensor.substr(0, colon);
}

struct Tensor {
  StringId name = StringPool::kEmpty;  // The object's name: the tensor's.
  std::optional<int64_t> created_ps, deleted_ps;
  std::optional<TensorDescription> description;
};

// One creation or deletion, as timeline.py sorts them: by time, then
// signed bytes (a deletion before a creation of as many bytes), then name.
struct Change {
  int64_t time_ps;
  int64_t signed_bytes;
  std::string_view name;
  const Tensor* tensor;
  uint64_t addr;  // Its allocator events' addr: the tensor's number (see below).
  bool created;
  auto Key() const { return std::make_tuple(time_ps, signed_bytes, name); }
};

}  // namespace

Tf1TensorEvents AddTf1TensorLifetimes(Host& host, const std::vector<size_t>& tensor_planes, Plane& cpu) {
  Tf1TensorEvents out;
  auto left_out = [&](StringId name) {
    ++out.incomplete;
    if (out.example.empty()) out.example = std::string(host.Str(name));
  };
  // Objects by (plane, id, name). timeline.py numbers a tensor by how many
  // names it tracks, so when a name comes again (an op in a while loop) the
  // next new name gets the same id: the name tells them apart. A name that
  // comes again replaces its tracker: only the last is counted (it alone
  // gets a deletion), and on one key the later events win.
  std::map<std::tuple<size_t, int64_t, StringId>, Tensor> tensors;
  simdjson::dom::parser parser;
  for (size_t p : tensor_planes) {
    const Plane& plane = host.planes[p];
    const auto id_key = plane.FindStatKey(host.strings, "id");
    const auto snapshot_key = plane.FindStatKey(host.strings, "snapshot");
    for (const Line& line : plane.lines) {
      const std::string_view kind = host.Str(line.name);
      if (!IsTensorObjectLine(kind)) continue;
      for (size_t i = 0; i < line.events.size(); ++i) {
        const StringId name = plane.event_metadata[line.events[i].metadata].name;
        const auto id = FindStatIn(line.EventStats(i), id_key);
        if (!id || !id->is_integer()) {
          left_out(name);
          continue;
        }
        Tensor& t = tensors[{p, id->AsInt(), name}];
        t.name = name;
        const int64_t at = line.events[i].start_ps;
        if (kind == kTensorCreatedLine) {
          t.created_ps = at;
        } else if (kind == kTensorDeletedLine) {
          t.deleted_ps = at;
        } else if (auto s = FindStatIn(line.EventStats(i), snapshot_key); s && s->type() == StatType::kString) {
          if (auto text = DescriptionText(parser, host.Str(s->AsString())))
            t.description = ParseTensorDescription(*text);
        }
      }
    }
  }
  absl::flat_hash_set<StringId> deleted;  // Names with a tracker timeline.py counted.
  for (const auto& [key, t] : tensors)
    if (t.deleted_ps) deleted.insert(t.name);

  // Per allocator (byte order), its tensors' creations and deletions in
  // timeline.py's order.
  std::map<std::string, std::vector<Change>> by_allocator;
  for (const auto& [key, t] : tensors) {
    if (!t.deleted_ps && t.created_ps && deleted.contains(t.name)) {
      ++out.replaced;  // An earlier tracker of a name that came again.
      continue;
    }
    // A size no allocator gives (negative, or beyond 2^60) is no tensor's.
    if (!t.created_ps || !t.deleted_ps || !t.description || t.description->requested_bytes < 0 ||
        t.description->requested_bytes > (int64_t{1} << 60)) {
      left_out(t.name);
      continue;
    }
    // Created and deleted in one microsecond (an output nothing read, of
    // an op under 1 us): timeline.py takes its bytes away before it adds
    // them (its sort puts -bytes first), so no count changes; as events it
    // would be a free before its allocation.
    if (*t.deleted_ps == *t.created_ps) {
      ++out.instant;
      continue;
    }
    ++out.tensors;
    const int64_t bytes = t.description->requested_bytes;
    // The tensor's addr: its number, mixed with the timeline's time origin
    // so that the files of a series (appended into one host) do not share
    // numbers.
    const uint64_t addr = static_cast<uint64_t>(host.time_origin_ns) * 0x9E3779B97F4A7C15ull + out.tensors;
    std::vector<Change>& changes = by_allocator[t.description->allocator];
    changes.push_back({*t.created_ps, bytes, host.Str(t.name), &t, addr, true});
    changes.push_back({*t.deleted_ps, -bytes, host.Str(t.name), &t, addr, false});
  }
  if (by_allocator.empty()) return out;

  const EventMetadataId allocation = static_cast<EventMetadataId>(cpu.event_metadata.size());
  cpu.event_metadata.push_back(EventMetadata{});
  cpu.event_metadata.back().name = host.strings.Intern(schema::kMemoryAllocationEvent);
  cpu.event_metadata.push_back(EventMetadata{});
  cpu.event_metadata.back().name = host.strings.Intern(schema::kMemoryDeallocationEvent);
  const StatKey allocator_key = StatKeyFor(host, cpu, "allocator_name"),
                allocated_key = StatKeyFor(host, cpu, "bytes_allocated"),
                reserved_key = StatKeyFor(host, cpu, "bytes_reserved"),
                available_key = StatKeyFor(host, cpu, "bytes_available"),
                requested_key = StatKeyFor(host, cpu, "requested_bytes"),
                allocation_key = StatKeyFor(host, cpu, "allocation_bytes"), addr_key = StatKeyFor(host, cpu, "addr"),
                op_key = StatKeyFor(host, cpu, "tf_op"), region_key = StatKeyFor(host, cpu, "region_type"),
                type_key = StatKeyFor(host, cpu, "data_type"), shape_key = StatKeyFor(host, cpu, "shape");
  const StringId output = host.strings.Intern("output");
  Line& line = cpu.lines.emplace_back();
  line.id = kTf1TensorLifetimesLineId;
  line.name = host.strings.Intern("TF1 tensor lifetimes (timeline.py's memory counters)");
  for (auto& [allocator, changes] : by_allocator) {
    std::stable_sort(changes.begin(), changes.end(),
                     [](const Change& a, const Change& b) { return a.Key() < b.Key(); });
    const StringId allocator_id = host.strings.Intern(allocator);
    int64_t in_use = 0;
    for (const Change& c : changes) {
      const TensorDescription& d = *c.tensor->description;
      // Sizes are at most 2^60: the sum of a hostile file's many saturates.
      in_use = SaturatingAdd(in_use, c.signed_bytes);
      line.stats.push_back(Stat::String(allocator_key, allocator_id));
      line.stats.push_back(Stat::Int(allocated_key, in_use));
      line.stats.push_back(Stat::Int(reserved_key, 0));
      line.stats.push_back(Stat::Int(available_key, 0));
      line.stats.push_back(Stat::Int(requested_key, d.requested_bytes));
      line.stats.push_back(Stat::Int(allocation_key, d.allocated_bytes.value_or(d.requested_bytes)));
      line.stats.push_back(Stat::Uint(addr_key, c.addr));
      line.stats.push_back(Stat::String(op_key, host.strings.Intern(OpOfTensor(c.name))));
      line.stats.push_back(Stat::String(region_key, output));
      line.stats.push_back(Stat::Int(type_key, d.data_type));
      line.stats.push_back(Stat::String(shape_key, host.strings.Intern(d.shape)));
      line.events.push_back(
          Event{c.time_ps, 0, c.created ? allocation : allocation + 1, static_cast<uint32_t>(line.stats.size())});
    }
  }
  // Allocators one after another above; in time order now (stable: each
  // allocator's events keep timeline.py's order among equal times).
  line.SortEvents();
  return out;
}

}  // namespace tfprof
