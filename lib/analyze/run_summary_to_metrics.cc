#include "lib/analyze/run_summary_to_metrics.h"

#include <algorithm>
#include <cctype>

#include "lib/analyze/hosts_analysis.h"
#include "lib/analyze/kernel_stats_report.h"
#include "lib/analyze/placement_report.h"
#include "lib/analyze/step_summary.h"
#include "lib/summary/device_plane_to_op_metrics.h"
#include "lib/summary/memory_events_to_profile.h"
#include "lib/summary/run_summary_combine.h"

namespace tfprof {
namespace {

constexpr std::string_view kMemoryIdPlaceholder = "<memory_id>";

// Written out in full (not generated from the category list) so the
// catalogue is one greppable table that docs/metrics.md mirrors.
// clang-format off
const std::vector<MetricDef> kCatalogue = {
    {"run.hosts", "count", "info", "host capture files analysed"},
    {"run.devices", "count", "info", "GPU devices (device planes) over all hosts"},
    {"overview.steps", "count", "overview", "steps profiled (after dropping the first and last of a host with more than five)"},
    {"overview.step_time_ms.avg", "ms", "overview", "average step time"},
    {"overview.step_time_ms.stddev", "ms", "overview", "sample standard deviation of the step time"},
    {"overview.step_time_ms.min", "ms", "overview", "shortest step"},
    {"overview.step_time_ms.max", "ms", "overview", "longest step"},
    {"overview.input_ms.avg", "ms", "overview", "average time per step waiting for input (Input category)"},
    {"overview.input_percent", "%", "overview", "Input: total over the steps as % of the total step time (the input-bound verdict's number)"},
    {"overview.host_compute_ms.avg", "ms", "overview", "average Host compute time per step"},
    {"overview.host_compute_percent", "%", "overview", "Host compute as % of the total step time"},
    {"overview.device_compute_ms.avg", "ms", "overview", "average Device compute time per step"},
    {"overview.device_compute_percent", "%", "overview", "Device compute as % of the total step time"},
    {"overview.kernel_launch_ms.avg", "ms", "overview", "average Kernel launch time per step"},
    {"overview.kernel_launch_percent", "%", "overview", "Kernel launch as % of the total step time"},
    {"overview.output_ms.avg", "ms", "overview", "average Output (device-to-host copy) time per step"},
    {"overview.output_percent", "%", "overview", "Output as % of the total step time"},
    {"overview.device_to_device_ms.avg", "ms", "overview", "average Device to device time per step"},
    {"overview.device_to_device_percent", "%", "overview", "Device to device as % of the total step time"},
    {"overview.device_collectives_ms.avg", "ms", "overview", "average Device collectives (NCCL) time per step"},
    {"overview.device_collectives_percent", "%", "overview", "Device collectives as % of the total step time"},
    {"overview.compilation_ms.avg", "ms", "overview", "average Compilation time per step"},
    {"overview.compilation_percent", "%", "overview", "Compilation as % of the total step time"},
    {"overview.all_others_ms.avg", "ms", "overview", "average All others time per step (no event covers it: Python, I/O, ...)"},
    {"overview.all_others_percent", "%", "overview", "All others as % of the total step time"},
    {"overview.device_compute_16bit_percent", "%", "overview", "share of device compute time in 16-bit kernels (GPU runs)"},
    {"overview.device_compute_32bit_percent", "%", "overview", "share of device compute time in 32-bit kernels (GPU runs)"},
    {"overview.device_compute_8bit_percent", "%", "overview", "share of device compute time in 8-bit (FP8, FP4, int8) kernels (GPU runs; TensorFlow captures: 0)"},
    {"overview.device_compute_unknown_precision_percent", "%", "overview", "share of device compute time in kernels whose data type nothing names (PyTorch GPU runs)"},
    {"placement.host_op_percent", "%", "placement", "TF op executions on the host, % of all TF op executions"},
    {"placement.device_op_percent", "%", "placement", "TF op executions on the device, % of all TF op executions"},
    {"placement.host_op_executions", "count", "placement", "TF op executions on the host"},
    {"placement.device_op_executions", "count", "placement", "TF op executions on the device"},
    {"op_stats.host.self_time_ms", "ms", "op-stats", "host TF ops' total self time (IDLE excluded)"},
    {"op_stats.host.idle_percent", "%", "op-stats", "host IDLE row: % of the host's profiled time no TF op ran"},
    {"op_stats.host.ops", "count", "op-stats", "distinct host TF ops (rows, IDLE excluded)"},
    {"op_stats.host.eager_percent", "%", "op-stats", "host ops' self time in eager execution (op by op, outside tf.function), % of all host ops' self time"},
    {"op_stats.device.self_time_ms", "ms", "op-stats", "device TF ops' total self time (IDLE excluded; GPU runs)"},
    {"op_stats.device.idle_percent", "%", "op-stats", "device IDLE row: % of the device's profiled time no kernel ran (GPU runs)"},
    {"op_stats.device.ops", "count", "op-stats", "distinct TF ops that ran on the device (GPU runs)"},
    {"op_stats.device.eager_percent", "%", "op-stats", "device TF ops' self time in eager execution, % of all device TF ops' self time (GPU runs)"},
    {"kernels.rows", "count", "kernel-stats", "kernel-stats rows (unique kernel, launch parameters and op)"},
    {"kernels.launches", "count", "kernel-stats", "kernel launches"},
    {"kernels.time_ms", "ms", "kernel-stats", "total GPU kernel time"},
    {"kernels.tensor_core_time_percent", "%", "kernel-stats", "% of kernel time in kernels that use Tensor Cores"},
    {"kernels.tensor_core_eligible_time_percent", "%", "kernel-stats", "% of kernel time in kernels whose op could use Tensor Cores"},
    {"kernels.tensor_core_eligible_unused_percent", "%", "kernel-stats", "% of kernel time in kernels whose op could use Tensor Cores but that do not"},
    {"memory.<memory_id>.peak_usage_bytes", "bytes", "memory", "window peak of memory in use (stack + heap) of the allocator"},
    {"memory.<memory_id>.peak_heap_bytes", "bytes", "memory", "heap in use at that peak"},
    {"memory.<memory_id>.lifetime_peak_heap_bytes", "bytes", "memory", "the allocator's own high-water mark of heap since the program started"},
    {"memory.<memory_id>.capacity_bytes", "bytes", "memory", "stack + heap + free at the peak: the allocator's memory limit"},
    {"memory.<memory_id>.fragmentation_at_peak_percent", "%", "memory", "BFC fragmentation at the peak"},
    {"memory.<memory_id>.allocations", "count", "memory", "allocation events in the capture"},
    {"tf_data.pipelines", "count", "tf-data", "host input pipelines (tf.data root iterators) seen"},
    {"tf_data.bottleneck.latency_us", "us", "tf-data", "the slowest call of the slowest host input pipeline"},
    {"tf_data.bottleneck.self_us", "us", "tf-data", "self time of that call's bottleneck iterator"},
    {"tf_data.slow_calls", "count", "tf-data", "host pipeline calls over 50 us"},
    {"tf_data.input_bound", "bool", "tf-data", "1 when the slowest host pipeline call took over 50 us, else 0"},
    {"hosts.compared", "count", "hosts", "hosts compared in the hosts table (with steps; with a GPU when any has one)"},
    {"hosts.stragglers", "count", "hosts", "hosts the hosts table flags as stragglers (docs/hosts.md)"},
    {"hosts.max_late_ms", "ms", "hosts", "the largest late: busy time per step over the median host's"},
    {"hosts.max_step_vs_median_percent", "%", "hosts", "the largest average step time against the median host's, in %"},
};
// clang-format on

// Matches `name` against a catalogue pattern: equal, or equal but for the
// placeholder, which stands for one non-empty segment without dots.
bool Matches(std::string_view pattern, std::string_view name) {
  const size_t at = pattern.find(kMemoryIdPlaceholder);
  if (at == std::string_view::npos) return pattern == name;
  const std::string_view head = pattern.substr(0, at), tail = pattern.substr(at + kMemoryIdPlaceholder.size());
  if (name.size() <= head.size() + tail.size()) return false;
  if (name.substr(0, head.size()) != head || name.substr(name.size() - tail.size()) != tail) return false;
  const std::string_view middle = name.substr(head.size(), name.size() - head.size() - tail.size());
  return middle.find('.') == std::string_view::npos;
}

// Memory ids become one name segment: characters outside [A-Za-z0-9_-]
// (dots, spaces, parentheses) turn into '_'.
std::string Segment(std::string_view id) {
  std::string s(id);
  for (char& c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) c = '_';
  return s.empty() ? "_" : s;
}

double Pct(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

class MetricList {
 public:
  explicit MetricList(std::vector<Metric>& out) : out_(out) {}
  void Add(const std::string& name, double value) { out_.push_back({name, value, FindMetricDef(name)}); }

 private:
  std::vector<Metric>& out_;
};

// Device-side categories are 0 by definition in a run without a GPU:
// absent rather than 0, so an `optional` rule on them skips on CPU runs.
bool DeviceOnly(Category c) {
  return c == Category::kDeviceCompute || c == Category::kDeviceToDevice || c == Category::kDeviceCollectives ||
         c == Category::kOutput || c == Category::kKernelLaunch;
}

void AddOverview(const Overview& o, MetricList& m) {
  const StepSummary& s = o.steps;
  if (s.rows.empty()) return;
  m.Add("overview.steps", static_cast<double>(s.rows.size()));
  m.Add("overview.step_time_ms.avg", s.step_time_ms.avg);
  m.Add("overview.step_time_ms.stddev", s.step_time_ms.stddev);
  m.Add("overview.step_time_ms.min", s.step_time_ms.min);
  m.Add("overview.step_time_ms.max", s.step_time_ms.max);
  constexpr Category kOrder[] = {
      Category::kInput,    Category::kHostCompute,    Category::kDeviceCompute,     Category::kKernelLaunch,
      Category::kOutput,   Category::kDeviceToDevice, Category::kDeviceCollectives, Category::kCompilation,
      Category::kAllOthers};
  for (Category c : kOrder) {
    if (DeviceOnly(c) && !o.env.has_device()) continue;
    const std::string key(CategoryKey(c));
    m.Add("overview." + key + "_ms.avg", s.category_ms[static_cast<size_t>(c)].avg);
    m.Add("overview." + key + "_percent", s.category_percent[static_cast<size_t>(c)]);
  }
  if (o.env.has_device()) {
    m.Add("overview.device_compute_16bit_percent", o.compute_16bit_percent);
    m.Add("overview.device_compute_32bit_percent", o.compute_32bit_percent);
    m.Add("overview.device_compute_8bit_percent", o.compute_8bit_percent);
    if (o.env.pytorch())
      m.Add("overview.device_compute_unknown_precision_percent", o.compute_unknown_precision_percent);
  }
}

void AddOpStats(const HostSummary& ops, MetricList& m) {
  const Placement p = ComputePlacement(ops, "(all)");
  if (p.host_op_executions + p.device_op_executions > 0) {
    m.Add("placement.host_op_percent", p.host_percent());
    m.Add("placement.device_op_percent", p.device_percent());
    m.Add("placement.host_op_executions", static_cast<double>(p.host_op_executions));
    m.Add("placement.device_op_executions", static_cast<double>(p.device_op_executions));
  }
  // `db` gives the totals; `ops` the rows (device rows are per kernel until
  // folded into TF ops).
  auto side = [&](const std::string& prefix, const OpMetricsDb& db, const OpMetricsDb& tf_ops) {
    size_t rows = 0;
    for (const OpMetrics& r : tf_ops.rows()) rows += r.is_idle() ? 0 : 1;
    m.Add(prefix + ".self_time_ms", static_cast<double>(db.total_op_time_ps) / 1e9);
    m.Add(prefix + ".idle_percent",
          Pct(static_cast<double>(db.total_time_ps - db.total_op_time_ps), static_cast<double>(db.total_time_ps)));
    m.Add(prefix + ".ops", static_cast<double>(rows));
    // Eager execution is TensorFlow's notion: no such metric for PyTorch.
    if (!ops.env.pytorch()) m.Add(prefix + ".eager_percent", EagerPercent(tf_ops));
  };
  if (ops.has_host_plane) side("op_stats.host", ops.host_ops, ops.host_ops);
  if (ops.env.has_device())
    side("op_stats.device", ops.device_ops, DeviceOpsToTfOps(ops.device_ops, /*with_idle=*/false));
}

void AddKernels(const HostSummary& ops, MetricList& m) {
  if (ops.kernels.empty()) return;
  uint64_t total = 0, tc = 0, eligible = 0, unused = 0, launches = 0;
  for (const KernelReport& r : ops.kernels.Sorted(0)) {
    total += r.total_ns;
    launches += r.occurrences;
    if (r.uses_tensor_core) tc += r.total_ns;
    if (r.op_tensor_core_eligible) eligible += r.total_ns;
    if (r.op_tensor_core_eligible && !r.uses_tensor_core) unused += r.total_ns;
  }
  m.Add("kernels.rows", static_cast<double>(ops.kernels.size()));
  m.Add("kernels.launches", static_cast<double>(launches));
  m.Add("kernels.time_ms", static_cast<double>(total) / 1e6);
  m.Add("kernels.tensor_core_time_percent", Pct(static_cast<double>(tc), static_cast<double>(total)));
  m.Add("kernels.tensor_core_eligible_time_percent", Pct(static_cast<double>(eligible), static_cast<double>(total)));
  m.Add("kernels.tensor_core_eligible_unused_percent", Pct(static_cast<double>(unused), static_cast<double>(total)));
}

// Each allocator's peak figures (the memory profile's timeline is not
// needed), from the host where its peak is highest (the first such host on
// ties), by memory id; `no_memory_reason`: the first host's reason for having
// no profile.
struct AllocatorPeak {
  std::string memory_id;
  int64_t peak_usage = 0, heap_at_peak = 0, lifetime_peak = 0, capacity = 0, allocations = 0;
  double fragmentation = 0;
  bool pytorch = false;  // PyTorch reports no lifetime peak or fragmentation.
  bool tf1 = false;      // Nor a TF1 timeline, nor the allocator's capacity.
};

std::vector<AllocatorPeak> AllocatorPeaks(const RunSummary& run, std::string& no_memory_reason) {
  std::vector<AllocatorPeak> peaks;
  for (const HostPartials& h : run.hosts) {
    const HostMemoryProfile& memory = h.memory;
    if (memory.allocators.empty() && no_memory_reason.empty()) no_memory_reason = memory.no_profile_reason;
    for (const AllocatorMemoryProfile& a : memory.allocators) {
      AllocatorPeak p{Segment(a.memory_id),
                      a.peak_bytes,
                      a.peak.heap_bytes,
                      a.lifetime_peak_bytes,
                      a.capacity_bytes,
                      a.allocations,
                      a.peak.fragmentation * 100.0,
                      memory.source == MemorySource::kPyTorch,
                      memory.source == MemorySource::kTf1Timeline};
      auto it =
          std::find_if(peaks.begin(), peaks.end(), [&](const AllocatorPeak& x) { return x.memory_id == p.memory_id; });
      if (it == peaks.end()) peaks.push_back(p);
      else if (p.peak_usage > it->peak_usage) *it = p;
    }
  }
  std::sort(peaks.begin(), peaks.end(),
            [](const AllocatorPeak& a, const AllocatorPeak& b) { return a.memory_id < b.memory_id; });
  return peaks;
}

}  // namespace

const std::vector<MetricDef>& MetricCatalogue() { return kCatalogue; }

const MetricDef* FindMetricDef(std::string_view name) {
  for (const MetricDef& d : kCatalogue)
    if (Matches(d.name, name)) return &d;
  return nullptr;
}

bool IsIntegerUnit(std::string_view unit) { return unit == "count" || unit == "bytes" || unit == "bool"; }

const Metric* RunAnalysis::Find(std::string_view name) const {
  for (const Metric& m : metrics)
    if (m.name == name) return &m;
  return nullptr;
}

std::string RunAnalysis::AbsentNote(std::string_view name) const {
  for (const Absent& a : absent)
    for (const std::string& p : a.prefixes)
      if (name.substr(0, p.size()) == p) return a.note;
  return "";
}

RunAnalysis RunSummaryToMetrics(const RunSummary& run) {
  RunAnalysis out;
  out.run = run.run;
  out.ops = CombineHostOps(run);
  out.overview = BuildOverview(out.ops, SummarizeSteps(CombineRunSteps(run)), run.options);
  MetricList m(out.metrics);
  m.Add("run.hosts", static_cast<double>(out.ops.env.hosts.size()));
  m.Add("run.devices", static_cast<double>(out.ops.env.device_core_count));
  AddOverview(out.overview, m);
  if (out.overview.steps.rows.empty())
    out.absent.push_back({{"overview."},
                          "no overview.* metrics: " + (out.overview.steps.no_steps_reason.empty()
                                                           ? std::string("no steps found")
                                                           : out.overview.steps.no_steps_reason)});
  AddOpStats(out.ops, m);
  if (out.ops.env.pytorch())
    out.absent.push_back({{"op_stats.host.eager_percent", "op_stats.device.eager_percent"},
                          "no eager_percent metrics: eager execution (outside tf.function) is TensorFlow's notion"});
  AddKernels(out.ops, m);
  if (!out.ops.env.has_device())
    out.absent.push_back({{"overview.device_", "overview.output_", "overview.kernel_launch_", "op_stats.device."},
                          "no device metrics (overview.device_*, overview.output_*, overview.kernel_launch_*, "
                          "op_stats.device.*): the capture has no GPU device plane"});
  if (out.ops.kernels.empty())
    out.absent.push_back({{"kernels."}, "no kernels.* metrics: " + NoKernelsReason(out.ops)});

  std::string no_memory_reason;
  const std::vector<AllocatorPeak> memory = AllocatorPeaks(run, no_memory_reason);
  for (const AllocatorPeak& p : memory) {
    const std::string base = "memory." + p.memory_id;
    m.Add(base + ".peak_usage_bytes", static_cast<double>(p.peak_usage));
    m.Add(base + ".peak_heap_bytes", static_cast<double>(p.heap_at_peak));
    const bool allocator_state = !p.pytorch && !p.tf1;
    if (allocator_state) m.Add(base + ".lifetime_peak_heap_bytes", static_cast<double>(p.lifetime_peak));
    if (!p.tf1) m.Add(base + ".capacity_bytes", static_cast<double>(p.capacity));
    if (allocator_state) m.Add(base + ".fragmentation_at_peak_percent", p.fragmentation);
    m.Add(base + ".allocations", static_cast<double>(p.allocations));
  }
  if (memory.empty())
    out.absent.push_back(
        {{"memory."},
         "no memory.* metrics: " + (no_memory_reason.empty() ? std::string("no allocator events") : no_memory_reason)});

  const TfDataAnalysis tf_data = CombineRunTfData(run);
  size_t host_pipelines = 0;
  int64_t slow = 0;
  for (const TfDataHost& h : tf_data.hosts)
    for (const TfDataPipeline& p : h.pipelines)
      if (p.kind == TfDataPipelineKind::kHost) {
        ++host_pipelines;
        slow += p.slow_calls;
      }
  if (host_pipelines > 0) {
    m.Add("tf_data.pipelines", static_cast<double>(host_pipelines));
    if (!tf_data.bottlenecks.empty()) {
      const TfDataBottleneck& b = tf_data.bottlenecks.front();
      m.Add("tf_data.bottleneck.latency_us", static_cast<double>(b.max_latency_ps) / 1e6);
      m.Add("tf_data.bottleneck.self_us", static_cast<double>(b.iterator_self_ps) / 1e6);
    }
    m.Add("tf_data.slow_calls", static_cast<double>(slow));
    m.Add("tf_data.input_bound", tf_data.input_bound ? 1.0 : 0.0);
  } else {
    out.absent.push_back({{"tf_data."}, "no tf_data.* metrics: no call of a tf.data input pipeline in the capture"});
  }

  // Stragglers, for a CI gate on many-host runs (check --max hosts.stragglers=0).
  const HostsAnalysis hosts = AnalyzeHosts(run);
  if (hosts.compared >= 2) {
    double late = -1e300, slow = -1e300;
    for (const HostRow& h : hosts.rows)
      if (h.compared) late = std::max(late, h.late_ms), slow = std::max(slow, h.step_vs_median_percent);
    m.Add("hosts.compared", static_cast<double>(hosts.compared));
    m.Add("hosts.stragglers", static_cast<double>(hosts.stragglers.size()));
    m.Add("hosts.max_late_ms", late);
    m.Add("hosts.max_step_vs_median_percent", slow);
  } else {
    out.absent.push_back({{"hosts."}, "no hosts.* metrics: fewer than two hosts with steps to compare"});
  }
  return out;
}

}  // namespace tfprof
