#include "lib/read/chrome_trace_conventions.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "lib/model/diagnostic_kinds.h"
#include "lib/model/xplane_schema.h"
#include "lib/read/chrome_trace_kineto_ops.h"
#include "lib/read/chrome_trace_legacy_autograd.h"
#include "lib/read/chrome_trace_tf1_timeline.h"
#include "lib/read/stat_edit.h"
#include "lib/util/parallel_for.h"
#include "lib/util/parse_number.h"
#include "lib/util/phase_times.h"

namespace tfprof {
namespace {

// --- TensorFlow trace viewer JSON --------------------------------------------

// Events named by their long_name: metadata by (long name, short name), so
// events that share a short name ("_Send") but not an op get their own.
uint64_t NameByLongName(Host& host, Plane& plane) {
  const auto key = plane.FindStatKey(host.strings, "long_name");
  if (!key) return 0;
  absl::flat_hash_map<std::pair<StringId, EventMetadataId>, EventMetadataId> renamed;
  uint64_t count = 0;
  for (Line& line : plane.lines) {
    for (size_t i = 0; i < line.events.size(); ++i) {
      auto s = FindStatIn(line.EventStats(i), key);
      if (!s || s->type() != StatType::kString || s->AsString() == StringPool::kEmpty) continue;
      Event& e = line.events[i];
      const EventMetadata& old = plane.event_metadata[e.metadata];
      if (old.name == s->AsString()) continue;
      auto [it, fresh] = renamed.try_emplace({s->AsString(), e.metadata}, 0);
      if (fresh) {
        EventMetadata m = old;
        m.display_name = old.display_name != StringPool::kEmpty ? old.display_name : old.name;
        m.name = s->AsString();
        plane.event_metadata.push_back(m);
        it->second = static_cast<EventMetadataId>(plane.event_metadata.size() - 1);
      }
      e.metadata = it->second;
      ++count;
    }
  }
  return count;
}

// TF's trace viewer JSON drops the "level 0" stat (the outermost TraceMe
// annotation's name) that the XPlane's GPU events carry and device op
// metrics read; the event's `annotation` arg still holds it: its first
// "::"-separated level, without the "#key=value,...#" metadata.
std::string_view LevelZero(std::string_view annotation) {
  std::string_view level = annotation.substr(0, annotation.find("::"));
  return level.substr(0, level.find('#'));
}

uint64_t LevelZeroFromAnnotation(Host& host, Plane& plane) {
  if (!schema::IsGpuPlane(host.PlaneName(plane))) return 0;
  const auto annotation = plane.FindStatKey(host.strings, "annotation");
  if (!annotation || plane.FindStatKey(host.strings, "level 0") || plane.FindStatKey(host.strings, "tf_op")) return 0;
  const StatKey level0 = StatKeyFor(host, plane, "level 0");
  uint64_t count = 0;
  constexpr StringId kNone = std::numeric_limits<StringId>::max();
  for (Line& line : plane.lines) {
    bool any = false;
    for (const Stat& s : line.stats) any = any || (s.key() == *annotation && s.type() == StatType::kString);
    if (!any) continue;
    std::vector<StringId> level_of(line.events.size(), kNone);
    for (size_t i = 0; i < line.events.size(); ++i)
      if (auto a = FindStatIn(line.EventStats(i), annotation); a && a->type() == StatType::kString)
        level_of[i] = host.strings.Intern(LevelZero(host.Str(a->AsString())));
    count += MakeRoomForStats(line, [&](size_t i) -> size_t { return level_of[i] != kNone; });
    for (size_t i = 0; i < line.events.size(); ++i)
      if (level_of[i] != kNone) line.stats[line.events[i].stats_end - 1] = Stat::String(level0, level_of[i]);
  }
  return count;
}

// TensorFlow's trace viewer JSON writes a zero-length event with a
// duration of 1 ps (1e-06 us: xprof's trace_events_to_json floors every
// duration at 1 ps so that the viewer draws it); its own tools read the
// XSpace's 0. Only its process names (/host:..., /device:...) are read so.
// A process named as TensorFlow's trace viewer JSON names its planes.
bool IsTensorFlowProcessName(std::string_view name) {
  return name.starts_with("/host:") || name.starts_with("/device:");
}

uint64_t ZeroLengthFromFloor(const Host& host, Plane& plane) {
  if (!IsTensorFlowProcessName(host.PlaneName(plane))) return 0;
  uint64_t count = 0;
  for (Line& line : plane.lines)
    for (Event& e : line.events)
      if (e.duration_ps == 1) {
        e.duration_ps = 0;
        ++count;
      }
  return count;
}

uint64_t IntegersFromStrings(Host& host, Plane& plane) {
  std::vector<bool> integer(plane.stat_metadata.size());
  bool any = false;
  for (size_t k = 0; k < plane.stat_metadata.size(); ++k) {
    std::string_view name = host.Str(plane.stat_metadata[k].name);
    integer[k] = std::find(std::begin(kTfStringIntegerArgs), std::end(kTfStringIntegerArgs), name) !=
                 std::end(kTfStringIntegerArgs);
    any = any || integer[k];
  }
  if (!any) return 0;
  uint64_t count = 0;
  for (Line& line : plane.lines)
    for (Stat& s : line.stats) {
      if (s.type() != StatType::kString || !integer[s.key()]) continue;
      int64_t v;
      if (!ParseWhole(host.Str(s.AsString()), &v)) continue;
      s = Stat::Int(s.key(), v);
      ++count;
    }
  return count;
}

// --- Kineto --------------------------------------------------------------------

enum class CatKind : uint8_t { kOther, kHost, kDevice, kDeviceAnnotation };

// Category names of the Kineto versions in the wild (2021 builds wrote
// "Operator", "Runtime", "Kernel", "Memcpy", "Memset").
CatKind KindOfCat(std::string_view c) {
  if (c == "kernel" || c == "gpu_memcpy" || c == "gpu_memset" || c == "Kernel" || c == "Memcpy" || c == "Memset")
    return CatKind::kDevice;
  if (c == "gpu_user_annotation" || c == "cuda_sync") return CatKind::kDeviceAnnotation;
  if (c == "cpu_op" || c == "user_annotation" || c == "cuda_runtime" || c == "cuda_driver" || c == "python_function" ||
      c == "Operator" || c == "Runtime" || c == "cpu_instant_event")
    return CatKind::kHost;
  return CatKind::kOther;
}

// Lower-case categories only Kineto writes: with them (or process labels), a
// trace is Kineto's even when an older build wrote no labels.
bool IsKinetoOnlyCat(std::string_view c) {
  return c == "cpu_op" || c == "cuda_runtime" || c == "kernel" || c == "gpu_memcpy" || c == "gpu_memset" ||
         c == "user_annotation" || c == "gpu_user_annotation";
}

struct PlaneCensus {
  uint64_t host = 0, device = 0, annotation = 0;
  bool kineto_cat = false;
};

// How many stats a part of a line's stat pool holds for the scans below:
// a long line (a GPU stream's, a busy host thread's) spreads over the
// threads.
constexpr size_t kStatsPerPart = size_t{1} << 16;

// count(stats) over the stat pools of the plane's lines, a part at a time
// on a few threads; the parts' results in line and pool order.
template <class Result, class Count>
std::vector<Result> OverStatParts(const Plane& plane, Count count) {
  size_t stats = 0;
  for (const Line& l : plane.lines) stats += l.stats.size();
  const std::vector<ItemPart> parts = CutIntoParts(
      plane.lines.size(), [&](size_t l) { return plane.lines[l].stats.size(); }, kStatsPerPart);
  std::vector<Result> results(parts.size());
  // Threads as for a pass over events, at a few stats an event.
  ParallelFor(parts.size(), ThreadsForEvents(stats / 4), [&](size_t k) {
    const ItemPart& part = parts[k];
    results[k] = count(std::span<const Stat>(plane.lines[part.item].stats).subspan(part.begin, part.end - part.begin));
  });
  return results;
}

// What kinds of Kineto events a plane holds, from the `cat` stats.
PlaneCensus Census(const Host& host, const Plane& plane) {
  PlaneCensus c;
  const auto key = plane.FindStatKey(host.strings, "cat");
  if (!key) return c;
  const auto parts = OverStatParts<PlaneCensus>(plane, [&](std::span<const Stat> stats) {
    PlaneCensus part;
    // A part holds few categories; the map allocates at its first.
    absl::flat_hash_map<StringId, CatKind> kinds;
    for (const Stat& s : stats) {
      if (s.key() != *key || s.type() != StatType::kString) continue;
      auto [it, fresh] = kinds.try_emplace(s.AsString(), CatKind::kOther);
      if (fresh) {
        it->second = KindOfCat(host.Str(s.AsString()));
        part.kineto_cat = part.kineto_cat || IsKinetoOnlyCat(host.Str(s.AsString()));
      }
      switch (it->second) {
        case CatKind::kHost: ++part.host; break;
        case CatKind::kDevice: ++part.device; break;
        case CatKind::kDeviceAnnotation: ++part.annotation; break;
        default: break;
      }
    }
    return part;
  });
  for (const PlaneCensus& part : parts) {
    c.host += part.host;
    c.device += part.device;
    c.annotation += part.annotation;
    c.kineto_cat = c.kineto_cat || part.kineto_cat;
  }
  return c;
}

std::string Describe(const Host& host, const Plane& plane) {
  std::string name(host.PlaneName(plane));
  return (name.empty() ? std::string("?") : name) + " (pid " + std::to_string(plane.id) + ")";
}

// Moves `src`'s lines into `dst`, re-pointing their events' metadata and
// stats at `dst`'s tables; a thread id already in `dst` gets a fresh one.
void MergePlaneInto(Host& host, Plane& src, Plane& dst) {
  std::vector<StatKey> key_map(src.stat_metadata.size());
  for (size_t k = 0; k < src.stat_metadata.size(); ++k)
    key_map[k] = StatKeyFor(host, dst, host.Str(src.stat_metadata[k].name));
  absl::flat_hash_map<std::pair<StringId, StringId>, EventMetadataId> existing;
  for (size_t m = 0; m < dst.event_metadata.size(); ++m)
    existing.try_emplace({dst.event_metadata[m].name, dst.event_metadata[m].display_name},
                         static_cast<EventMetadataId>(m));
  std::vector<EventMetadataId> meta_map(src.event_metadata.size());
  for (size_t m = 0; m < src.event_metadata.size(); ++m) {
    const EventMetadata& sm = src.event_metadata[m];
    auto [it, fresh] = existing.try_emplace({sm.name, sm.display_name}, 0);
    if (fresh) {
      EventMetadata copy = sm;
      copy.stats_begin = static_cast<uint32_t>(dst.metadata_stats.size());
      for (uint32_t s = sm.stats_begin; s < sm.stats_end; ++s) {
        const Stat& st = src.metadata_stats[s];
        dst.metadata_stats.push_back(Stat::Make(key_map[st.key()], st.type(), st.bits));
      }
      copy.stats_end = static_cast<uint32_t>(dst.metadata_stats.size());
      dst.event_metadata.push_back(copy);
      it->second = static_cast<EventMetadataId>(dst.event_metadata.size() - 1);
    }
    meta_map[m] = it->second;
  }
  absl::flat_hash_set<int64_t> ids;
  int64_t max_id = 0;
  for (const Line& l : dst.lines) {
    ids.insert(l.id);
    max_id = std::max(max_id, l.id);
  }
  for (Line& line : src.lines) {
    for (Event& e : line.events) e.metadata = meta_map[e.metadata];
    for (Stat& s : line.stats) s = Stat::Make(key_map[s.key()], s.type(), s.bits);
    if (!ids.insert(line.id).second) {
      line.id = ++max_id;
      ids.insert(line.id);
    }
    max_id = std::max(max_id, line.id);
    dst.lines.push_back(std::move(line));
  }
  src.lines.clear();
}

// "Memcpy HtoD (Pageable -> Device)" -> "MEMCPYHtoD", as the XPlane names
// the copy (and as event_span classifies it); "" when not a copy or set.
std::string_view XPlaneCopyName(std::string_view kineto) {
  if (kineto.substr(0, 6) == "Memset") return "MEMSET";
  if (kineto.substr(0, 7) != "Memcpy ") return {};
  std::string_view dir = kineto.substr(7, 4);
  if (dir == "HtoD") return "MEMCPYHtoD";
  if (dir == "DtoH") return "MEMCPYDtoH";
  if (dir == "DtoD") return "MEMCPYDtoD";
  if (dir == "HtoH") return "MEMCPYHtoH";
  if (dir == "PtoP") return "MEMCPYP2P";
  return {};
}

uint64_t NameCopiesAsXPlane(Host& host, Plane& plane) {
  std::vector<bool> renamed(plane.event_metadata.size());
  for (size_t m = 0; m < plane.event_metadata.size(); ++m) {
    EventMetadata& md = plane.event_metadata[m];
    std::string_view xplane = XPlaneCopyName(host.Str(md.name));
    if (xplane.empty()) continue;
    if (md.display_name == StringPool::kEmpty) md.display_name = md.name;
    md.name = host.strings.Intern(xplane);
    renamed[m] = true;
  }
  uint64_t count = 0;
  for (const Line& l : plane.lines)
    for (const Event& e : l.events) count += renamed[e.metadata];
  return count;
}

// Moves a GPU plane's annotation and wait events to one derived line, and
// gives stream lines the stream number as id. Returns the events moved.
uint64_t SplitDeviceLines(Host& host, Plane& plane) {
  const auto cat = plane.FindStatKey(host.strings, "cat");
  const auto stream = plane.FindStatKey(host.strings, "stream");
  Line annotations;
  annotations.id = kKinetoAnnotationLineId;
  annotations.name = host.strings.Intern("Kineto GPU annotations and syncs");
  absl::flat_hash_map<StringId, bool> is_annotation;
  auto annotation = [&](std::span<const Stat> stats) {
    auto c = FindStatIn(stats, cat);
    if (!c || c->type() != StatType::kString) return false;
    auto [it, fresh] = is_annotation.try_emplace(c->AsString(), false);
    if (fresh) it->second = KindOfCat(host.Str(c->AsString())) == CatKind::kDeviceAnnotation;
    return it->second;
  };
  absl::flat_hash_set<int64_t> ids;
  for (const Line& l : plane.lines) ids.insert(l.id);
  for (Line& line : plane.lines) {
    bool any = false, one_stream = true;
    std::optional<int64_t> stream_id;
    for (size_t i = 0; i < line.events.size(); ++i) {
      auto stats = line.EventStats(i);
      if (annotation(stats)) {
        any = true;
      } else if (auto s = FindStatIn(stats, stream); s && s->is_integer()) {
        if (stream_id && *stream_id != s->AsInt()) one_stream = false;
        stream_id = s->AsInt();
      }
    }
    if (any) {
      // The annotations move out; the other events close up in place, so
      // the line keeps the room its pool has for the kernels' added stats
      // (kStatRoomPerEvent) and no second copy of it is made.
      size_t kept_events = 0, kept_stats = 0;
      uint32_t begin = 0;
      for (size_t i = 0; i < line.events.size(); ++i) {
        Event e = line.events[i];
        const std::span<const Stat> stats(line.stats.data() + begin, e.stats_end - begin);
        begin = e.stats_end;
        if (annotation(stats)) {
          annotations.stats.insert(annotations.stats.end(), stats.begin(), stats.end());
          e.stats_end = static_cast<uint32_t>(annotations.stats.size());
          annotations.events.push_back(e);
          continue;
        }
        std::memmove(line.stats.data() + kept_stats, stats.data(), stats.size() * sizeof(Stat));
        kept_stats += stats.size();
        e.stats_end = static_cast<uint32_t>(kept_stats);
        line.events[kept_events++] = e;
      }
      line.events.resize(kept_events);
      line.stats.resize(kept_stats);
    }
    // Kineto's string tids ("stream 7") got synthetic ids when read.
    if (stream_id && one_stream && *stream_id != line.id && *stream_id >= 0 && !ids.contains(*stream_id)) {
      ids.erase(line.id);
      line.id = *stream_id;
      ids.insert(line.id);
    }
  }
  const uint64_t moved = annotations.events.size();
  if (moved) {
    annotations.SortEvents();
    plane.lines.push_back(std::move(annotations));
    std::erase_if(plane.lines, [](const Line& l) { return l.events.empty(); });
  }
  // As on an XPlane, all stream lines share one timestamp, the device's
  // first event (device op metrics measure the device's span from it).
  int64_t first_ps = INT64_MAX;
  for (const Line& l : plane.lines)
    if (!l.events.empty()) first_ps = std::min(first_ps, l.events.front().start_ps);
  if (first_ps == INT64_MAX) return moved;
  const int64_t first_ns = host.time_origin_ns + first_ps / 1000;
  for (Line& l : plane.lines) {
    if (l.events.empty()) continue;
    int64_t last = l.events.front().end_ps();
    for (const Event& e : l.events) last = std::max(last, e.end_ps());
    l.timestamp_ns = first_ns;
    l.duration_ps = last - (first_ns - host.time_origin_ns) * 1000;
  }
  return moved;
}

// Renames the `correlation` stat to `correlation_id`; returns the events
// carrying it.
uint64_t CorrelationAsXPlane(Host& host, Plane& plane) {
  auto key = plane.FindStatKey(host.strings, "correlation");
  if (!key || plane.FindStatKey(host.strings, "correlation_id")) return 0;
  plane.stat_metadata[*key].name = host.strings.Intern("correlation_id");
  uint64_t count = 0;
  for (uint64_t part : OverStatParts<uint64_t>(plane, [&](std::span<const Stat> stats) {
         uint64_t n = 0;
         for (const Stat& s : stats) n += s.key() == *key;
         return n;
       }))
    count += part;
  return count;
}

// ROCm's Kineto writes a kernel's grid and block on its launch
// (hipLaunchKernel), not on the kernel: copy them to the kernel (same
// correlation_id), where kernel stats read launch parameters.
uint64_t LaunchDimsToKernels(Host& host, const Plane& cpu, Plane& gpu) {
  const auto corr = cpu.FindStatKey(host.strings, "correlation_id");
  const auto grid = cpu.FindStatKey(host.strings, "grid"), block = cpu.FindStatKey(host.strings, "block");
  const auto gpu_corr = gpu.FindStatKey(host.strings, "correlation_id");
  const auto cat = gpu.FindStatKey(host.strings, "cat");
  if (!corr || !grid || !block || !gpu_corr || !cat) return 0;
  absl::flat_hash_map<int64_t, std::pair<Stat, Stat>> dims;
  for (const Line& l : cpu.lines)
    for (size_t i = 0; i < l.events.size(); ++i) {
      auto stats = l.EventStats(i);
      auto c = FindStatIn(stats, corr), g = FindStatIn(stats, grid), b = FindStatIn(stats, block);
      if (c && g && b) dims.try_emplace(c->AsInt(), *g, *b);
    }
  if (dims.empty()) return 0;
  const auto gpu_grid = gpu.FindStatKey(host.strings, "grid");
  const StatKey to_grid = StatKeyFor(host, gpu, "grid"), to_block = StatKeyFor(host, gpu, "block");
  uint64_t count = 0;
  for (Line& line : gpu.lines) {
    std::vector<const std::pair<Stat, Stat>*> dims_of(line.events.size(), nullptr);
    for (size_t i = 0; i < line.events.size(); ++i) {
      auto own = line.EventStats(i);
      auto c = FindStatIn(own, gpu_corr), k = FindStatIn(own, cat);
      if (c && k && k->type() == StatType::kString && KindOfCat(host.Str(k->AsString())) == CatKind::kDevice &&
          host.Str(k->AsString()) != "gpu_memcpy" && host.Str(k->AsString()) != "gpu_memset" &&
          !FindStatIn(own, gpu_grid))
        if (auto it = dims.find(c->AsInt()); it != dims.end()) dims_of[i] = &it->second;
    }
    count += MakeRoomForStats(line, [&](size_t i) -> size_t { return dims_of[i] ? 2 : 0; }) / 2;
    for (size_t i = 0; i < line.events.size(); ++i) {
      if (!dims_of[i]) continue;
      Stat* out = line.stats.data() + line.events[i].stats_end - 2;
      out[0] = Stat::Make(to_grid, dims_of[i]->first.type(), dims_of[i]->first.bits);
      out[1] = Stat::Make(to_block, dims_of[i]->second.type(), dims_of[i]->second.bits);
    }
  }
  return count;
}

// The device index of a Kineto GPU process: "GPU <n>" from its label, else
// its pid (Kineto's GPU pid is the device index).
std::optional<int64_t> DeviceIndex(std::string_view labels, int64_t pid) {
  int64_t n;
  if (labels.substr(0, 4) == "GPU " && ParseWhole(labels.substr(4), &n) && n >= 0) return n;
  if (pid >= 0 && pid < (int64_t{1} << 20)) return pid;
  return std::nullopt;
}

void AddKinetoOpDiagnostics(const KinetoOpCounts& ops, Diagnostics& diag) {
  diag.Add(diag_kind::kJsonKinetoFrameworkOps, "", ops.host_ops);
  diag.Add(diag_kind::kJsonKinetoDeviceOps, "", ops.device_with_op);
  diag.Add(diag_kind::kJsonKinetoDeviceOpsByAnnotation, "", ops.device_with_annotation);
  diag.Add(diag_kind::kJsonKinetoDeviceOpsByGpuAnnotation, "", ops.device_with_gpu_annotation);
  diag.Add(diag_kind::kJsonKinetoDeviceOpsByOwnName, "", ops.device_named_as_themselves);
  diag.Add(diag_kind::kJsonKinetoOpInputTypes, "", ops.device_with_input_types);
}

// Kineto names a process for every GPU of the machine ("python3", labels
// "GPU <n>") and lists them all in deviceProperties, used or not. A GPU
// process with no event, or only host events (a Python tracer's, with pid
// 0), is a device the program never ran on: it keeps its plane (the trace
// has it) but not the device description, so it is not listed or counted
// as a device. `census`: per plane. Returns how many were so idle.
uint64_t ForgetIdleGpuProcesses(Host& host, const std::vector<PlaneCensus>& census) {
  uint64_t idle = 0;
  for (size_t p = 0; p < host.planes.size(); ++p) {
    Plane& plane = host.planes[p];
    if (plane.device.empty() || schema::IsGpuPlane(host.PlaneName(plane))) continue;
    // Every event one of a host category (a `cat` stat each at most).
    if (plane.EventCount() != census[p].host) continue;
    plane.device = DeviceProperties();
    ++idle;
  }
  return idle;
}

// A GPU that deviceProperties does not list under its number: inside a
// container (HIP/CUDA_VISIBLE_DEVICES) Kineto lists the visible devices
// from 0 while the kernels name the machine's number (an MI300X trace:
// deviceProperties id 0, kernels on device 2). When every listed device is
// one model (`model`), that is this one's too. Returns how many were so
// described.
uint64_t DescribeUnlistedGpus(Host& host, const std::optional<DeviceProperties>& model) {
  if (!model) return 0;
  uint64_t n = 0;
  for (Plane& plane : host.planes)
    if (plane.device.empty() && schema::IsGpuPlane(host.PlaneName(plane))) {
      plane.device = *model;
      ++n;
    }
  return n;
}

// A host process that shares its pid with a GPU's (kSharedGpuLabelStat)
// and holds that GPU's events too (a container's pid 1 running on GPU 1):
// the lines of device events move to a plane of their own, labelled as the
// GPU, which the conventions then make /device:GPU:<n>. The new plane
// gets a copy of the host plane's tables, so its lines' metadata ids stay
// valid.
void SplitSharedGpuProcesses(Host& host) {
  const size_t planes = host.planes.size();
  for (size_t p = 0; p < planes; ++p) {
    const std::string gpu_label(PlaneStatString(host, host.planes[p], kSharedGpuLabelStat));
    if (gpu_label.empty()) continue;
    const auto cat = host.planes[p].FindStatKey(host.strings, "cat");
    if (!cat) continue;
    Plane gpu;
    std::vector<Line> kept;
    for (Line& line : host.planes[p].lines) {
      uint64_t device = 0, on_host = 0;
      for (const Stat& s : line.stats) {
        if (s.key() != *cat || s.type() != StatType::kString) continue;
        const CatKind kind = KindOfCat(host.Str(s.AsString()));
        if (kind == CatKind::kHost) ++on_host;
        else if (kind != CatKind::kOther) ++device;
      }
      (device > on_host ? gpu.lines : kept).push_back(std::move(line));
    }
    Plane& cpu = host.planes[p];
    cpu.lines = std::move(kept);
    if (gpu.lines.empty()) continue;
    gpu.id = cpu.id;
    gpu.name = cpu.name;
    gpu.event_metadata = cpu.event_metadata;
    gpu.stat_metadata = cpu.stat_metadata;
    gpu.metadata_stats = cpu.metadata_stats;
    gpu.plane_stats = cpu.plane_stats;
    host.planes.push_back(std::move(gpu));
    SetPlaneStatString(host, host.planes.back(), "labels", gpu_label);
  }
}

void ApplyKinetoConventions(Host& host, Diagnostics& diag, const std::optional<DeviceProperties>& machine_model) {
  SplitSharedGpuProcesses(host);
  PhaseTimer census_phase("conventions: census");
  std::vector<PlaneCensus> census;
  bool kineto = false;
  for (const Plane& p : host.planes) {
    census.push_back(Census(host, p));
    kineto = kineto || census.back().kineto_cat || !PlaneStatString(host, p, "labels").empty();
  }
  census_phase.Stop();
  if (!kineto) return;

  std::vector<size_t> cpu, gpu;
  for (size_t p = 0; p < host.planes.size(); ++p) {
    const Plane& plane = host.planes[p];
    std::string_view name = host.PlaneName(plane), labels = PlaneStatString(host, plane, "labels");
    if (schema::IsGpuPlane(name) || schema::IsTpuPlane(name)) continue;
    const PlaneCensus& c = census[p];
    if (c.device > 0 && labels != "CPU") gpu.push_back(p);
    else if (labels == "CPU" || name == schema::kHostThreadsPlane || (labels.empty() && c.host > 0)) cpu.push_back(p);
  }

  // GPU planes first: merging host planes below moves planes around.
  absl::flat_hash_set<int64_t> used;
  for (const Plane& p : host.planes)
    if (schema::IsGpuPlane(host.PlaneName(p))) {
      int64_t n;
      if (ParseWhole(host.PlaneName(p).substr(schema::kGpuPlanePrefix.size()), &n)) used.insert(n);
    }
  uint64_t moved = 0, copies = 0, correlated = 0;
  std::string gpu_example;
  PhaseTimer gpu_phase("conventions: gpu planes");
  for (size_t p : gpu) {
    Plane& plane = host.planes[p];
    std::optional<int64_t> index = DeviceIndex(PlaneStatString(host, plane, "labels"), plane.id);
    if (!index || used.contains(*index)) {
      index = 0;
      while (used.contains(*index)) ++*index;
    }
    used.insert(*index);
    const std::string from = Describe(host, plane);
    SetPlaneStatString(host, plane, "process_name", host.PlaneName(plane));
    plane.name = host.strings.Intern(std::string(schema::kGpuPlanePrefix) + std::to_string(*index));
    if (gpu_example.empty()) gpu_example = from + " -> " + std::string(host.PlaneName(plane));
    moved += SplitDeviceLines(host, plane);
    copies += NameCopiesAsXPlane(host, plane);
    correlated += CorrelationAsXPlane(host, plane);
  }
  gpu_phase.Stop();
  diag.Add(diag_kind::kJsonKinetoGpuPlane, gpu_example, gpu.size());
  diag.Add(diag_kind::kJsonKinetoUnlistedGpu, "", DescribeUnlistedGpus(host, machine_model));
  diag.Add(diag_kind::kJsonKinetoIdleGpu, "", ForgetIdleGpuProcesses(host, census));
  diag.Add(diag_kind::kJsonKinetoDeviceAnnotations, "", moved);
  diag.Add(diag_kind::kJsonKinetoMemcpyNames, "", copies);

  if (!cpu.empty()) {
    // The host plane: one already named so, else the first CPU process.
    size_t target = cpu[0];
    for (size_t p : cpu)
      if (host.PlaneName(host.planes[p]) == schema::kHostThreadsPlane) target = p;
    std::string names, example;
    for (size_t p : cpu) {
      if (!names.empty()) names += ", ";
      names += host.PlaneName(host.planes[p]);
      if (!example.empty()) example += ", ";
      example += Describe(host, host.planes[p]);
    }
    PhaseTimer host_phase("conventions: host plane");
    Plane& dst = host.planes[target];
    for (size_t p : cpu)
      if (p != target) MergePlaneInto(host, host.planes[p], dst);
    SetPlaneStatString(host, dst, "process_name", names);
    dst.name = host.strings.Intern(schema::kHostThreadsPlane);
    for (Line& l : dst.lines) l.SortEvents();
    correlated += CorrelationAsXPlane(host, dst);
    diag.AddWithMessage(diag_kind::kJsonKinetoHostPlane,
                        cpu.size() > 1
                            ? "Kineto CPU processes merged into the host plane /host:CPU (their threads kept apart; "
                              "plane stat process_name lists them)"
                            : "Kineto CPU process read as the host plane /host:CPU (plane stat process_name keeps "
                              "its name)",
                        example + " -> /host:CPU", cpu.size());
    uint64_t dims = 0;
    for (Plane& p : host.planes)
      if (&p != &dst && schema::IsGpuPlane(host.PlaneName(p))) dims += LaunchDimsToKernels(host, dst, p);
    diag.Add(diag_kind::kJsonKinetoLaunchDims, "", dims);
    host_phase.Stop();
    PhaseTimer ops_phase("conventions: framework ops");
    // After the planes are named and correlation_id is read on both sides.
    AddKinetoOpDiagnostics(MarkKinetoFrameworkOps(host, &dst), diag);
    // Remove the merged planes, keeping the others in order.
    std::vector<Plane> kept;
    for (size_t p = 0; p < host.planes.size(); ++p)
      if (p == target || std::find(cpu.begin(), cpu.end(), p) == cpu.end()) kept.push_back(std::move(host.planes[p]));
    host.planes = std::move(kept);
  } else {
    // A GPU-only trace: its device events are named by their GPU
    // annotations or themselves.
    AddKinetoOpDiagnostics(MarkKinetoFrameworkOps(host, nullptr), diag);
  }
  host.framework = Framework::kPyTorch;
  diag.Add(diag_kind::kJsonKinetoCorrelation, "", correlated);
}

}  // namespace

void ApplyChromeTraceConventions(Host& host, Diagnostics& diagnostics,
                                 const std::optional<DeviceProperties>& machine_model) {
  // TensorFlow 1 timelines name processes after TF devices and views of
  // them, and have conventions of their own.
  if (IsTf1Timeline(host)) {
    ApplyTf1TimelineConventions(host, diagnostics);
    return;
  }
  // PyTorch's export before Kineto: made Kineto's shape, then read as such.
  if (IsLegacyAutogradTrace(host)) ApplyLegacyAutogradConventions(host, diagnostics);
  // Object events of cat "Tensor" outside a TF1 timeline: not read.
  diagnostics.Add(diag_kind::kJsonObjectEvents, "", DropTensorObjectLines(host));
  uint64_t long_names = 0, ints = 0, levels = 0, zero_lengths = 0;
  for (Plane& plane : host.planes) {
    zero_lengths += ZeroLengthFromFloor(host, plane);
    long_names += NameByLongName(host, plane);
    ints += IntegersFromStrings(host, plane);
    levels += LevelZeroFromAnnotation(host, plane);
  }
  diagnostics.Add(diag_kind::kJsonTfLongName, "", long_names);
  diagnostics.Add(diag_kind::kJsonTfStringInts, "", ints);
  diagnostics.Add(diag_kind::kJsonTfLevel0FromAnnotation, "", levels);
  diagnostics.Add(diag_kind::kJsonTfZeroLength, "", zero_lengths);
  ApplyKinetoConventions(host, diagnostics, machine_model);
  // Neither TensorFlow's process names nor Kineto's categories (nor a TF1
  // timeline, above): some other tool's trace, whose events every analysis
  // reads as nameless host work. Said once, so that an empty table does not
  // read as a clean run.
  if (host.framework != Framework::kPyTorch) {
    bool tensorflow = false;
    uint64_t events = 0;
    for (const Plane& p : host.planes) {
      tensorflow = tensorflow || IsTensorFlowProcessName(host.PlaneName(p));
      events += p.EventCount();
    }
    if (!tensorflow && events > 0) diagnostics.Add(diag_kind::kJsonUnknownProducer, "", 1);
  }
}

}  // namespace tfprof
