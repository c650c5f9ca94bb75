#include "lib/analyze/host_to_text_dump.h"

#include <algorithm>
#include <cctype>
#include <span>

#include "fmt/format.h"

namespace tfprof {
namespace {

// Stat names are usually identifiers (step_num, correlation_id); Kineto's
// args bring names with spaces ("Input Dims"), which are quoted so a line
// still splits into name=value items unambiguously.
bool IsBareWord(std::string_view s) {
  if (s.empty()) return false;
  for (unsigned char c : s)
    if (!(std::isalnum(c) || c == '_' || c == '.' || c == ':' || c == '#' || c == '-' || c == '/')) return false;
  return true;
}

std::string StatName(const Host& host, const Plane& plane, StatKey key) {
  if (key >= plane.stat_metadata.size()) return fmt::format("#{}", key);
  std::string_view name = host.Str(plane.stat_metadata[key].name);
  return IsBareWord(name) ? std::string(name) : QuoteForDump(name);
}

// Each type reads differently, so a reader test also pins the stat's type:
// 5 (int64), 5u (uint64), 5.0 (double), "5" (string), <5 bytes>.
std::string StatValue(const Host& host, const Stat& stat) {
  // A copy: Stat is packed, and fmt takes its arguments by reference, which
  // must not bind to the misaligned member.
  const uint64_t bits = stat.bits;
  switch (stat.type()) {
    case StatType::kInt64: return fmt::format("{}", static_cast<int64_t>(bits));
    case StatType::kUint64: return fmt::format("{}u", bits);
    case StatType::kDouble: {
      std::string s = fmt::format("{}", stat.AsDouble());  // Shortest form that reads back exactly.
      if (s.find_first_of(".eni") == std::string::npos) s += ".0";
      return s;
    }
    case StatType::kString: return QuoteForDump(host.Str(stat.AsString()));
    case StatType::kBytes: return fmt::format("<{} bytes>", bits);
  }
  return fmt::format("<type {}>", static_cast<int>(stat.type()));
}

std::string Stats(const Host& host, const Plane& plane, std::span<const Stat> stats) {
  std::string out;
  for (const Stat& s : stats) out += " " + StatName(host, plane, s.key()) + "=" + StatValue(host, s);
  return out;
}

std::string MetadataName(const Host& host, const Plane& plane, EventMetadataId id) {
  if (id >= plane.event_metadata.size()) return fmt::format("#{}", id);
  const EventMetadata& m = plane.event_metadata[id];
  std::string out = QuoteForDump(host.Str(m.name));
  // XPlanes often repeat the name as display name; only a different one says anything.
  if (m.display_name != StringPool::kEmpty && m.display_name != m.name)
    out += " (display " + QuoteForDump(host.Str(m.display_name)) + ")";
  return out;
}

std::string_view YesNo(bool b) { return b ? "yes" : "no"; }

std::string_view FrameworkName(Framework f) { return f == Framework::kPyTorch ? "pytorch" : "unknown"; }

void DumpDevice(const DeviceProperties& d, std::ostream& out) {
  if (d.empty() && d.memory_bandwidth == 0 && d.clock_rate_khz == 0) return;
  out << "    device: name " << QuoteForDump(d.name) << ", vendor " << QuoteForDump(d.vendor)
      << fmt::format(", compute capability {}.{}, cores {}, memory bytes {}, bandwidth bytes/s {}, clock kHz {}\n",
                     d.compute_cap_major, d.compute_cap_minor, d.core_count, d.memory_bytes, d.memory_bandwidth,
                     d.clock_rate_khz);
}

void DumpMetadata(const Host& host, const Plane& plane, uint64_t limit, std::ostream& out) {
  uint64_t shown = 0, left = 0;
  for (size_t id = 0; id < plane.event_metadata.size(); ++id) {
    const EventMetadata& m = plane.event_metadata[id];
    if (m.stats_begin >= m.stats_end) continue;
    if (limit != 0 && shown == limit) {
      ++left;
      continue;
    }
    ++shown;
    // A corrupt range is clipped to the pool rather than read past it.
    size_t end = std::min<size_t>(m.stats_end, plane.metadata_stats.size());
    size_t begin = std::min<size_t>(m.stats_begin, end);
    out << fmt::format("    metadata {} ", id) << MetadataName(host, plane, static_cast<EventMetadataId>(id)) << ":"
        << Stats(host, plane, std::span<const Stat>(plane.metadata_stats).subspan(begin, end - begin)) << "\n";
  }
  if (left) out << fmt::format("    ... {} more event metadata with stats\n", left);
}

void DumpLine(const Host& host, const Plane& plane, const Line& line, uint64_t limit, std::ostream& out) {
  out << fmt::format("    line {} ", line.id) << QuoteForDump(host.Str(line.name));
  if (line.display_name != StringPool::kEmpty && line.display_name != line.name)
    out << " (display " << QuoteForDump(host.Str(line.display_name)) << ")";
  if (line.display_id != 0) out << fmt::format(" display id {}", line.display_id);
  out << fmt::format(": timestamp ns {}, duration ps {}, {} events\n", line.timestamp_ns, line.duration_ps,
                     line.events.size());
  size_t shown = limit == 0 ? line.events.size() : std::min<size_t>(limit, line.events.size());
  for (size_t i = 0; i < shown; ++i) {
    const Event& e = line.events[i];
    out << fmt::format("      start_ps={} duration_ps={} ", e.start_ps, e.duration_ps)
        << MetadataName(host, plane, e.metadata) << Stats(host, plane, line.EventStats(i)) << "\n";
  }
  if (shown < line.events.size()) out << fmt::format("      ... {} more events\n", line.events.size() - shown);
}

}  // namespace

std::string QuoteForDump(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7f) out += fmt::format("\\x{:02x}", c);
        else out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

void HostToTextDump(const Host& host, const TextDumpLimits& limits, std::ostream& out) {
  out << "host " << QuoteForDump(host.name) << "\n";
  out << "  source " << QuoteForDump(host.source_path) << "\n";
  out << "  format " << CaptureFormatName(host.format) << ", gzipped " << YesNo(host.gzipped) << ", file bytes "
      << host.file_bytes << "\n";
  out << "  framework " << FrameworkName(host.framework) << ", rank "
      << (host.rank ? std::to_string(*host.rank) : std::string("none")) << "\n";
  out << "  time origin ns " << host.time_origin_ns << "\n";
  for (const std::string& name : host.hostnames) out << "  hostname " << QuoteForDump(name) << "\n";
  for (const std::string& e : host.errors) out << "  profiler error " << QuoteForDump(e) << "\n";
  for (const std::string& w : host.warnings) out << "  profiler warning " << QuoteForDump(w) << "\n";
  for (const Plane& plane : host.planes) {
    out << fmt::format("  plane {} ", plane.id) << QuoteForDump(host.PlaneName(plane))
        << fmt::format(": {} lines, {} events, {} event metadata, {} stat metadata\n", plane.lines.size(),
                       plane.EventCount(), plane.event_metadata.size(), plane.stat_metadata.size());
    DumpDevice(plane.device, out);
    if (!plane.plane_stats.empty()) out << "    stats:" << Stats(host, plane, plane.plane_stats) << "\n";
    DumpMetadata(host, plane, limits.metadata_per_plane, out);
    for (const Line& line : plane.lines) DumpLine(host, plane, line, limits.events_per_line, out);
  }
}

void DiagnosticsToTextDump(const Diagnostics& diagnostics, std::ostream& out) {
  if (diagnostics.empty()) {
    out << "diagnostics: none\n";
    return;
  }
  out << "diagnostics\n";
  for (const DiagnosticEntry& e : diagnostics.Entries()) {
    out << "  " << SeverityName(e.severity) << " " << e.kind << " x" << e.count << ": " << QuoteForDump(e.message);
    if (!e.example.empty()) out << " e.g. " << QuoteForDump(e.example);
    out << "\n";
  }
}

}  // namespace tfprof
