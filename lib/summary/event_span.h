// What each moment of a step was spent on: the reference's event types (in
// priority order), how host and device events are classified, and how
// overlapping events are resolved so no time is counted twice.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace tfprof {

// Larger value = higher priority when events overlap.
enum class EventType : uint8_t {
  kUnknown = 0,  // "All others"
  kHostCompute,
  kHostPreprocess,
  kHostPostprocess,
  kHostBatchFormation,
  kHostRuntime,
  kHostCompile,
  kHostToHost,
  kHostToDevice,
  kHostPrepare,  // "Kernel launch"
  kDeviceCollectives,
  kHostWaitInput,  // "Input"
  kDeviceToDevice,
  kDeviceToHost,  // "Output"
  kDeviceCompute32,
  kDeviceCompute16,
  kDeviceWaitDevice,
  kDeviceWaitHost,
  kCount
};
inline constexpr size_t kEventTypes = static_cast<size_t>(EventType::kCount);
std::string_view EventTypeName(EventType t);

struct TypedSpan {
  EventType type;
  int64_t begin_ps, end_ps;
};

// Splits overlapping spans into pieces that don't overlap, each labelled
// with the highest-priority type active there. The spans are those of
// `spans` and `more_spans` together (a step's device and host events, kept
// apart so that neither is copied into the other); their order does not
// matter.
std::vector<TypedSpan> ToNonOverlapped(std::span<const TypedSpan> spans, std::span<const TypedSpan> more_spans = {});

// A host event of a step. `has_device`: the host has a GPU.
EventType ClassifyHostEvent(std::string_view name, bool has_device, bool has_correlation_id);
// How a device event's precision is told (16-bit compute or 32-bit).
enum class DevicePrecisionRule : uint8_t {
  // The reference's: 16-bit when the shapes say `half` or, with no shape,
  // the name says `half` or `fp16`; so bfloat16 work counts as 32-bit
  // (--compat xprof / tf-legacy).
  kReference,
  // Also when the shapes say `bfloat16`, or the name
  // names a 16- or 8-bit type as cuBLAS, cuDNN, CUTLASS, Tensile and
  // composable kernel names do (PrecisionNamedIn: `bf16`, `h884`,
  // `bfloat16_t`, `_BBS_`): the default.
  kTypeNames,
};
// A device event of a step, by its name and `shape` stat (empty if none).
// With `name_is_narrow` (kTypeNames: the name names a type of 16 bits or
// fewer, PrecisionNamedIn, worked out once per name by the caller).
EventType ClassifyDeviceEvent(std::string_view name, std::string_view shape,
                              DevicePrecisionRule rule = DevicePrecisionRule::kReference, bool name_is_narrow = false);

// The overview's categories and how the event types map onto them.
enum class Category : uint8_t {
  kCompilation,
  kInput,
  kOutput,
  kKernelLaunch,
  kHostCompute,
  kDeviceToDevice,
  kDeviceCollectives,
  kDeviceCompute,
  kAllOthers,
  kCount
};
inline constexpr size_t kCategories = static_cast<size_t>(Category::kCount);
std::string_view CategoryName(Category c);  // "Device compute", ...
std::string_view CategoryKey(Category c);   // "device_compute", ...
// Per-step category times from per-type times; types the reference doesn't
// map (host-to-host, pre/post-processing, batch formation, runtime) count
// in none, though they count in the step time.
std::array<uint64_t, kCategories> CategoriesOf(const std::array<uint64_t, kEventTypes>& type_ps);

}  // namespace tfprof
