#include "lib/read/chrome_trace_tf1_timeline.h"

#include <algorithm>
#include <climits>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "lib/model/diagnostic_kinds.h"
#include "lib/model/tf1_timeline.h"
#include "lib/model/xplane_schema.h"
#include "lib/read/chrome_trace_tf1_memory.h"
#include "lib/read/event_copy.h"
#include "lib/read/stat_edit.h"
#include "lib/util/parse_number.h"

namespace tfprof {
namespace {

// Line ids of a device read from "stream:all" / "memcpy" (no per-stream
// process): above any CUDA stream id.
constexpr int64_t kStreamAllLineId = int64_t{1} << 40;
constexpr int64_t kMemcpyLineId = kStreamAllLineId + 1;

enum class Source { kExecutor, kStream, kStreamAll, kMemcpy };

// A process of the timeline, parsed from its name.
struct Tf1Process {
  bool compute = false;  // "... Compute"; else "... Tensors".
  Source source = Source::kExecutor;
  std::string_view device;  // Without the " Compute" and "/stream:..." or "/memcpy" parts.
  int64_t stream = -1;      // For kStream: the stream number (-1: not a number).
};

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// A TensorFlow device name as StepStats writes it: "/job:...", "/device:...",
// or the old short forms "/gpu:0", "/cpu:0".
bool IsTfDevice(std::string_view d) {
  return !d.empty() && d[0] == '/' &&
         (d.find("/job:") != d.npos || d.find("/device:") != d.npos || d.substr(0, 5) == "/gpu:" ||
          d.substr(0, 5) == "/cpu:");
}

std::optional<Tf1Process> ParseProcess(std::string_view name) {
  Tf1Process p;
  if (EndsWith(name, " Compute")) p.compute = true;
  else if (!EndsWith(name, " Tensors")) return std::nullopt;
  std::string_view device = name.substr(0, name.size() - 8);
  if (!IsTfDevice(device)) return std::nullopt;
  if (size_t s = device.find("/stream:"); s != device.npos) {
    std::string_view stream = device.substr(s + 8);
    p.device = device.substr(0, s);
    p.source = stream == "all" ? Source::kStreamAll : Source::kStream;
    if (p.source == Source::kStream && (!ParseWhole(stream, &p.stream) || p.stream < 0)) p.stream = -1;
  } else if (EndsWith(device, "/memcpy")) {
    p.device = device.substr(0, device.size() - 7);
    p.source = Source::kMemcpy;
  } else {
    p.device = device;
  }
  return p;
}

// The ordinal of a GPU tracer device ("/device:GPU:3", "/gpu:3" -> 3), or
// nullopt when it is not a GPU.
std::optional<int64_t> GpuOrdinal(std::string_view device) {
  std::string_view last = device.substr(device.rfind('/') + 1);
  size_t colon = last.rfind(':');
  if (colon == last.npos) return std::nullopt;
  std::string kind(last.substr(0, colon));
  for (char& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (kind != "gpu" && kind != "device:gpu") return std::nullopt;
  int64_t n;
  if (!ParseWhole(last.substr(colon + 1), &n) || n < 0) return std::nullopt;
  return n;
}

Line& LineWithId(Plane& plane, int64_t id, std::string_view name, Host& host) {
  for (Line& l : plane.lines)
    if (l.id == id) return l;
  Line& l = plane.lines.emplace_back();
  l.id = id;
  l.name = host.strings.Intern(name);
  return l;
}

void AddProcessNames(Host& host, Plane& plane, const std::string& names) {
  plane.plane_stats.push_back(Stat::String(StatKeyFor(host, plane, kTf1TimelinePlaneStat), host.strings.Intern(names)));
}

std::string Join(const Host& host, const std::vector<size_t>& planes) {
  std::string out;
  for (size_t p : planes) out += (out.empty() ? "" : ", ") + std::string(host.PlaneName(host.planes[p]));
  return out;
}

// The stream processes of one GPU tracer device.
struct Device {
  std::string_view name;
  std::optional<int64_t> ordinal;
  std::vector<size_t> streams, all, memcpy;
};

// A copy seen in the device's "memcpy" process, to find it on its stream.
using CopyKey = std::tuple<int64_t, int64_t, StringId, StringId>;  // start, duration, event name, `name` arg

struct Counts {
  uint64_t mapped = 0, duplicates = 0, op_copies = 0;
};

CopyKey KeyOf(const Plane& plane, const Line& line, size_t i, std::optional<StatKey> name_key) {
  const Event& e = line.events[i];
  auto n = FindStatIn(line.EventStats(i), name_key);
  return {e.start_ps, e.duration_ps, plane.event_metadata[e.metadata].name,
          n && n->type() == StatType::kString ? n->AsString() : StringPool::kEmpty};
}

Plane BuildDevicePlane(Host& host, const Device& device, int64_t ordinal, Counts& counts) {
  Plane dev;
  dev.name = host.strings.Intern(std::string(schema::kGpuPlanePrefix) + std::to_string(ordinal));
  const bool per_stream = !device.streams.empty();
  std::vector<size_t> sources = per_stream ? device.streams : device.all;
  if (!per_stream) sources.insert(sources.end(), device.memcpy.begin(), device.memcpy.end());
  dev.id = host.planes[sources.front()].id;
  // With per-stream processes, "memcpy" only says which stream events are
  // copies (its events are also on their stream), and "stream:all" repeats
  // the kernels.
  absl::flat_hash_map<CopyKey, uint32_t> copies;
  if (per_stream) {
    for (size_t p : device.memcpy) {
      const Plane& plane = host.planes[p];
      const auto name_key = plane.FindStatKey(host.strings, "name");
      for (const Line& l : plane.lines)
        for (size_t i = 0; i < l.events.size(); ++i) ++copies[KeyOf(plane, l, i, name_key)];
    }
    for (size_t p : device.all) counts.duplicates += host.planes[p].EventCount();
    for (size_t p : device.memcpy) counts.duplicates += host.planes[p].EventCount();
  }
  const StringId memcpy_name = host.strings.Intern("MEMCPY");
  for (size_t p : sources) {
    const Plane& plane = host.planes[p];
    const std::optional<Tf1Process> proc = ParseProcess(host.PlaneName(plane));
    const auto name_key = plane.FindStatKey(host.strings, "name"), op_key = plane.FindStatKey(host.strings, "op"),
               kernel_key = plane.FindStatKey(host.strings, "kernel");
    EventCopier copy(host, plane, host, dev);
    copy.RenameStat("name", "tf_op");
    copy.RenameStat("op", "tf_op_type");
    int64_t id = proc->source == Source::kMemcpy ? kMemcpyLineId : kStreamAllLineId;
    std::string line_name = proc->source == Source::kMemcpy ? "memcpy" : "stream:all";
    if (proc->source == Source::kStream) {
      id = proc->stream >= 0 ? proc->stream : kStreamAllLineId + 2 + static_cast<int64_t>(p);
      line_name = proc->stream >= 0 ? "Stream #" + std::to_string(proc->stream) : std::string(host.PlaneName(plane));
    }
    Line& out = LineWithId(dev, id, line_name, host);
    for (const Line& l : plane.lines) {
      if (IsTensorObjectLine(host.Str(l.name))) continue;  // Not the stream's: dropped with the plane, counted.
      for (size_t i = 0; i < l.events.size(); ++i) {
        auto stats = l.EventStats(i);
        bool is_copy = proc->source == Source::kMemcpy;
        if (!is_copy && per_stream) {
          auto it = copies.find(KeyOf(plane, l, i, name_key));
          if (it != copies.end() && it->second > 0) {
            --it->second;
            is_copy = true;
          }
        }
        const StringId original = plane.event_metadata[l.events[i].metadata].name;
        StringId name = StringPool::kEmpty, display = StringPool::kEmpty;
        if (is_copy) {
          auto op = FindStatIn(stats, op_key);
          if (!(op && schema::StartsWith(host.Str(op->AsString()), "MEMCPY"))) {
            name = memcpy_name;
            display = original;
            ++counts.op_copies;
          }
        } else if (auto k = FindStatIn(stats, kernel_key); k && !host.Str(k->AsString()).empty()) {
          name = k->AsString();
          display = original;
        }
        copy.Copy(l, i, out, 0, name, display);
        ++counts.mapped;
      }
    }
  }
  std::sort(dev.lines.begin(), dev.lines.end(), [](const Line& a, const Line& b) { return a.id < b.id; });
  for (Line& l : dev.lines) l.SortEvents();
  SetLineSpans(host, dev, /*shared_start=*/true);
  std::vector<size_t> all_sources = device.streams;
  all_sources.insert(all_sources.end(), device.all.begin(), device.all.end());
  all_sources.insert(all_sources.end(), device.memcpy.begin(), device.memcpy.end());
  AddProcessNames(host, dev, Join(host, all_sources));
  return dev;
}

// The session.run step: one event on a derived line of the host plane, from
// the first to the last event of the planes built.
void AddSessionRun(Host& host, Plane& cpu, const std::vector<std::pair<int64_t, Plane>>& devices) {
  int64_t first = INT64_MAX, last = INT64_MIN;
  auto extend = [&](const Plane& p) {
    for (const Line& l : p.lines)
      for (const Event& e : l.events) {
        first = std::min(first, e.start_ps);
        last = std::max(last, e.end_ps());
      }
  };
  extend(cpu);
  for (const auto& [ordinal, p] : devices) extend(p);
  if (first > last) return;
  EventMetadata m;
  m.name = host.strings.Intern(kTf1SessionRunName);
  cpu.event_metadata.push_back(m);
  Line& steps = cpu.lines.emplace_back();
  steps.id = kTf1SessionRunLineId;
  steps.name = host.strings.Intern("TF1 session.run (the timeline)");
  const std::string& path = host.source_path;
  steps.stats.push_back(Stat::String(StatKeyFor(host, cpu, kTf1TimelineFileStat),
                                     host.strings.Intern(path.substr(path.find_last_of('/') + 1))));
  steps.events.push_back(Event{first, last - first, static_cast<EventMetadataId>(cpu.event_metadata.size() - 1),
                               static_cast<uint32_t>(steps.stats.size())});
}

}  // namespace

bool IsTensorObjectLine(std::string_view line_name) {
  return line_name == kTensorCreatedLine || line_name == kTensorSnapshotLine || line_name == kTensorDeletedLine;
}

uint64_t DropTensorObjectLines(Host& host) {
  uint64_t dropped = 0;
  for (Plane& plane : host.planes) {
    auto kept = std::remove_if(plane.lines.begin(), plane.lines.end(), [&](const Line& l) {
      if (!IsTensorObjectLine(host.Str(l.name))) return false;
      dropped += l.events.size();
      return true;
    });
    plane.lines.erase(kept, plane.lines.end());
  }
  return dropped;
}

bool IsTf1Timeline(const Host& host) {
  for (const Plane& p : host.planes)
    if (auto proc = ParseProcess(host.PlaneName(p)); proc && proc->compute) return true;
  return false;
}

void ApplyTf1TimelineConventions(Host& host, Diagnostics& diagnostics) {
  std::vector<std::optional<Tf1Process>> procs;
  for (const Plane& p : host.planes) procs.push_back(ParseProcess(host.PlaneName(p)));

  Counts counts;
  // The host plane: every executor device's ops, one line per lane.
  Plane cpu;
  cpu.name = host.strings.Intern(schema::kHostThreadsPlane);
  std::vector<size_t> executors;
  int64_t next_line_id = 1;
  for (size_t p = 0; p < host.planes.size(); ++p) {
    if (!procs[p] || !procs[p]->compute || procs[p]->source != Source::kExecutor) continue;
    if (executors.empty()) cpu.id = host.planes[p].id;
    executors.push_back(p);
    const Plane& plane = host.planes[p];
    EventCopier copy(host, plane, host, cpu);
    copy.RenameStat("name", "tf_op");
    copy.RenameStat("op", "tf_op_type");
    for (const Line& l : plane.lines) {
      if (IsTensorObjectLine(host.Str(l.name))) continue;  // Not the executor's: dropped with the plane, counted.
      Line out;
      out.id = next_line_id++;
      // "<device> Compute/<lane>": the lane is the tid TF1 gave it.
      out.name = host.strings.Intern(std::string(host.PlaneName(plane)) + "/" + std::to_string(l.id));
      for (size_t i = 0; i < l.events.size(); ++i) copy.Copy(l, i, out);
      counts.mapped += out.events.size();
      out.SortEvents();
      cpu.lines.push_back(std::move(out));
    }
  }
  AddProcessNames(host, cpu, Join(host, executors));

  // The GPU tracer's devices, in order of first appearance.
  std::vector<Device> devices;
  for (size_t p = 0; p < host.planes.size(); ++p) {
    if (!procs[p] || !procs[p]->compute || procs[p]->source == Source::kExecutor) continue;
    std::optional<int64_t> ordinal = GpuOrdinal(procs[p]->device);
    if (!ordinal) continue;
    auto it = std::find_if(devices.begin(), devices.end(), [&](const Device& d) { return d.name == procs[p]->device; });
    if (it == devices.end()) it = devices.insert(devices.end(), Device{procs[p]->device, ordinal, {}, {}, {}});
    (procs[p]->source == Source::kStream      ? it->streams
     : procs[p]->source == Source::kStreamAll ? it->all
                                              : it->memcpy)
        .push_back(p);
  }
  std::vector<std::pair<int64_t, Plane>> built;  // (ordinal, plane)
  std::vector<size_t> used_planes = executors;
  absl::flat_hash_set<int64_t> taken;
  std::string example;
  for (const Device& d : devices) {
    if (d.streams.empty() && d.all.empty() && d.memcpy.empty()) continue;
    int64_t n = *d.ordinal;
    while (taken.contains(n)) ++n;
    taken.insert(n);
    built.emplace_back(n, BuildDevicePlane(host, d, n, counts));
    if (example.empty()) example = std::string(d.name) + " -> " + std::string(host.PlaneName(built.back().second));
    for (const auto* v : {&d.streams, &d.all, &d.memcpy}) used_planes.insert(used_planes.end(), v->begin(), v->end());
  }
  std::sort(built.begin(), built.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<size_t> tensor_planes;
  for (size_t p = 0; p < host.planes.size(); ++p)
    if (procs[p] && !procs[p]->compute) tensor_planes.push_back(p);
  const Tf1TensorEvents lifetimes = AddTf1TensorLifetimes(host, tensor_planes, cpu);
  AddSessionRun(host, cpu, built);
  SetLineSpans(host, cpu, /*shared_start=*/false);

  // The new planes first, then what is not TF1's (Allocators, ...); the
  // Tensors processes and the processes read go.
  std::vector<Plane> planes;
  planes.push_back(std::move(cpu));
  for (auto& [ordinal, p] : built) planes.push_back(std::move(p));
  uint64_t tensors = 0;
  for (size_t p = 0; p < host.planes.size(); ++p) {
    if (std::find(used_planes.begin(), used_planes.end(), p) != used_planes.end()) continue;
    if (procs[p] && !procs[p]->compute) {
      ++tensors;
      continue;
    }
    planes.push_back(std::move(host.planes[p]));
  }
  // Tensor objects anywhere but a Tensors process are no tensors timeline.py
  // wrote: not read (and those of the processes read, dropped with them).
  uint64_t objects = 0;
  for (size_t p : used_planes)
    for (const Line& l : host.planes[p].lines)
      if (IsTensorObjectLine(host.Str(l.name))) objects += l.events.size();
  host.planes = std::move(planes);
  objects += DropTensorObjectLines(host);

  diagnostics.AddWithMessage(
      diag_kind::kJsonTf1Timeline,
      "TensorFlow 1 timeline: each device's executor ops read as lines of the host plane /host:CPU, the "
      "GPU tracer's streams as device planes /device:GPU:<n> (one line per stream), ops' name and op args "
      "as tf_op and tf_op_type stats, the timeline as one session.run step; its " +
          std::to_string(tensors) + " 'Tensors' processes as allocator events (show_memory=True)",
      example, counts.mapped);
  diagnostics.Add(diag_kind::kJsonTf1TensorLifetimes,
                  lifetimes.replaced + lifetimes.instant == 0
                      ? std::string()
                      : std::to_string(lifetimes.replaced) + " trackers replaced by a later one of their name and " +
                            std::to_string(lifetimes.instant) +
                            " tensors created and deleted in one microsecond left out, as timeline.py counts them",
                  lifetimes.tensors);
  diagnostics.Add(diag_kind::kJsonObjectEvents, "", objects);
  diagnostics.Add(diag_kind::kJsonTf1IncompleteTensors, lifetimes.example, lifetimes.incomplete);
  diagnostics.Add(diag_kind::kJsonTf1DuplicateEvents, "", counts.duplicates);
  diagnostics.Add(diag_kind::kJsonTf1OpCopies, "", counts.op_copies);
}

}  // namespace tfprof
