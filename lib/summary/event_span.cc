#include "lib/summary/event_span.h"

#include <algorithm>

#include "lib/summary/tf_op_name.h"
#include "lib/util/ascii.h"

namespace tfprof {
namespace {

size_t Index(EventType t) { return static_cast<size_t>(t); }

}  // namespace

std::string_view EventTypeName(EventType t) {
  static constexpr std::string_view kNames[] = {"unknown",           "host_compute",         "host_preprocess",
                                                "host_postprocess",  "host_batch_formation", "host_runtime",
                                                "host_compile",      "host_to_host",         "host_to_device",
                                                "host_prepare",      "device_collectives",   "host_wait_input",
                                                "device_to_device",  "device_to_host",       "device_compute_32",
                                                "device_compute_16", "device_wait_device",   "device_wait_host"};
  return Index(t) < kEventTypes ? kNames[Index(t)] : "?";
}

// The sweep below emits a piece only when it moves past an instant, with
// what is open after every boundary at that instant: the order of the
// boundaries at one instant does not matter, only their order in time.
namespace {

struct Boundary {
  int64_t time;
  bool start;
  EventType type;
};

// Sorts boundaries by time. A step's times usually lie within 2^57 ps
// (40 hours) of each other: then each boundary packs into one 64-bit key
// (time since the first, start flag, type), which sorts about twice as fast
// as the records.
void SortByTime(std::vector<Boundary>& b) {
  if (b.empty()) return;
  int64_t lo = b[0].time, hi = b[0].time;
  for (const Boundary& x : b) {
    lo = std::min(lo, x.time);
    hi = std::max(hi, x.time);
  }
  static_assert(kEventTypes <= 32, "five bits of type");
  constexpr int kCodeBits = 6;
  if (static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) >= (uint64_t{1} << (64 - kCodeBits))) {
    std::sort(b.begin(), b.end(), [](const Boundary& x, const Boundary& y) { return x.time < y.time; });
    return;
  }
  std::vector<uint64_t> keys(b.size());
  for (size_t i = 0; i < b.size(); ++i)
    keys[i] = ((static_cast<uint64_t>(b[i].time) - static_cast<uint64_t>(lo)) << kCodeBits) | (b[i].start ? 32u : 0u) |
              static_cast<uint64_t>(b[i].type);
  std::sort(keys.begin(), keys.end());
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = {static_cast<int64_t>(static_cast<uint64_t>(lo) + (keys[i] >> kCodeBits)), (keys[i] & 32u) != 0,
            static_cast<EventType>(keys[i] & 31u)};
}

}  // namespace

std::vector<TypedSpan> ToNonOverlapped(std::span<const TypedSpan> spans, std::span<const TypedSpan> more_spans) {
  std::vector<Boundary> b;
  b.reserve((spans.size() + more_spans.size()) * 2);
  for (std::span<const TypedSpan> list : {spans, more_spans}) {
    for (const TypedSpan& s : list) {
      if (s.end_ps <= s.begin_ps) continue;
      b.push_back({s.begin_ps, true, s.type});
      b.push_back({s.end_ps, false, s.type});
    }
  }
  SortByTime(b);
  std::vector<TypedSpan> out;
  // How many spans of each type are open, and a bit per type with any open:
  // the highest set bit is the type that owns the time until the next
  // boundary.
  std::array<int, kEventTypes> active{};
  uint32_t open_types = 0;
  int64_t last = 0;
  bool any = false;
  for (const Boundary& x : b) {
    if (any && x.time > last && open_types != 0) {
      const auto top = static_cast<EventType>(31 - __builtin_clz(open_types));
      if (!out.empty() && out.back().type == top && out.back().end_ps == last) out.back().end_ps = x.time;
      else out.push_back({top, last, x.time});
    }
    const size_t t = Index(x.type);
    active[t] += x.start ? 1 : -1;
    if (active[t] != 0) open_types |= uint32_t{1} << t;
    else open_types &= ~(uint32_t{1} << t);
    last = x.time;
    any = true;
  }
  return out;
}

