#include "lib/summary/kineto_memory_events_to_profile.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "lib/model/diagnostic_kinds.h"
#include "lib/model/stat_finder.h"
#include "lib/model/xplane_schema.h"
#include "lib/summary/event_grouping.h"
#include "lib/summary/time_span.h"

namespace tfprof {
namespace {

constexpr std::string_view kMemoryEvent = "[memory]";

// c10::DeviceType (c10/core/DeviceType.h) names, by enum value, as
// torch.device prints them.
constexpr std::array<std::string_view, 21> kDeviceTypes = {
    "cpu",   "cuda", "mkldnn", "opengl", "opencl", "ideep", "hip",  "fpga", "maia", "xla",          "vulkan",
    "metal", "xpu",  "mps",    "meta",   "hpu",    "ve",    "lazy", "ipu",  "mtia", "privateuseone"};

// |v|, INT64_MIN saturating (a corrupt trace must not negate it).
int64_t Magnitude(int64_t v) {
  return v >= 0 ? v : v == std::numeric_limits<int64_t>::min() ? std::numeric_limits<int64_t>::max() : -v;
}

// A numeric arg (Kineto writes numbers; a string is not one).
std::optional<int64_t> Number(const std::optional<Stat>& s) {
  if (!s || s->type() == StatType::kString || s->type() == StatType::kBytes) return std::nullopt;
  return s->AsInt();
}

// One `[memory]` event as read, before the device's events are put in order.
struct RawMemoryEvent {
  int64_t time_ps = 0;  // Since time zero (the earliest host thread start).
  int64_t bytes = 0;    // Signed: < 0 is a free.
  uint64_t address = 0;
  std::optional<int64_t> allocated, reserved;
  bool has_address = false;
  StringId op = StringPool::kEmpty;  // In the profile's pool.
  int64_t step = kNoGroup;
  uint64_t order = 0;  // Capture order (thread by thread), for equal times.
};

// The step a `[memory]` event falls in: its group when grouping gave it one,
// else the step marker whose span holds its time (PyTorch's backward pass
// runs on the autograd thread, which no marker nests; the main thread's
// ProfilerStep#N still spans it).
class StepByTime {
 public:
  StepByTime(const Host& host, const EventGroups& groups) {
    for (const StepGroup& g : groups.groups) {
      if (!g.named_root) continue;
      const EventRef& r = *g.named_root;
      if (r.plane >= host.planes.size() || r.line >= host.planes[r.plane].lines.size()) continue;
      const Line& line = host.planes[r.plane].lines[r.line];
      if (r.event >= line.events.size()) continue;
      spans_.push_back({line.events[r.event].start_ps, line.events[r.event].end_ps(), g.id});
    }
    std::sort(spans_.begin(), spans_.end(), [](const Span& a, const Span& b) { return a.begin < b.begin; });
  }
  // The latest-starting marker at or before `t` when it still holds `t`.
  int64_t At(int64_t t) const {
    auto it = std::upper_bound(spans_.begin(), spans_.end(), t, [](int64_t v, const Span& s) { return v < s.begin; });
    if (it == spans_.begin()) return kNoGroup;
    --it;
    return t < it->end ? it->group : kNoGroup;
  }

 private:
  struct Span {
    int64_t begin, end, group;
  };
  std::vector<Span> spans_;
};

// The event's group, or kNoGroup (also when grouping left the plane out).
int64_t GroupOf(const EventGroups& g, size_t plane, size_t line, size_t event) {
  return g.group.Find(plane, line, event);
}

// Events outside any step take the step after the last one seen (0 before
// the first), as in the TensorFlow profile (memory_events_to_profile.cc).
void FillMissingSteps(std::vector<MemorySnapshot>& timeline) {
  int64_t last = kNoGroup;
  for (MemorySnapshot& s : timeline) {
    if (s.step == kNoGroup) s.step = last + 1;
    else last = s.step;
  }
}

// The step a PyTorch profile names: the number `steps` gives it
// (ProfilerStep#12 is step 12), not grouping's id, which counts the
// captured steps from 0. TensorFlow's profile keeps the group id, as the
// reference does. Grouping numbers its groups 0, 1, ... in time order, so
// the id after the last group (the events after the last step) is the step
// after the last one. Only when every step is numbered by its marker's
// name, the numbers rise with the ids and the one after the last is free;
// else the ids stay (two steps of one number, markers without numbers).
class StepNumbers {
 public:
  explicit StepNumbers(const EventGroups& groups) {
    for (size_t i = 0; i < groups.groups.size(); ++i) {
      const StepGroup& g = groups.groups[i];
      if (g.id != static_cast<int64_t>(i) || !g.numbered_by_name || (i > 0 && g.step_number <= number_of_.back()) ||
          g.step_number == std::numeric_limits<int64_t>::max()) {
        number_of_.clear();
        return;
      }
      number_of_.push_back(g.step_number);
    }
  }
  int64_t Of(int64_t id) const {
    if (number_of_.empty() || id < 0) return id;
    if (static_cast<size_t>(id) < number_of_.size()) return number_of_[static_cast<size_t>(id)];
    if (static_cast<size_t>(id) == number_of_.size()) return number_of_.back() + 1;
    return id;
  }

