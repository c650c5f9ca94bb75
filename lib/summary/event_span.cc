#include "lib/summary/event_span.h"

#include <algorithm>
#include <array>
#include <limits>
#include <vector>

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

// Sorts `keys` (and leaves them in `keys`), using `buffer` as scratch: a
// natural merge sort, which merges the ascending runs already there. A
// step's spans come line by line in time order, so its boundaries hold a
// few dozen long runs (about 24 for some 900 boundaries on a T4 capture):
// merging them costs n log(runs) instead of a sort's n log(n).
void SortRuns(std::vector<uint64_t>& keys, std::vector<uint64_t>& buffer) {
  std::vector<size_t> bounds{0};  // Where each run begins, then the end.
  for (size_t i = 1; i < keys.size(); ++i)
    if (keys[i] < keys[i - 1]) bounds.push_back(i);
  bounds.push_back(keys.size());
  if (bounds.size() > keys.size() / 4 + 2) {  // Hardly any order: a plain sort is faster.
    std::sort(keys.begin(), keys.end());
    return;
  }
  buffer.resize(keys.size());
  std::vector<uint64_t>*from = &keys, *to = &buffer;
  while (bounds.size() > 2) {
    std::vector<size_t> merged{0};
    for (size_t r = 0; r + 1 < bounds.size(); r += 2) {
      const size_t a = bounds[r], m = bounds[r + 1], e = r + 2 < bounds.size() ? bounds[r + 2] : m;
      std::merge(from->begin() + static_cast<ptrdiff_t>(a), from->begin() + static_cast<ptrdiff_t>(m),
                 from->begin() + static_cast<ptrdiff_t>(m), from->begin() + static_cast<ptrdiff_t>(e),
                 to->begin() + static_cast<ptrdiff_t>(a));
      merged.push_back(e);
    }
    bounds = std::move(merged);
    std::swap(from, to);
  }
  if (from != &keys) keys.swap(buffer);
}

// Cuts the time the boundaries cover into pieces, each owned by the
// highest type open there; `next(i)` is the i-th boundary in time order.
template <typename Next>
std::vector<TypedSpan> Sweep(size_t n, Next next) {
  std::vector<TypedSpan> out;
  // How many spans of each type are open, and a bit per type with any open:
  // the highest set bit is the type that owns the time until the next
  // boundary.
  std::array<int, kEventTypes> active{};
  uint32_t open_types = 0;
  int64_t last = 0;
  for (size_t i = 0; i < n; ++i) {
    const Boundary x = next(i);
    if (i > 0 && x.time > last && open_types != 0) {
      const auto top = static_cast<EventType>(31 - __builtin_clz(open_types));
      if (!out.empty() && out.back().type == top && out.back().end_ps == last) out.back().end_ps = x.time;
      else out.push_back({top, last, x.time});
    }
    const size_t t = Index(x.type);
    active[t] += x.start ? 1 : -1;
    if (active[t] != 0) open_types |= uint32_t{1} << t;
    else open_types &= ~(uint32_t{1} << t);
    last = x.time;
  }
  return out;
}

}  // namespace