EventType ClassifyHostEvent(std::string_view name, bool has_device, bool has_correlation_id) {
  TfOp op = ParseTfOpFullname(name);
  if (op.type.substr(0, 13) == "InfeedEnqueue" || op.category == OpCategory::kMemcpyHToD)
    return EventType::kHostToDevice;
  if (op.category == OpCategory::kMemcpyHToH) return EventType::kHostToHost;
  if (has_device && (has_correlation_id || StartsWithNoCase(name, "ExecutorState::Process")))
    return EventType::kHostPrepare;
  // tf.data's GetNext, and PyTorch's DataLoader.__next__ (the user
  // annotation "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"):
  // the step waiting for its input.
  if (StartsWithNoCase(name, "IteratorGetNext") || name.substr(0, 21) == "enumerate(DataLoader)")
    return EventType::kHostWaitInput;
  return EventType::kHostCompute;
}

EventType ClassifyDeviceEvent(std::string_view name, std::string_view shape) {
  TfOp op = ParseTfOpFullname(name);
  if (op.category == OpCategory::kMemcpyHToD) return EventType::kHostToDevice;
  if (op.category == OpCategory::kMemcpyDToH) return EventType::kDeviceToHost;
  if (op.category == OpCategory::kMemcpyDToD) return EventType::kDeviceToDevice;
  if (StartsWithNoCase(name, "nccl")) return EventType::kDeviceCollectives;
  if (shape.empty()) {
    return name.find("half") != std::string_view::npos || name.find("fp16") != std::string_view::npos
               ? EventType::kDeviceCompute16
               : EventType::kDeviceCompute32;
  }
  return shape.find("half") != std::string_view::npos ? EventType::kDeviceCompute16 : EventType::kDeviceCompute32;
}

std::string_view CategoryName(Category c) {
  static constexpr std::string_view kNames[] = {"Compilation",        "Input",          "Output",
                                                "Kernel launch",      "Host compute",   "Device to device",
                                                "Device collectives", "Device compute", "All others"};
  return kNames[static_cast<size_t>(c)];
}

std::string_view CategoryKey(Category c) {
  static constexpr std::string_view kKeys[] = {"compilation",        "input",          "output",
                                               "kernel_launch",      "host_compute",   "device_to_device",
                                               "device_collectives", "device_compute", "all_others"};
  return kKeys[static_cast<size_t>(c)];
}

std::array<uint64_t, kCategories> CategoriesOf(const std::array<uint64_t, kEventTypes>& t) {
  std::array<uint64_t, kCategories> c{};
  auto at = [&](EventType e) { return t[Index(e)]; };
  c[static_cast<size_t>(Category::kCompilation)] = at(EventType::kHostCompile);
  c[static_cast<size_t>(Category::kInput)] =
      at(EventType::kHostWaitInput) + at(EventType::kHostToDevice) + at(EventType::kDeviceWaitHost);
  c[static_cast<size_t>(Category::kOutput)] = at(EventType::kDeviceToHost);
  c[static_cast<size_t>(Category::kKernelLaunch)] = at(EventType::kHostPrepare);
  c[static_cast<size_t>(Category::kHostCompute)] = at(EventType::kHostCompute);
  c[static_cast<size_t>(Category::kDeviceToDevice)] = at(EventType::kDeviceToDevice) + at(EventType::kDeviceWaitDevice);
  c[static_cast<size_t>(Category::kDeviceCollectives)] = at(EventType::kDeviceCollectives);
  c[static_cast<size_t>(Category::kDeviceCompute)] = at(EventType::kDeviceCompute16) + at(EventType::kDeviceCompute32);
  c[static_cast<size_t>(Category::kAllOthers)] = at(EventType::kUnknown);
  return c;
}

}  // namespace tfprof
