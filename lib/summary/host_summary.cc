#include "lib/summary/host_summary.h"

#include <algorithm>

#include "lib/model/xplane_schema.h"
#include "lib/summary/device_plane_to_op_metrics.h"
#include "lib/summary/host_plane_to_op_metrics.h"

namespace tfprof {
namespace {

// A GPU's plane: TensorFlow/JAX names it /device:GPU:N; a PyTorch trace's
// GPU process is told by its kernels' launch parameters (which ROCm traces
// also put on the host's launch calls: the host plane is never a device).
bool IsDevicePlane(const Host& host, const Plane& plane) {
  const std::string_view name = host.PlaneName(plane);
  return name != schema::kHostThreadsPlane && (schema::IsGpuPlane(name) || IsKinetoGpuPlane(host, plane));
}

// What every host summary says of the host, before its planes.
HostSummary HostEnvironment(const Host& host) {
  HostSummary s;
  s.env.hosts.push_back(host.name);
  s.env.hostnames = host.hostnames.empty() ? std::vector<std::string>{host.name} : host.hostnames;
  s.env.framework = host.framework;
  for (const Plane& plane : host.planes) s.env.tpu_count += schema::IsTpuPlane(host.PlaneName(plane)) ? 1 : 0;
  bool gpu_plane = false;
  for (const Plane& plane : host.planes) gpu_plane = gpu_plane || IsDevicePlane(host, plane);
  if (!gpu_plane) s.env.untraced_gpus = host.listed_gpus;
  return s;
}

// A device plane's part of the environment, and its events.
void AddDevice(HostSummary& s, const Plane& plane) {
  if (s.env.device_core_count == 0) {
    s.env.first_device = plane.device;
    s.env.device_type = GpuModelName(plane.device);
  }
  ++s.env.device_core_count;
  for (const Line& l : plane.lines)
    if (!schema::IsDerivedLineId(l.id)) s.device_events += l.events.size();
}

}  // namespace

std::string GpuModelName(const DeviceProperties& d) {
  // As the reference: the architecture for an Nvidia or AMD device that
  // says so (older captures record no vendor: plain "GPU"). AMD's: the
  // device name up to its feature flags (ROCm names the processor:
  // "gfx942:sramecc+:xnack-" is gfx942; Kineto the product), else the one
  // architecture of its compute capability (9.4 is gfx942, 9.5 gfx950; 9.0
  // is gfx908 or gfx90a), else the family of its major version.
  if (d.vendor == "AMD") {
    const std::string_view name = std::string_view(d.name).substr(0, d.name.find(':'));
    if (!name.empty()) return "AMD GPU - " + std::string(name);
    if (d.compute_cap_major == 9 && d.compute_cap_minor == 4) return "AMD GPU - gfx942";
    if (d.compute_cap_major == 9 && d.compute_cap_minor == 5) return "AMD GPU - gfx950";
    switch (d.compute_cap_major) {
      case 9: return "AMD GPU - gfx-9XX series";
      case 10: return "AMD GPU - gfx-10XX series";
      case 11: return "AMD GPU - gfx-11XX series";
      default: return "AMD GPU";
    }
  }
  if (d.vendor != "Nvidia") return "GPU";
  const int major = d.compute_cap_major, minor = d.compute_cap_minor;
  const char* arch = nullptr;
  switch (major) {
    case 2: arch = "Fermi"; break;
    case 3: arch = "Kepler"; break;
    case 5: arch = "Maxwell"; break;
    case 6: arch = "Pascal"; break;
    case 7: arch = minor < 5 ? "Volta" : "Turing"; break;
    case 8: arch = minor < 9 ? "Ampere" : "Ada Lovelace"; break;
    case 9: arch = "Hopper"; break;
    case 10: arch = "Blackwell"; break;
    default: return "Nvidia GPU";
  }
  return std::string("Nvidia GPU (") + arch + ")";
}

HostSummary SummarizeHostOpMetrics(const Host& host, OpMetricsDiagnostics& diagnostics, const AnalysisOptions& options,
                                   const EventBits* eager, OpMetricsSides sides, size_t mark_threads) {
  EventBits own;
  if (!eager) {
    own = MarkEagerEvents(host, false, mark_threads);
    eager = &own;
  }
  HostSummary s = HostEnvironment(host);
  s.pytorch = CollectPyTorchRuntimeFacts(host);
  for (size_t p = 0; p < host.planes.size(); ++p) {
    const Plane& plane = host.planes[p];
    const std::vector<std::vector<bool>>* marks = eager->empty() ? nullptr : &(*eager)[p];
    std::string_view name = host.PlaneName(plane);
    // Each plane's diagnostics go to its side's and, in plane order, to all.
    Diagnostics met;
    if (name == schema::kHostThreadsPlane) {
      if (sides.host_threads) {
        s.host_ops.Combine(HostPlaneToOpMetrics(host, plane, met, options, marks), /*count_cores=*/false);
        diagnostics.host_threads.Merge(met);
      }
      s.has_host_plane = true;
    } else if (IsDevicePlane(host, plane)) {
      AddDevice(s, plane);
      if (sides.devices) {
        OpMetricsDb device = DevicePlaneToOpMetrics(host, plane, met, options, marks);
        s.device_busy_ps.push_back(device.total_op_time_ps);
        s.device_ops.Combine(device, /*count_cores=*/true);
        diagnostics.devices.Merge(met);
      }
    }
    diagnostics.all.Merge(met);
  }
  return s;
}

KernelStatsDb HostKernelStats(const Host& host, const AnalysisOptions& options) {
  KernelStatsDb kernels;
  for (const Plane& plane : host.planes)
    if (IsDevicePlane(host, plane)) kernels.AddPlane(host, plane, options);
  return kernels;
}

HostSummary SummarizeHostOps(const Host& host, Diagnostics& diagnostics, const AnalysisOptions& options,
                             const EventBits* eager) {
  OpMetricsDiagnostics met;
  HostSummary s = SummarizeHostOpMetrics(host, met, options, eager);
  diagnostics.Merge(met.all);
  s.kernels = HostKernelStats(host, options);
  return s;
}

void CombineHostSummaries(HostSummary& into, const HostSummary& other) {
  into.env.hosts.insert(into.env.hosts.end(), other.env.hosts.begin(), other.env.hosts.end());
  for (const std::string& h : other.env.hostnames)
    if (std::find(into.env.hostnames.begin(), into.env.hostnames.end(), h) == into.env.hostnames.end())
      into.env.hostnames.push_back(h);
  if (other.env.has_device()) {
    if (!into.env.has_device()) into.env.first_device = other.env.first_device;
    into.env.device_type = other.env.device_type;
  }
  into.env.device_core_count += other.env.device_core_count;
  into.env.tpu_count += other.env.tpu_count;
  into.env.untraced_gpus = std::max(into.env.untraced_gpus, other.env.untraced_gpus);
  if (into.env.framework == Framework::kUnknown) into.env.framework = other.env.framework;
  into.host_ops.Combine(other.host_ops, /*count_cores=*/false);
  into.device_ops.Combine(other.device_ops, /*count_cores=*/true);
  into.kernels.AppendHost(other.kernels);
  into.device_events += other.device_events;
  into.has_host_plane = into.has_host_plane || other.has_host_plane;
  AddPyTorchRuntimeFacts(into.pytorch, other.pytorch);
  into.device_busy_ps.insert(into.device_busy_ps.end(), other.device_busy_ps.begin(), other.device_busy_ps.end());
}

}  // namespace tfprof