std::vector<TypedSpan> ToNonOverlapped(std::span<const TypedSpan> spans, std::span<const TypedSpan> more_spans) {
  const std::span<const TypedSpan> lists[] = {spans, more_spans};
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
  size_t n = 0;
  for (std::span<const TypedSpan> list : lists) {
    for (const TypedSpan& s : list) {
      if (s.end_ps <= s.begin_ps) continue;
      lo = std::min(lo, s.begin_ps);
      hi = std::max(hi, s.end_ps);
      n += 2;
    }
  }
  if (n == 0) return {};
  // A step's times usually lie within 2^58 ps (80 hours) of each other:
  // then each boundary packs into one 64-bit key (time since the first,
  // start flag, type), in the order the spans come, which sorts far faster
  // than records. Else records are sorted.
  static_assert(kEventTypes <= 32, "five bits of type");
  constexpr int kCodeBits = 6;
  if (static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) >= (uint64_t{1} << (64 - kCodeBits))) {
    std::vector<Boundary> b;
    b.reserve(n);
    for (std::span<const TypedSpan> list : lists) {
      for (const TypedSpan& s : list) {
        if (s.end_ps <= s.begin_ps) continue;
        b.push_back({s.begin_ps, true, s.type});
        b.push_back({s.end_ps, false, s.type});
      }
    }
    std::sort(b.begin(), b.end(), [](const Boundary& x, const Boundary& y) { return x.time < y.time; });
    return Sweep(b.size(), [&](size_t i) { return b[i]; });
  }
  auto key = [&](int64_t time, bool start, EventType type) {
    return ((static_cast<uint64_t>(time) - static_cast<uint64_t>(lo)) << kCodeBits) | (start ? 32u : 0u) |
           static_cast<uint64_t>(type);
  };
  // Each span's start then its end: a line's spans that do not overlap (a
  // GPU stream's; a host thread's once AppendSpans has left out those
  // nested in their like) make one ascending run, where starts and ends
  // apart made two.
  std::vector<uint64_t> keys(n), buffer;
  size_t k = 0;
  for (std::span<const TypedSpan> list : lists)
    for (const TypedSpan& s : list)
      if (s.end_ps > s.begin_ps) {
        keys[k++] = key(s.begin_ps, true, s.type);
        keys[k++] = key(s.end_ps, false, s.type);
      }
  SortRuns(keys, buffer);
  return Sweep(n, [&](size_t i) {
    const uint64_t c = keys[i];
    return Boundary{static_cast<int64_t>(static_cast<uint64_t>(lo) + (c >> kCodeBits)), (c & 32u) != 0,
                    static_cast<EventType>(c & 31u)};
  });
}

EventType ClassifyHostEvent(std::string_view name, bool has_device, bool has_correlation_id) {
  TfOp op = ParseTfOpFullname(name);
  if (op.type.substr(0, 13) == "InfeedEnqueue" || op.category == OpCategory::kMemcpyHToD)
    return EventType::kHostToDevice;
  if (op.category == OpCategory::kMemcpyHToH) return EventType::kHostToHost;
  // torch.compile times each phase of a compilation (tracing, lowering,
  // code generation, Triton's autotuning) in a user annotation named
  // "<phase> (dynamo_timed)": the step's compilation, not host compute.
  if (name.ends_with(" (dynamo_timed)")) return EventType::kHostCompile;
  if (has_device && (has_correlation_id || StartsWithNoCase(name, "ExecutorState::Process")))
    return EventType::kHostPrepare;
  // tf.data's GetNext, and PyTorch's DataLoader.__next__ (the user
  // annotation "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"):
  // the step waiting for its input.
  if (StartsWithNoCase(name, "IteratorGetNext") || name.substr(0, 21) == "enumerate(DataLoader)")
    return EventType::kHostWaitInput;
  return EventType::kHostCompute;
}

EventType ClassifyDeviceEvent(std::string_view name, std::string_view shape, DevicePrecisionRule rule,
                              bool name_is_narrow) {
  TfOp op = ParseTfOpFullname(name);
  if (op.category == OpCategory::kMemcpyHToD) return EventType::kHostToDevice;
  if (op.category == OpCategory::kMemcpyDToH) return EventType::kDeviceToHost;
  if (op.category == OpCategory::kMemcpyDToD) return EventType::kDeviceToDevice;
  if (StartsWithNoCase(name, "nccl")) return EventType::kDeviceCollectives;
  const bool names = rule == DevicePrecisionRule::kTypeNames;
  if (shape.empty()) {
    return name.find("half") != std::string_view::npos || name.find("fp16") != std::string_view::npos ||
                   (names && name_is_narrow)
               ? EventType::kDeviceCompute16
               : EventType::kDeviceCompute32;
  }
  // TensorFlow's DataType names in the shapes: `half`, `bfloat16` (one
  // search per event: a 'b' is rare in shapes, so memchr passes them fast;
  // "float8" would stop at every "float").
  return shape.find("half") != std::string_view::npos || (names && shape.find("bfloat16") != std::string_view::npos)
             ? EventType::kDeviceCompute16
             : EventType::kDeviceCompute32;
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