 private:
  std::vector<int64_t> number_of_;  // By group id (0, 1, ...): its step number.
};

// The device's events in time order become its timeline; then the peak,
// the peak reserved, and what was alive at the peak.
AllocatorMemoryProfile ProfileDevice(std::string memory_id, std::vector<RawMemoryEvent>& events,
                                     const StepNumbers& steps, HostMemoryProfile& out, Diagnostics& diag) {
  std::stable_sort(events.begin(), events.end(), [](const RawMemoryEvent& a, const RawMemoryEvent& b) {
    return a.time_ps != b.time_ps ? a.time_ps < b.time_ps : a.order < b.order;
  });
  AllocatorMemoryProfile p;
  p.memory_id = std::move(memory_id);
  PyTorchMemoryDetails& d = p.pytorch;
  for (const RawMemoryEvent& e : events) {
    d.allocated_known = d.allocated_known && e.allocated.has_value();
    d.reserved_known = d.reserved_known && e.reserved.has_value();
    d.addresses_known = d.addresses_known && e.has_address;
  }
  if (!d.allocated_known) diag.Add(diag_kind::kMemoryPytorchRunningTotal, p.memory_id);

  p.timeline.reserve(events.size());
  int64_t allocated = 0;
  size_t peak = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const RawMemoryEvent& e = events[i];
    MemorySnapshot s;
    s.time_ps = e.time_ps;
    s.activity = e.bytes >= 0 ? MemoryActivity::kAllocation : MemoryActivity::kDeallocation;
    s.requested_bytes = s.allocation_bytes = Magnitude(e.bytes);
    s.address = e.address;
    s.op_name = e.op;
    s.step = e.step;
    allocated = d.allocated_known ? *e.allocated : SaturatingAdd(allocated, e.bytes);
    s.heap_bytes = allocated;
    const int64_t reserved = d.reserved_known ? *e.reserved : 0;
    if (d.reserved_known) s.free_bytes = SaturatingSub(reserved, allocated);
    ++(s.activity == MemoryActivity::kAllocation ? p.allocations : p.deallocations);
    // The first event in time that reaches the most: when the peak began.
    if (i == 0 || allocated > p.peak_bytes) {
      p.peak_bytes = allocated;
      peak = i;
    }
    if (d.reserved_known && (i == 0 || reserved > d.peak_reserved_bytes)) {
      d.peak_reserved_bytes = reserved;
      d.peak_reserved_time_ps = e.time_ps;
    }
    p.timeline.push_back(s);
  }
  FillMissingSteps(p.timeline);
  for (MemorySnapshot& s : p.timeline) s.step = steps.Of(s.step);

