#include "lib/summary/run_summary_proto.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "fmt/format.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "lib/model/errors.h"

namespace tfprof {
namespace {

[[noreturn]] void Corrupt(const std::string& problem) { throw InputError("", "run summary: " + problem); }

// A proto3 enum field holds any int32 read from the wire (open enums), so
// every enum is checked against the values the model knows.
template <class Enum>
Enum CheckedEnum(int value, Enum last, const char* what) {
  if (value < 0 || value > static_cast<int>(last)) Corrupt(fmt::format("unknown {} {}", what, value));
  return static_cast<Enum>(value);
}

// The proto's enums are numbered as the model's; a change to either trips
// these instead of silently mislabelling stored summaries.
static_assert(static_cast<int>(Framework::kPyTorch) == summary::FRAMEWORK_PYTORCH);
static_assert(static_cast<int>(ComputePrecision::k32Bit) == summary::PRECISION_32_BIT);
static_assert(static_cast<int>(ComputePrecision::k8Bit) == summary::PRECISION_8_BIT);
static_assert(static_cast<int>(MemoryActivity::kDeallocation) == summary::MEMORY_DEALLOCATION);
static_assert(static_cast<int>(MemorySource::kPyTorch) == summary::MEMORY_SOURCE_PYTORCH);
static_assert(static_cast<int>(MemorySource::kTf1Timeline) == summary::MEMORY_SOURCE_TF1_TIMELINE);
static_assert(static_cast<int>(TfDataPipelineKind::kDevice) == summary::PIPELINE_DEVICE);
static_assert(static_cast<int>(Severity::kError) == summary::SEVERITY_ERROR);
// StepRecord.type_ps is indexed by EventType: a new type appended at the end
// is an additive change, anything else changes the meaning of stored files
// and bumps the schema version (docs/run-summary-format.md).
static_assert(kEventTypes == 18 && static_cast<int>(EventType::kDeviceWaitHost) == 17);

void ToProto(const DeviceProperties& in, summary::DeviceProperties* out) {
  out->set_name(in.name);
  out->set_vendor(in.vendor);
  out->set_compute_cap_major(in.compute_cap_major);
  out->set_compute_cap_minor(in.compute_cap_minor);
  out->set_core_count(in.core_count);
  out->set_memory_bytes(in.memory_bytes);
  out->set_memory_bandwidth(in.memory_bandwidth);
  out->set_clock_rate_khz(in.clock_rate_khz);
}

DeviceProperties FromProto(const summary::DeviceProperties& in) {
  DeviceProperties out;
  out.name = in.name();
  out.vendor = in.vendor();
  out.compute_cap_major = in.compute_cap_major();
  out.compute_cap_minor = in.compute_cap_minor();
  out.core_count = in.core_count();
  out.memory_bytes = in.memory_bytes();
  out.memory_bandwidth = in.memory_bandwidth();
  out.clock_rate_khz = in.clock_rate_khz();
  return out;
}

void ToProto(const OpMetrics& in, summary::OpMetrics* out) {
  out->set_module_id(in.module_id);
  out->set_name(in.name);
  out->set_category(in.category);
  out->set_provenance(in.provenance);
  out->set_provenance_is_name(in.provenance_is_name);
  out->set_is_eager(in.is_eager);
  out->set_occurrences(in.occurrences);
  out->set_time_ps(in.time_ps);
  out->set_self_time_ps(in.self_time_ps);
  out->set_num_cores(in.num_cores);
  out->set_device_launching_occurrences(in.device_launching_occurrences);
}

OpMetrics FromProto(const summary::OpMetrics& in) {
  OpMetrics out;
  out.module_id = in.module_id();
  out.name = in.name();
  out.category = in.category();
  out.provenance = in.provenance();
  out.provenance_is_name = in.provenance_is_name();
  out.is_eager = in.is_eager();
  out.occurrences = in.occurrences();
  out.time_ps = in.time_ps();
  out.self_time_ps = in.self_time_ps();
  out.num_cores = in.num_cores();
  out.device_launching_occurrences = in.device_launching_occurrences();
  return out;
}

std::array<uint32_t, 3> Dim3FromProto(const google::protobuf::RepeatedField<uint32_t>& in, const char* what) {
  if (in.size() != 3) Corrupt(fmt::format("kernel {} has {} dimensions, not 3", what, in.size()));
  return {in[0], in[1], in[2]};
}

void ToProto(const KernelReport& in, summary::KernelReport* out) {
  out->set_name(in.name);
  out->set_registers_per_thread(in.params.registers_per_thread);
  out->set_static_shmem_bytes(in.params.static_shmem_bytes);
  out->set_dynamic_shmem_bytes(in.params.dynamic_shmem_bytes);
  for (uint32_t v : in.params.block) out->add_block(v);
  for (uint32_t v : in.params.grid) out->add_grid(v);
  out->set_occupancy_pct(in.params.occupancy_pct);
  out->set_occupancy_unknown(in.params.occupancy_unknown);
  out->set_uses_tensor_core(in.uses_tensor_core);
  out->set_op_tensor_core_eligible(in.op_tensor_core_eligible);
  out->set_op_name(in.op_name);
  out->set_precision(static_cast<summary::ComputePrecision>(in.precision));
  out->set_occurrences(in.occurrences);
  out->set_total_ns(in.total_ns);
  out->set_min_ns(in.min_ns);
  out->set_max_ns(in.max_ns);
}

KernelReport FromProto(const summary::KernelReport& in) {
  KernelReport out;
  out.name = in.name();
  out.params.registers_per_thread = in.registers_per_thread();
  out.params.static_shmem_bytes = in.static_shmem_bytes();
  out.params.dynamic_shmem_bytes = in.dynamic_shmem_bytes();
  out.params.block = Dim3FromProto(in.block(), "block");
  out.params.grid = Dim3FromProto(in.grid(), "grid");
  out.params.occupancy_pct = in.occupancy_pct();
  out.params.occupancy_unknown = in.occupancy_unknown();
  out.uses_tensor_core = in.uses_tensor_core();
  out.op_tensor_core_eligible = in.op_tensor_core_eligible();
  out.op_name = in.op_name();
  out.precision = CheckedEnum(in.precision(), ComputePrecision::k32Bit, "compute precision");
  out.occurrences = in.occurrences();
  out.total_ns = in.total_ns();
  out.min_ns = in.min_ns();
  out.max_ns = in.max_ns();
  return out;
}

void ToProto(const StepRecord& in, summary::StepRecord* out) {
  out->set_group_id(in.group_id);
  out->set_name(in.name);
  if (in.marker_number) out->set_marker_number(*in.marker_number);
  out->set_begin_ps(in.begin_ps);
  out->set_duration_ps(in.duration_ps);
  for (uint64_t ps : in.type_ps) out->add_type_ps(ps);
  out->set_host(in.host);
  out->set_max_duration_ps(in.max_duration_ps);
}

StepRecord FromProto(const summary::StepRecord& in) {
  StepRecord out;
  out.group_id = in.group_id();
  out.name = in.name();
  if (in.has_marker_number()) out.marker_number = in.marker_number();
  out.begin_ps = in.begin_ps();
  out.duration_ps = in.duration_ps();
  if (static_cast<size_t>(in.type_ps_size()) > kEventTypes)
    Corrupt(fmt::format("a step has {} event types, this version knows {}", in.type_ps_size(), kEventTypes));
  std::copy(in.type_ps().begin(), in.type_ps().end(), out.type_ps.begin());
  out.host = in.host();
  out.max_duration_ps = in.max_duration_ps();
  return out;
}

// --- Memory profiles: interned strings through a sorted table -------------------

// Every string id a profile holds, visited in one fixed order; `Visit` is
// called with a reference to each id so one walk both collects and remaps.
template <class Profile, class Visit>
void ForEachStringId(Profile& p, Visit&& visit) {
  auto snapshot = [&](auto& s) {
    visit(s.op_name);
    visit(s.region_type);
    visit(s.shape);
  };
  for (auto& a : p.allocators) {
    for (auto& s : a.timeline) snapshot(s);
    snapshot(a.peak);
    for (auto& r : a.active) snapshot(r);
    for (auto& r : a.specials) snapshot(r);
    for (auto& o : a.pytorch.ops_at_peak) visit(o.op_name);
  }
}

void ToProto(const MemorySnapshot& in, const std::vector<uint32_t>& str, summary::MemorySnapshot* out) {
  out->set_time_ps(in.time_ps);
  out->set_stack_bytes(in.stack_bytes);
  out->set_heap_bytes(in.heap_bytes);
  out->set_free_bytes(in.free_bytes);
  out->set_fragmentation(in.fragmentation);
  out->set_peak_bytes_in_use(in.peak_bytes_in_use);
  out->set_requested_bytes(in.requested_bytes);
  out->set_allocation_bytes(in.allocation_bytes);
  out->set_address(in.address);
  out->set_data_type(in.data_type);
  out->set_step(in.step);
  out->set_op_name_str(str[in.op_name]);
  out->set_region_type_str(str[in.region_type]);
  out->set_shape_str(str[in.shape]);
  out->set_activity(static_cast<summary::MemoryActivity>(in.activity));
}

void ToProto(const ActiveAllocation& in, const std::vector<uint32_t>& str, summary::ActiveAllocation* out) {
  out->set_allocation_bytes(in.allocation_bytes);
  out->set_requested_bytes(in.requested_bytes);
  out->set_op_name_str(str[in.op_name]);
  out->set_region_type_str(str[in.region_type]);
  out->set_data_type(in.data_type);
  out->set_shape_str(str[in.shape]);
  out->set_occurrences(in.occurrences);
  out->set_step(in.step);
  out->set_snapshot(in.snapshot);
  out->set_special(in.special);
}

// Ids of the stored table -> ids of the profile's pool.
class StringTable {
 public:
  StringTable(const google::protobuf::RepeatedPtrField<std::string>& stored, StringPool& pool) {
    // No table at all: a profile that names no string (every id is 0, "").
    if (stored.empty()) ids_.push_back(StringPool::kEmpty);
    else if (!stored[0].empty()) Corrupt("memory profile's string table does not start with \"\"");
    ids_.reserve(stored.size());
    for (const std::string& s : stored) ids_.push_back(pool.Intern(s));
  }
  StringId operator()(uint32_t stored) const {
    if (stored >= ids_.size()) Corrupt(fmt::format("string {} of a memory profile's table of {}", stored, ids_.size()));
    return ids_[stored];
  }

