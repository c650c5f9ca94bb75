#include "lib/analyze/capture_info.h"

#include <algorithm>
#include <limits>

#include "fmt/format.h"
#include "lib/summary/time_span.h"

namespace tfprof {
namespace {

constexpr int64_t kNoTime = std::numeric_limits<int64_t>::min();

// The difference is taken in uint64, where it always fits: an XSpace can
// hold events further apart than int64 picoseconds reach (a corrupt clock),
// and `info` shows their true span rather than an overflowed one.
uint64_t SpanPsExact(int64_t first, int64_t last) { return static_cast<uint64_t>(last) - static_cast<uint64_t>(first); }
double SpanMs(int64_t first, int64_t last) {
  return first == kNoTime ? 0.0 : static_cast<double>(SpanPsExact(first, last)) / 1e9;
}

std::string ComputeCapability(const DeviceProperties& d) {
  return d.compute_cap_major ? fmt::format("{}.{}", d.compute_cap_major, d.compute_cap_minor) : std::string();
}

bool IsDevicePlaneName(const std::string& name) { return name.rfind("/device:", 0) == 0; }

// "2 hosts (a, b) · 2 GPUs (Tesla T4 cc 7.5, 40 SMs) · 1,283 events over 75.050 ms"
std::string Headline(const std::vector<HostInfo>& hosts) {
  std::string names;
  uint64_t events = 0, devices = 0;
  std::string device_desc;
  int64_t first = kNoTime, last = kNoTime;
  int listed_gpus = 0;
  for (const HostInfo& h : hosts) {
    listed_gpus = std::max(listed_gpus, h.listed_gpus);
    names += (names.empty() ? "" : ", ") + h.name;
    for (const PlaneInfo& p : h.planes) {
      events += p.events;
      if (p.events) {
        first = first == kNoTime ? p.first_ps : std::min(first, p.first_ps);
        last = last == kNoTime ? p.last_ps : std::max(last, p.last_ps);
      }
      if (!IsDevicePlaneName(p.name)) continue;
      ++devices;
      if (device_desc.empty()) {
        std::string cc = ComputeCapability(p.device);
        device_desc = p.device.name;
        if (!cc.empty()) device_desc += (device_desc.empty() ? "cc " : " cc ") + cc;
        if (p.device.core_count) device_desc += fmt::format(", {} cores", p.device.core_count);
      }
    }
  }
  std::string out = fmt::format("{} host{} ({})", hosts.size(), hosts.size() == 1 ? "" : "s", names);
  if (devices)
    out += fmt::format(" · {} device plane{}{}", devices, devices == 1 ? "" : "s",
                       device_desc.empty() ? "" : " (" + device_desc + ")");
  else if (listed_gpus > 0)
    out += fmt::format(" · no device plane (host only; the trace lists {} GPU{}, none traced)", listed_gpus,
                       listed_gpus == 1 ? "" : "s");
  else out += " · no device plane (host only)";
  out += fmt::format(" · {} events", events);
  if (first != kNoTime) out += fmt::format(" over {:.3f} ms", SpanMs(first, last));
  return out;
}

}  // namespace

HostInfo SummarizeHost(const Host& host) {
  HostInfo info;
  info.name = host.name;
  info.hostnames = host.hostnames;
  info.source_path = host.source_path;
  info.format = std::string(CaptureFormatName(host.format));
  info.gzipped = host.gzipped;
  info.file_bytes = host.file_bytes;
  info.time_origin_ns = host.time_origin_ns;
  info.listed_gpus = host.listed_gpus;
  info.errors = host.errors;
  info.warnings = host.warnings;
  for (const Plane& plane : host.planes) {
    PlaneInfo p;
    p.id = plane.id;
    p.name = std::string(host.PlaneName(plane));
    p.event_names = plane.event_metadata.size();
    p.device = plane.device;
    p.first_ps = kNoTime;
    for (const Line& line : plane.lines) {
      LineInfo l;
      l.id = line.display_id ? line.display_id : line.id;
      l.name = std::string(host.LineName(line));
      l.events = line.events.size();
      l.first_ps = kNoTime;
      l.last_ps = kNoTime;
      for (const Event& e : line.events) {
        l.first_ps = l.first_ps == kNoTime ? e.start_ps : std::min(l.first_ps, e.start_ps);
        l.last_ps = l.last_ps == kNoTime ? e.end_ps() : std::max(l.last_ps, e.end_ps());
      }
      if (l.events) {
        if (p.first_ps == kNoTime || l.first_ps < p.first_ps) p.first_ps = l.first_ps;
        p.last_ps = p.events ? std::max(p.last_ps, l.last_ps) : l.last_ps;
      }
      p.events += l.events;
      p.lines.push_back(std::move(l));
    }
    info.planes.push_back(std::move(p));
  }
  return info;
}

Report BuildInfoReport(const std::vector<HostInfo>& hosts) {
  Report r;
  r.command = "info";

  Table planes{"planes", "Planes", {}, {}};
  planes.Add({"host", "host"})
      .Add({"plane_id", "id", ColumnType::kInt})
      .Add({"plane", "plane", ColumnType::kString, 0, 48})
      .Add({"lines", "lines", ColumnType::kInt}, "count")
      .Add({"events", "events", ColumnType::kInt}, "count")
      .Add({"event_names", "names", ColumnType::kInt}, "count")
      .Add({"span_ms", "span ms", ColumnType::kDouble, 3}, "ms")
      .Add({"device", "device"});
  Table host_table{"hosts", "Hosts", {}, {}};
  host_table.Add({"host", "host"})
      .Add({"hostname", "hostname"})
      .Add({"file", "file", ColumnType::kString, 0, 60})
      .Add({"format", "format"})
      .Add({"gzipped", "gz", ColumnType::kBool})
      .Add({"file_bytes", "bytes", ColumnType::kInt}, "bytes")
      .Add({"planes", "planes", ColumnType::kInt}, "count")
      .Add({"lines", "lines", ColumnType::kInt}, "count")
      .Add({"events", "events", ColumnType::kInt}, "count")
      .Add({"span_ms", "span ms", ColumnType::kDouble, 3}, "ms")
      .Add({"errors", "errors", ColumnType::kInt}, "count")
      .Add({"warnings", "warnings", ColumnType::kInt}, "count");
  Table devices{"devices", "Devices", {}, {}};
  devices.Add({"host", "host"})
      .Add({"plane", "plane"})
      .Add({"name", "name"})
      .Add({"vendor", "vendor"})
      .Add({"compute_capability", "cc"})
      .Add({"core_count", "cores", ColumnType::kInt}, "count")
      .Add({"memory_bytes", "memory bytes", ColumnType::kInt}, "bytes")
      .Add({"memory_bandwidth_bytes_per_s", "bandwidth B/s", ColumnType::kInt}, "bytes/s")
      .Add({"clock_rate_khz", "clock kHz", ColumnType::kInt}, "kHz");
  Table lines{"lines", "Lines", {}, {}};
  lines.detail = true;
  lines.Add({"host", "host"})
      .Add({"plane", "plane", ColumnType::kString, 0, 32})
      .Add({"line_id", "id", ColumnType::kInt})
      .Add({"line", "line", ColumnType::kString, 0, 40})
      .Add({"events", "events", ColumnType::kInt}, "count")
      .Add({"span_ms", "span ms", ColumnType::kDouble, 3}, "ms");

  for (const HostInfo& h : hosts) {
    uint64_t line_count = 0, event_count = 0;
    int64_t first = kNoTime, last = 0;
    for (const PlaneInfo& p : h.planes) {
      line_count += p.lines.size();
      if (p.events) {
        first = first == kNoTime ? p.first_ps : std::min(first, p.first_ps);
        last = event_count ? std::max(last, p.last_ps) : p.last_ps;
      }
      event_count += p.events;
      planes.AddRow()
          .Set("host", h.name)
          .Set("plane_id", p.id)
          .Set("plane", p.name)
          .Set("lines", static_cast<int64_t>(p.lines.size()))
          .Set("events", static_cast<int64_t>(p.events))
          .Set("event_names", static_cast<int64_t>(p.event_names))
          .Set("span_ms", SpanMs(p.events ? p.first_ps : kNoTime, p.last_ps))
          .Set("device", p.device.name);
      if (!p.device.empty()) {
        devices.AddRow()
            .Set("host", h.name)
            .Set("plane", p.name)
            .Set("name", p.device.name)
            .Set("vendor", p.device.vendor)
            .Set("compute_capability", ComputeCapability(p.device))
            .Set("core_count", p.device.core_count)
            .Set("memory_bytes", p.device.memory_bytes)
            .Set("memory_bandwidth_bytes_per_s", p.device.memory_bandwidth)
            .Set("clock_rate_khz", p.device.clock_rate_khz);
      }
      for (const LineInfo& l : p.lines)
        lines.AddRow()
            .Set("host", h.name)
            .Set("plane", p.name)
            .Set("line_id", l.id)
            .Set("line", l.name)
            .Set("events", static_cast<int64_t>(l.events))
            .Set("span_ms", SpanMs(l.events ? l.first_ps : kNoTime, l.last_ps));
    }
    std::string hostname;
    for (const std::string& n : h.hostnames) hostname += (hostname.empty() ? "" : " ") + n;
    host_table.AddRow()
        .Set("host", h.name)
        .Set("hostname", hostname)
        .Set("file", h.source_path)
        .Set("format", h.format)
        .Set("gzipped", h.gzipped)
        .Set("file_bytes", static_cast<int64_t>(h.file_bytes))
        .Set("planes", static_cast<int64_t>(h.planes.size()))
        .Set("lines", static_cast<int64_t>(line_count))
        .Set("events", static_cast<int64_t>(event_count))
        .Set("span_ms", SpanMs(first, last))
        .Set("errors", static_cast<int64_t>(h.errors.size()))
        .Set("warnings", static_cast<int64_t>(h.warnings.size()));
    for (const PlaneInfo& p : h.planes)
      if (p.events && SpanPsExact(p.first_ps, p.last_ps) > static_cast<uint64_t>(kMaxSpanPs))
        r.notes.push_back(
            fmt::format("{}: plane {} has events more than 100 days apart (a corrupt clock?): other "
                        "commands cut its time spans to 100 days",
                        h.name, p.name));
    for (const std::string& e : h.errors)
      r.notes.push_back(fmt::format("{}: the profiler reported an error: {}", h.name, e));
    for (const std::string& w : h.warnings)
      r.notes.push_back(fmt::format("{}: the profiler reported a warning: {}", h.name, w));
  }
  r.lines.push_back(Headline(hosts));
  r.tables = {std::move(planes), std::move(host_table), std::move(devices), std::move(lines)};
  return r;
}

}  // namespace tfprof