  // Allocations matched with their frees by address. A free takes its
  // allocation's op (as TensorFlow's frees do); what is live just after the
  // peak event is the breakdown.
  absl::flat_hash_map<uint64_t, size_t> live;  // address -> timeline index
  std::map<StringId, OpMemoryAtPeak> by_op;
  if (!d.addresses_known)
    for (MemorySnapshot& s : p.timeline)
      if (s.activity == MemoryActivity::kDeallocation) s.op_name = StringPool::kEmpty;
  for (size_t i = 0; d.addresses_known && i < p.timeline.size(); ++i) {
    MemorySnapshot& s = p.timeline[i];
    if (s.activity == MemoryActivity::kAllocation) {
      auto [it, fresh] = live.try_emplace(s.address, i);
      if (!fresh) {
        // Its free is missing: the newer block is the one at the address.
        diag.AddWithMessage(
            diag_kind::kMemoryAddressReusedWithoutFree,
            "allocations at an address whose earlier allocation was never freed in the capture; for PyTorch "
            "traces the later allocation replaces the earlier one",
            fmt::format("{} address {}", p.memory_id, s.address));
        it->second = i;
      }
    } else if (auto it = live.find(s.address); it != live.end()) {
      s.op_name = p.timeline[it->second].op_name;
      live.erase(it);
    } else {
      s.op_name = StringPool::kEmpty;  // Allocated before the trace: its op is unknown.
      ++d.unmatched_frees;
    }
    if (i != peak) continue;
    for (const auto& [address, index] : live) {
      const MemorySnapshot& a = p.timeline[index];
      OpMemoryAtPeak& row = by_op[a.op_name];
      row.op_name = a.op_name;
      row.bytes = SaturatingAdd(row.bytes, a.allocation_bytes);
      ++row.allocations;
      row.largest_bytes = std::max(row.largest_bytes, a.allocation_bytes);
      d.live_at_peak_bytes = SaturatingAdd(d.live_at_peak_bytes, a.allocation_bytes);
      ++d.live_at_peak_allocations;
    }
  }
  if (d.unmatched_frees)
    diag.AddWithMessage(
        diag_kind::kMemoryUnmatchedDeallocation,
        "frees of memory allocated before the profile window (or whose allocation event is missing); they keep "
        "their own sizes but have no op",
        p.memory_id, static_cast<uint64_t>(d.unmatched_frees));
  for (auto& [op, row] : by_op) d.ops_at_peak.push_back(row);
  std::sort(d.ops_at_peak.begin(), d.ops_at_peak.end(), [&](const OpMemoryAtPeak& a, const OpMemoryAtPeak& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : out.Str(a.op_name) < out.Str(b.op_name);
  });
  if (d.allocated_known && d.addresses_known)
    d.before_trace_bytes = std::max<int64_t>(0, SaturatingSub(p.peak_bytes, d.live_at_peak_bytes));

  if (!p.timeline.empty()) {
    p.peak = p.timeline[peak];
    p.peak_time_ps = p.peak.time_ps;
    p.peak_step = p.peak.step;
    p.capacity_bytes = d.reserved_known ? SaturatingAdd(p.peak.heap_bytes, p.peak.free_bytes) : 0;
  }
  return p;
}

}  // namespace

std::string PyTorchDeviceName(int64_t device_type, int64_t device_id) {
  if (device_type == 0) return "cpu";
  if (device_type > 0 && device_type < static_cast<int64_t>(kDeviceTypes.size()))
    return fmt::format("{}:{}", kDeviceTypes[device_type], device_id);
  return fmt::format("device_type_{}:{}", device_type, device_id);
}