 private:
  std::vector<StringId> ids_;
};

MemorySnapshot FromProto(const summary::MemorySnapshot& in, const StringTable& str) {
  MemorySnapshot out;
  out.time_ps = in.time_ps();
  out.stack_bytes = in.stack_bytes();
  out.heap_bytes = in.heap_bytes();
  out.free_bytes = in.free_bytes();
  out.fragmentation = in.fragmentation();
  out.peak_bytes_in_use = in.peak_bytes_in_use();
  out.requested_bytes = in.requested_bytes();
  out.allocation_bytes = in.allocation_bytes();
  out.address = in.address();
  out.data_type = in.data_type();
  out.step = in.step();
  out.op_name = str(in.op_name_str());
  out.region_type = str(in.region_type_str());
  out.shape = str(in.shape_str());
  out.activity = CheckedEnum(in.activity(), MemoryActivity::kDeallocation, "memory activity");
  return out;
}

ActiveAllocation FromProto(const summary::ActiveAllocation& in, const StringTable& str, size_t timeline,
                           size_t specials) {
  ActiveAllocation out;
  out.allocation_bytes = in.allocation_bytes();
  out.requested_bytes = in.requested_bytes();
  out.op_name = str(in.op_name_str());
  out.region_type = str(in.region_type_str());
  out.data_type = in.data_type();
  out.shape = str(in.shape_str());
  out.occurrences = in.occurrences();
  out.step = in.step();
  if (in.snapshot() < -1 || in.snapshot() >= static_cast<int64_t>(timeline))
    Corrupt(fmt::format("allocation at snapshot {} of a timeline of {}", in.snapshot(), timeline));
  out.snapshot = in.snapshot();
  if (in.special() < -1 || in.special() >= static_cast<int64_t>(specials))
    Corrupt(fmt::format("made-up allocation row {} of {}", in.special(), specials));
  out.special = in.special();
  return out;
}

void ToProto(const AllocatorMemoryProfile& in, const std::vector<uint32_t>& str, summary::AllocatorMemoryProfile* out) {
  out->set_memory_id(in.memory_id);
  out->mutable_timeline()->Reserve(static_cast<int>(in.timeline.size()));
  for (const MemorySnapshot& s : in.timeline) ToProto(s, str, out->add_timeline());
  out->set_allocations(in.allocations);
  out->set_deallocations(in.deallocations);
  out->set_lifetime_peak_bytes(in.lifetime_peak_bytes);
  ToProto(in.peak, str, out->mutable_peak());
  out->set_peak_bytes(in.peak_bytes);
  out->set_peak_time_ps(in.peak_time_ps);
  out->set_capacity_bytes(in.capacity_bytes);
  out->set_peak_step(in.peak_step);
  out->set_timeline_events(in.timeline_events);
  out->set_sampled_to(in.sampled_to);
  for (uint32_t i : in.reference_points) out->add_reference_points(i);
  for (uint32_t i : in.legacy_points) out->add_legacy_points(i);
  for (const ActiveAllocation& a : in.active) ToProto(a, str, out->add_active());
  for (const ActiveAllocation& a : in.specials) ToProto(a, str, out->add_specials());
  const PyTorchMemoryDetails& pt = in.pytorch;
  summary::PyTorchMemoryDetails* po = out->mutable_pytorch();
  po->set_allocated_known(pt.allocated_known);
  po->set_reserved_known(pt.reserved_known);
  po->set_addresses_known(pt.addresses_known);
  po->set_peak_reserved_bytes(pt.peak_reserved_bytes);
  po->set_peak_reserved_time_ps(pt.peak_reserved_time_ps);
  po->set_unmatched_frees(pt.unmatched_frees);
  po->set_live_at_peak_bytes(pt.live_at_peak_bytes);
  po->set_live_at_peak_allocations(pt.live_at_peak_allocations);
  po->set_before_trace_bytes(pt.before_trace_bytes);
  for (const OpMemoryAtPeak& o : pt.ops_at_peak) {
    summary::OpMemoryAtPeak* oo = po->add_ops_at_peak();
    oo->set_op_name_str(str[o.op_name]);
    oo->set_bytes(o.bytes);
    oo->set_allocations(o.allocations);
    oo->set_largest_bytes(o.largest_bytes);
  }
}

AllocatorMemoryProfile FromProto(const summary::AllocatorMemoryProfile& in, const StringTable& str) {
  AllocatorMemoryProfile out;
  out.memory_id = in.memory_id();
  out.timeline.reserve(in.timeline_size());
  for (const auto& s : in.timeline()) out.timeline.push_back(FromProto(s, str));
  out.allocations = in.allocations();
  out.deallocations = in.deallocations();
  out.lifetime_peak_bytes = in.lifetime_peak_bytes();
  out.peak = FromProto(in.peak(), str);
  out.peak_bytes = in.peak_bytes();
  out.peak_time_ps = in.peak_time_ps();
  out.capacity_bytes = in.capacity_bytes();
  out.peak_step = in.peak_step();
  out.timeline_events = in.timeline_events();
  out.sampled_to = in.sampled_to();
  if (out.timeline_events && (out.timeline.size() > out.timeline_events || out.sampled_to == 0))
    Corrupt(fmt::format("a timeline of {} snapshots sampled from {} events to {} points", out.timeline.size(),
                        out.timeline_events, out.sampled_to));
  for (auto [from, to] :
       {std::pair{&in.reference_points(), &out.reference_points}, std::pair{&in.legacy_points(), &out.legacy_points}}) {
    for (uint32_t i : *from) {
      if (i >= out.timeline.size() || (!to->empty() && i <= to->back()))
        Corrupt(fmt::format("sampled point {} of a timeline of {} (points must ascend)", i, out.timeline.size()));
      to->push_back(i);
    }
  }
  // Allocations name their snapshot in the timeline as recorded, before any sampling.
  const size_t timeline = TimelineEvents(out), specials = static_cast<size_t>(in.specials_size());
  for (const auto& a : in.active()) out.active.push_back(FromProto(a, str, timeline, specials));
  for (const auto& a : in.specials()) out.specials.push_back(FromProto(a, str, timeline, specials));
  const summary::PyTorchMemoryDetails& pi = in.pytorch();
  PyTorchMemoryDetails& pt = out.pytorch;
  pt.allocated_known = pi.allocated_known();
  pt.reserved_known = pi.reserved_known();
  pt.addresses_known = pi.addresses_known();
  pt.peak_reserved_bytes = pi.peak_reserved_bytes();
  pt.peak_reserved_time_ps = pi.peak_reserved_time_ps();
  pt.unmatched_frees = pi.unmatched_frees();
  pt.live_at_peak_bytes = pi.live_at_peak_bytes();
  pt.live_at_peak_allocations = pi.live_at_peak_allocations();
  pt.before_trace_bytes = pi.before_trace_bytes();
  for (const auto& o : pi.ops_at_peak())
    pt.ops_at_peak.push_back({str(o.op_name_str()), o.bytes(), o.allocations(), o.largest_bytes()});
  return out;
}

// --- tf.data ----------------------------------------------------------------------

void ToProto(const TfDataIterator& in, summary::TfDataIterator* out) {
  out->set_id(in.id);
  out->set_parent_id(in.parent_id);
  out->set_name(in.name);
  out->set_long_name(in.long_name);
  out->set_is_async(in.is_async);
}

void ToProto(const TfDataExecution& in, summary::TfDataExecution* out) {
  out->set_start_ps(in.start_ps);
  out->set_duration_ps(in.duration_ps);
  for (const TfDataIteratorCall& c : in.iterators) {
    summary::TfDataIteratorCall* co = out->add_iterators();
    co->set_id(c.id);
    co->set_start_ps(c.start_ps);
    co->set_duration_ps(c.duration_ps);
    co->set_self_ps(c.self_ps);
    co->set_calls(c.calls);
    co->set_blocking(c.blocking);
  }
  out->set_bottleneck_id(in.bottleneck_id);
  out->set_bottleneck_self_ps(in.bottleneck_self_ps);
  out->set_has_bottleneck(in.has_bottleneck);
}

TfDataExecution FromProto(const summary::TfDataExecution& in) {
  TfDataExecution out;
  out.start_ps = in.start_ps();
  out.duration_ps = in.duration_ps();
  out.iterators.reserve(in.iterators_size());
  for (const auto& c : in.iterators())
    out.iterators.push_back({c.id(), c.start_ps(), c.duration_ps(), c.self_ps(), c.calls(), c.blocking()});
  out.bottleneck_id = in.bottleneck_id();
  out.bottleneck_self_ps = in.bottleneck_self_ps();
  out.has_bottleneck = in.has_bottleneck();
  return out;
}

void ToProto(const TfDataPipeline& in, summary::TfDataPipeline* out) {
  out->set_root_id(in.root_id);
  out->set_kind(static_cast<summary::TfDataPipelineKind>(in.kind));
  out->set_name(in.name);
  out->set_source(in.source);
  out->set_min_ps(in.min_ps);
  out->set_avg_ps(in.avg_ps);
  out->set_max_ps(in.max_ps);
  out->set_slow_calls(in.slow_calls);
  for (const TfDataExecution& e : in.executions) ToProto(e, out->add_executions());
}

TfDataPipeline FromProto(const summary::TfDataPipeline& in) {
  TfDataPipeline out;
  out.root_id = in.root_id();
  out.kind = CheckedEnum(in.kind(), TfDataPipelineKind::kDevice, "tf.data pipeline kind");
  out.name = in.name();
  out.source = in.source();
  out.min_ps = in.min_ps();
  out.avg_ps = in.avg_ps();
  out.max_ps = in.max_ps();
  out.slow_calls = in.slow_calls();
  out.executions.reserve(in.executions_size());
  for (const auto& e : in.executions()) out.executions.push_back(FromProto(e));
  return out;
}

}  // namespace

void ToProto(const RunEnvironment& in, summary::RunEnvironment* out) {
  for (const std::string& h : in.hosts) out->add_hosts(h);
  for (const std::string& h : in.hostnames) out->add_hostnames(h);
  out->set_device_type(in.device_type);
  ToProto(in.first_device, out->mutable_first_device());
  out->set_device_core_count(in.device_core_count);
  out->set_framework(static_cast<summary::Framework>(in.framework));
  out->set_tpu_count(in.tpu_count);
  out->set_untraced_gpus(in.untraced_gpus);
}

RunEnvironment FromProto(const summary::RunEnvironment& in) {
  RunEnvironment out;
  out.hosts.assign(in.hosts().begin(), in.hosts().end());
  out.hostnames.assign(in.hostnames().begin(), in.hostnames().end());
  out.device_type = in.device_type();
  out.first_device = FromProto(in.first_device());
  out.device_core_count = in.device_core_count();
  out.framework = CheckedEnum(in.framework(), Framework::kPyTorch, "framework");
  out.tpu_count = in.tpu_count();
  out.untraced_gpus = in.untraced_gpus();
  return out;
}

void ToProto(const OpMetricsDb& in, summary::OpMetricsDb* out) {
  out->mutable_rows()->Reserve(static_cast<int>(in.rows().size()));
  for (const OpMetrics& m : in.rows()) ToProto(m, out->add_rows());
  out->set_total_time_ps(in.total_time_ps);
  out->set_total_op_time_ps(in.total_op_time_ps);
}

OpMetricsDb FromProto(const summary::OpMetricsDb& in) {
  OpMetricsDb out;
  for (const auto& m : in.rows()) out.AppendRow(FromProto(m));
  out.total_time_ps = in.total_time_ps();
  out.total_op_time_ps = in.total_op_time_ps();
  return out;
}

void ToProto(const KernelStatsDb& in, summary::KernelStatsDb* out) {
  // Sorted's order, not the order kernels were met in: the reports read
  // nothing else, and hosts appended in either order then give one message.
  for (const KernelReport& r : in.Sorted(0)) ToProto(r, out->add_reports());
  out->set_kernel_events(in.kernel_events);
}

KernelStatsDb FromProto(const summary::KernelStatsDb& in) {
  KernelStatsDb out;
  for (const auto& r : in.reports()) out.AppendReport(FromProto(r));
  out.kernel_events = in.kernel_events();
  return out;
}

void ToProto(const HostSummary& in, summary::HostSummary* out) {
  ToProto(in.env, out->mutable_env());
  ToProto(in.host_ops, out->mutable_host_ops());
  ToProto(in.device_ops, out->mutable_device_ops());
  ToProto(in.kernels, out->mutable_kernels());
  out->set_device_events(in.device_events);
  out->set_has_host_plane(in.has_host_plane);
  for (uint64_t busy : in.device_busy_ps) out->add_device_busy_ps(busy);
  if (in.pytorch != PyTorchRuntimeFacts{}) {
    summary::PyTorchRuntimeFacts* f = out->mutable_pytorch();
    f->set_single_process_loader_calls(in.pytorch.single_process_loader_calls);
    f->set_single_process_loader_ps(in.pytorch.single_process_loader_ps);
    f->set_worker_loader_calls(in.pytorch.worker_loader_calls);
    f->set_worker_loader_ps(in.pytorch.worker_loader_ps);
    f->set_pageable_h2d_copies(in.pytorch.pageable_h2d_copies);
    f->set_pageable_h2d_ps(in.pytorch.pageable_h2d_ps);
    f->set_pinned_h2d_copies(in.pytorch.pinned_h2d_copies);
    f->set_pinned_h2d_ps(in.pytorch.pinned_h2d_ps);
    f->set_cuda_graph_launches(in.pytorch.cuda_graph_launches);
  }
}

HostSummary FromProto(const summary::HostSummary& in) {
  HostSummary out;
  out.env = FromProto(in.env());
  out.host_ops = FromProto(in.host_ops());
  out.device_ops = FromProto(in.device_ops());
  out.kernels = FromProto(in.kernels());
  out.device_events = in.device_events();
  out.has_host_plane = in.has_host_plane();
  out.device_busy_ps.assign(in.device_busy_ps().begin(), in.device_busy_ps().end());
  {
    const summary::PyTorchRuntimeFacts& f = in.pytorch();
    out.pytorch.single_process_loader_calls = f.single_process_loader_calls();
    out.pytorch.single_process_loader_ps = f.single_process_loader_ps();
    out.pytorch.worker_loader_calls = f.worker_loader_calls();
    out.pytorch.worker_loader_ps = f.worker_loader_ps();
    out.pytorch.pageable_h2d_copies = f.pageable_h2d_copies();
    out.pytorch.pageable_h2d_ps = f.pageable_h2d_ps();
    out.pytorch.pinned_h2d_copies = f.pinned_h2d_copies();
    out.pytorch.pinned_h2d_ps = f.pinned_h2d_ps();
    out.pytorch.cuda_graph_launches = f.cuda_graph_launches();
  }
  return out;
}

void ToProto(const StepDb& in, summary::StepDb* out) {
  for (const StepRecord& s : in.steps) ToProto(s, out->add_steps());
  out->set_has_device(in.has_device);
  out->set_compute_16bit_ps(in.compute_16bit_ps);
  out->set_compute_32bit_ps(in.compute_32bit_ps);
  out->set_dropped_steps(in.dropped_steps);
  out->set_no_steps_reason(in.no_steps_reason);
  out->set_origin_ns(in.origin_ns);
  for (const std::string& h : in.hosts) out->add_hosts(h);
  out->set_intersection_note(in.intersection_note);
  out->set_note(in.note);
  out->set_whole_steps(in.whole_steps);
}

StepDb FromProto(const summary::StepDb& in) {
  StepDb out;
  out.steps.reserve(in.steps_size());
  for (const auto& s : in.steps()) out.steps.push_back(FromProto(s));
  out.has_device = in.has_device();
  out.compute_16bit_ps = in.compute_16bit_ps();
  out.compute_32bit_ps = in.compute_32bit_ps();
  out.dropped_steps = in.dropped_steps();
  out.no_steps_reason = in.no_steps_reason();
  out.origin_ns = in.origin_ns();
  out.hosts.assign(in.hosts().begin(), in.hosts().end());
  out.intersection_note = in.intersection_note();
  out.note = in.note();
  out.whole_steps = in.whole_steps();
  return out;
}

void ToProto(const HostMemoryProfile& in, summary::HostMemoryProfile* out) {
  // The table holds the strings the profile uses, sorted; "" is always
  // entry 0, as it is id 0 of every pool.
  std::vector<bool> used(in.strings.size());
  used[StringPool::kEmpty] = true;
  ForEachStringId(in, [&](StringId id) {
    if (id < used.size()) used[id] = true;
  });
  std::vector<StringId> sorted;
  for (StringId id = 0; id < used.size(); ++id)
    if (used[id]) sorted.push_back(id);
  std::sort(sorted.begin(), sorted.end(), [&](StringId a, StringId b) { return in.Str(a) < in.Str(b); });
  std::vector<uint32_t> stored(in.strings.size(), 0);  // Pool id -> table index.
  for (uint32_t i = 0; i < sorted.size(); ++i) {
    stored[sorted[i]] = i;
    out->add_strings(std::string(in.Str(sorted[i])));
  }

  out->set_host(in.host);
  out->set_source(static_cast<summary::MemorySource>(in.source));
  out->set_time_zero_ps(in.time_zero_ps);
  for (const AllocatorMemoryProfile& a : in.allocators) ToProto(a, stored, out->add_allocators());
  out->set_no_profile_reason(in.no_profile_reason);
  out->set_no_steps_reason(in.no_steps_reason);
  for (const auto& [step, name] : in.step_names) (*out->mutable_step_names())[step] = name;
}

HostMemoryProfile FromProto(const summary::HostMemoryProfile& in) {
  HostMemoryProfile out;
  const StringTable str(in.strings(), out.strings);
  out.host = in.host();
  out.source = CheckedEnum(in.source(), MemorySource::kTf1Timeline, "memory source");
  out.time_zero_ps = in.time_zero_ps();
  out.allocators.reserve(in.allocators_size());
  for (const auto& a : in.allocators()) out.allocators.push_back(FromProto(a, str));
  out.no_profile_reason = in.no_profile_reason();
  out.no_steps_reason = in.no_steps_reason();
  for (const auto& [step, name] : in.step_names()) out.step_names.emplace(step, name);
  return out;
}

void ToProto(const TfDataHost& in, summary::TfDataHost* out) {
  out->set_host(in.host);
  out->set_source(in.source);
  out->set_named_by_capture(in.named_by_capture);
  out->set_signed_ids(in.signed_ids);
  for (const auto& [id, it] : in.iterators) ToProto(it, &(*out->mutable_iterators())[id]);
  for (const TfDataPipeline& p : in.pipelines) ToProto(p, out->add_pipelines());
  out->set_iterator_events(in.iterator_events);
  out->set_unsigned_ids(in.unsigned_ids);
  out->set_linked_producers(in.linked_producers);
  out->set_unmatched_consumes(in.unmatched_consumes);
  out->set_visit_limit_hits(in.visit_limit_hits);
  out->set_shared_producer_links(in.shared_producer_links);
  out->set_has_host_plane(in.has_host_plane);
  out->set_absolute_clock(in.absolute_clock);
}

TfDataHost FromProto(const summary::TfDataHost& in) {
  TfDataHost out;
  out.host = in.host();
  out.source = in.source();
  out.named_by_capture = in.named_by_capture();
  out.signed_ids = in.signed_ids();
  for (const auto& [id, it] : in.iterators())
    out.iterators.emplace(id, TfDataIterator{it.id(), it.parent_id(), it.name(), it.long_name(), it.is_async()});
  out.pipelines.reserve(in.pipelines_size());
  for (const auto& p : in.pipelines()) out.pipelines.push_back(FromProto(p));
  out.iterator_events = in.iterator_events();
  out.unsigned_ids = in.unsigned_ids();
  out.linked_producers = in.linked_producers();
  out.unmatched_consumes = in.unmatched_consumes();
  out.visit_limit_hits = in.visit_limit_hits();
  out.shared_producer_links = in.shared_producer_links();
  out.has_host_plane = in.has_host_plane();
  out.absolute_clock = in.absolute_clock();
  return out;
}

void ToProto(const Diagnostics& in, summary::Diagnostics* out) {
  for (const DiagnosticEntry& e : in.Entries()) {
    summary::DiagnosticEntry* eo = out->add_entries();
    eo->set_severity(static_cast<summary::Severity>(e.severity));
    eo->set_kind(e.kind);
    eo->set_message(e.message);
    eo->set_count(e.count);
    eo->set_example(e.example);
  }
}

Diagnostics FromProto(const summary::Diagnostics& in) {
  Diagnostics out;
  for (const auto& e : in.entries())
    out.AddEntry({CheckedEnum(e.severity(), Severity::kError, "diagnostic severity"), e.kind(), e.message(), e.count(),
                  e.example()});
  return out;
}

std::string SerializeDeterministic(const google::protobuf::MessageLite& message) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }  // The coded stream flushes into `bytes` when it goes.
  return bytes;
}

}  // namespace tfprof