HostMemoryProfile BuildKinetoMemoryProfile(const Host& host, Diagnostics& diag, const EventGroupsSource& source) {
  HostMemoryProfile out;
  out.host = host.name;
  out.source = MemorySource::kPyTorch;
  const Plane* plane = host.FindPlane(schema::kHostThreadsPlane);
  std::vector<bool> is_memory(plane ? plane->event_metadata.size() : 0);
  bool any = false;
  for (size_t m = 0; m < is_memory.size(); ++m) {
    is_memory[m] = host.Str(plane->event_metadata[m].name) == kMemoryEvent;
    any = any || is_memory[m];
  }
  size_t events = 0;
  for (const Plane& p : host.planes) events += p.EventCount();
  if (events == 0) {
    out.no_profile_reason =
        "the file holds no trace events (JSON such as torch.profiler's export_memory_timeline output is not a trace: "
        "the memory profile reads the trace itself, recorded with profile_memory=True)";
    return out;
  }
  if (!any) {
    out.no_profile_reason =
        "this Chrome trace has no PyTorch [memory] events: record with torch.profiler.profile(profile_memory=True) "
        "for a PyTorch memory profile; TensorFlow's trace JSON leaves out its allocator events, so a TensorFlow "
        "memory profile needs the run's .xplane.pb";
    return out;
  }
  const size_t plane_index = static_cast<size_t>(plane - host.planes.data());

  const EventGroups own = source ? EventGroups{} : GroupEvents(host, diag, {}, GroupingRun{.eager = false});
  const EventGroups& groups = source ? source() : own;
  if (groups.groups.empty()) out.no_steps_reason = groups.no_groups_reason;
  const StepNumbers step_numbers(groups);
  for (const StepGroup& g : groups.groups) out.step_names[step_numbers.Of(g.id)] = g.name;
  const StepByTime step_by_time(host, groups);

  const StatFinder bytes(host, *plane, "Bytes"), addr(host, *plane, "Addr"),
      total_allocated(host, *plane, "Total Allocated"), total_reserved(host, *plane, "Total Reserved"),
      device_type(host, *plane, "Device Type"), device_id(host, *plane, "Device Id"), tf_op(host, *plane, "tf_op"),
      tf_op_type(host, *plane, "tf_op_type");

  // Time zero: the earliest start of a host thread, as for TensorFlow.
  int64_t earliest_ps = std::numeric_limits<int64_t>::max();
  for (const Line& line : plane->lines)
    if (!line.events.empty()) earliest_ps = std::min(earliest_ps, (line.timestamp_ns - host.time_origin_ns) * 1000);
  if (earliest_ps != std::numeric_limits<int64_t>::max()) out.time_zero_ps = earliest_ps;

  std::map<std::string, std::vector<RawMemoryEvent>> by_device;  // Byte order, as TensorFlow's memory ids.
  absl::flat_hash_map<StringId, StringId> interned;
  auto intern = [&](StringId id) {
    auto [it, fresh] = interned.try_emplace(id, StringPool::kEmpty);
    if (fresh) it->second = out.strings.Intern(host.Str(id));
    return it->second;
  };
  struct OpenOp {
    int64_t end_ps;
    StringId name;
  };
  std::vector<OpenOp> open;
  uint64_t order = 0, missing = 0;
  for (size_t l = 0; l < plane->lines.size(); ++l) {
    const Line& line = plane->lines[l];
    if (schema::IsDerivedLineId(line.id)) continue;
    open.clear();
    // Events are sorted by start, longer first: an allocation belongs to the
    // innermost op open on its thread (start <= t < end), as a kernel
    // belongs to the op around its launch (chrome_trace_kineto_ops.h).
    for (size_t i = 0; i < line.events.size(); ++i) {
      const Event& e = line.events[i];
      while (!open.empty() && open.back().end_ps <= e.start_ps) open.pop_back();
      auto stats = line.EventStats(i);
      if (!is_memory[e.metadata]) {
        auto type = tf_op_type.In(stats);
        auto name = tf_op.In(stats);
        if (type && name && name->type() == StatType::kString && !host.Str(name->AsString()).empty())
          open.push_back({e.end_ps(), name->AsString()});
        continue;
      }
      RawMemoryEvent m;
      auto size = Number(bytes.In(stats));
      auto type = Number(device_type.In(stats));
      if (!size || !type) {
        ++missing;
        continue;
      }
      m.bytes = *size;
      if (auto a = addr.In(stats); a && a->is_integer()) m.address = a->AsUint(), m.has_address = true;
      m.allocated = Number(total_allocated.In(stats));
      m.reserved = Number(total_reserved.In(stats));
      m.time_ps = SaturatingSub(e.start_ps, earliest_ps);
      m.op = open.empty() ? StringPool::kEmpty : intern(open.back().name);
      m.step = GroupOf(groups, plane_index, l, i);
      if (m.step == kNoGroup) m.step = step_by_time.At(e.start_ps);
      m.order = order++;
      by_device[PyTorchDeviceName(*type, Number(device_id.In(stats)).value_or(-1))].push_back(m);
    }
  }
  if (missing)
    diag.AddWithMessage(diag_kind::kMemoryMissingStats,
                        "PyTorch [memory] events without a numeric Bytes or Device Type arg (left out of the profile)",
                        "", missing);
  for (auto& [id, events] : by_device) out.allocators.push_back(ProfileDevice(id, events, step_numbers, out, diag));
  if (out.allocators.empty()) out.no_profile_reason = "the trace's PyTorch [memory] events lack Bytes or Device Type";
  return out;
}

}  // namespace tfprof
