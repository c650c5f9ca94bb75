#include "lib/export/host_to_chrome_trace.h"

#include <algorithm>
#include <vector>

#include "fmt/format.h"

namespace tfprof {
namespace {

constexpr size_t kBlockBytes = size_t{1} << 20;
// Flow ids: a host's correlation ids, each host in its own range.
constexpr int kFlowHostShift = 40;

// The decimal digits of an integer (fmt's format_int: no format string to
// parse, as format_to into a string would for every number of a trace).
template <class Int>
void AppendInt(std::string& out, Int v) {
  const fmt::format_int digits(v);
  out.append(digits.data(), digits.size());
}

// Picoseconds on the capture's clock as microseconds with the picoseconds
// as 6 decimals (trailing zeros dropped).
void AppendMicros(std::string& out, __int128 ps) {
  const bool negative = ps < 0;
  if (negative) ps = -ps;
  const auto whole = static_cast<uint64_t>(ps / 1000000);
  auto frac = static_cast<uint64_t>(ps % 1000000);
  if (negative) out += '-';
  AppendInt(out, whole);
  if (frac == 0) return;
  char decimals[7] = {'.', '0', '0', '0', '0', '0', '0'};
  for (int i = 6; i > 0; --i, frac /= 10) decimals[i] = static_cast<char>('0' + frac % 10);
  size_t length = 7;
  while (decimals[length - 1] == '0') --length;
  out.append(decimals, length);
}

// An event's process, thread and time: `,"pid":P,"tid":T,"ts":TS`.
void AppendWhere(std::string& out, int64_t pid, int64_t tid, __int128 ts_ps) {
  out += ",\"pid\":";
  AppendInt(out, pid);
  out += ",\"tid\":";
  AppendInt(out, tid);
  out += ",\"ts\":";
  AppendMicros(out, ts_ps);
}

void AppendStatValue(std::string& out, const StringPool& strings, const Stat& s) {
  // A copy: Stat is packed, and formatting binds a reference to what it prints.
  const uint64_t bits = s.bits;
  switch (s.type()) {
    case StatType::kInt64: AppendInt(out, static_cast<int64_t>(bits)); break;
    case StatType::kUint64: AppendInt(out, bits); break;
    case StatType::kDouble: {
      const double d = s.AsDouble();
      if (d == d && d - d == 0) fmt::format_to(std::back_inserter(out), "{}", d);
      else out += "null";  // JSON has no NaN or infinity.
      break;
    }
    case StatType::kString: AppendJsonString(out, strings.Get(s.AsString())); break;
    case StatType::kBytes:
      out += "\"<";
      AppendInt(out, bits);
      out += " bytes>\"";
      break;
  }
}

}  // namespace

// JSON string contents: quotes, backslashes and control characters escaped;
// bytes that are not UTF-8 written as the code point of the same value
// (Latin-1), so the output is always valid JSON.
void AppendJsonString(std::string& out, std::string_view s) {
  out += '"';
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  for (size_t i = 0; i < n;) {
    // A run of printable ASCII needing no escape goes in at once.
    size_t run = i;
    while (run < n && p[run] >= 0x20 && p[run] < 0x80 && p[run] != '"' && p[run] != '\\') ++run;
    out.append(s.data() + i, run - i);
    i = run;
    if (i == n) break;
    const unsigned char c = p[i];
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
      ++i;
    } else if (c < 0x20) {
      fmt::format_to(std::back_inserter(out), "\\u{:04x}", c);
      ++i;
    } else {
      // A well-formed UTF-8 sequence passes as it is.
      size_t len = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c <= 0xdf ? 2 : 0;
      bool ok = len > 0 && i + len <= n;
      for (size_t k = 1; ok && k < len; ++k) ok = (p[i + k] & 0xc0) == 0x80;
      if (ok && len == 3) ok = !(c == 0xe0 && p[i + 1] < 0xa0) && !(c == 0xed && p[i + 1] >= 0xa0);
      if (ok && len == 4) ok = !(c == 0xf0 && p[i + 1] < 0x90) && !(c == 0xf4 && p[i + 1] >= 0x90);
      if (ok) {
        out.append(s.substr(i, len));
        i += len;
      } else {
        fmt::format_to(std::back_inserter(out), "\\u{:04x}", c);
        ++i;
      }
    }
  }
  out += '"';
}

ChromeTraceWriter::ChromeTraceWriter(std::ostream& out) : out_(out) {
  block_.reserve(kBlockBytes + 4096);
  // tfprofExport tells our reader the events follow the XPlane's conventions already.
  block_ += "{\"tfprofExport\":{\"version\":1},\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
}

std::string& ChromeTraceWriter::Next() {
  if (block_.size() >= kBlockBytes) Spill();
  if (!first_) block_ += ",\n";
  first_ = false;
  return block_;
}

void ChromeTraceWriter::Spill() {
  out_.write(block_.data(), static_cast<std::streamsize>(block_.size()));
  block_.clear();
}

void ChromeTraceWriter::Finish() {
  if (finished_) return;
  finished_ = true;
  block_ += "\n]}\n";
  Spill();
  out_.flush();
}

void ChromeTraceWriter::AddHost(const Host& host, const std::string& label, const StepDb* steps,
                                const TraceWindow& window) {
  BeginHost(label);
  for (const Plane& plane : host.planes) {
    BeginPlane(host, plane);
    for (const Line& line : plane.lines) {
      BeginLine(host, line);
      AddEvents(host, plane, line, host.strings, window);
    }
  }
  EndHost(steps, window);
}

void ChromeTraceWriter::BeginHost(const std::string& label) {
  label_ = label;
  ++counts_.hosts;
  host_index_ = static_cast<int64_t>(counts_.hosts - 1);
  host_pid_ = 0;
  host_plane_threads_ = 0;
}

void ChromeTraceWriter::BeginPlane(const Host& host, const Plane& plane) {
  pid_ = next_pid_++;
  tid_ = 0;
  ++counts_.processes;
  const std::string_view plane_name = host.PlaneName(plane);
  if (plane_name == "/host:CPU" && host_pid_ == 0) {
    host_pid_ = pid_;
    host_plane_threads_ = static_cast<int64_t>(plane.lines.size());
  }
  std::string& m = Next();
  fmt::format_to(std::back_inserter(m),
                 "{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{},\"args\":{{\"name\":", pid_);
  AppendJsonString(m, label_.empty() ? std::string(plane_name) : label_ + ": " + std::string(plane_name));
  m += "}}";
  fmt::format_to(std::back_inserter(Next()),
                 "{{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":{},\"args\":{{\"sort_index\":{}}}}}", pid_,
                 pid_);
  correlation_ = plane.FindStatKey(host.strings, "correlation_id");
  device_ = plane_name.rfind("/device:", 0) == 0;
}

void ChromeTraceWriter::BeginLine(const Host& host, const Line& line) {
  counters_ = host.Str(line.name) == kChromeTraceCountersLine;
  const int64_t tid = ++tid_;
  ++counts_.threads;
  std::string& t = Next();
  fmt::format_to(std::back_inserter(t),
                 "{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":", pid_, tid);
  AppendJsonString(t, host.Str(line.name));
  t += "}}";
  fmt::format_to(std::back_inserter(Next()),
                 "{{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":{},\"tid\":{},\"args\":{{\"sort_index\":{}}}}}",
                 pid_, tid, tid);
}

void ChromeTraceWriter::AddEvents(const Host& host, const Plane& plane, const Line& line,
                                  const StringPool& stat_strings, const TraceWindow& window) {
  const __int128 origin_ps = static_cast<__int128>(host.time_origin_ns) * 1000;
  const int64_t pid = pid_, tid = tid_;
  for (size_t i = 0; i < line.events.size(); ++i) {
    const Event& e = line.events[i];
    if (!window.Overlaps(e.start_ps, e.end_ps())) continue;
    ++counts_.events;
    const EventMetadata& meta = plane.event_metadata[e.metadata];
    std::string& out = Next();
    out += counters_ ? "{\"ph\":\"C\"" : "{\"ph\":\"X\"";
    AppendWhere(out, pid, tid, origin_ps + e.start_ps);
    if (!counters_) {
      out += ",\"dur\":";
      AppendMicros(out, e.duration_ps);
    }
    out += ",\"name\":";
    const bool renamed = meta.display_name != StringPool::kEmpty && meta.display_name != meta.name;
    AppendJsonString(out, host.Str(renamed ? meta.display_name : meta.name));
    const std::span<const Stat> stats = line.EventStats(i);
    const bool any = renamed || !stats.empty() || meta.stats_end > meta.stats_begin;
    std::optional<uint64_t> flow;
    if (any) {
      out += ",\"args\":{";
      bool comma = false;
      auto key = [&](std::string_view name) {
        if (comma) out += ',';
        comma = true;
        AppendJsonString(out, name);
        out += ':';
      };
      // A counter's args are its series: numbers only (a viewer cannot draw
      // anything else), and it starts no launch arrow.
      auto kept = [this](const Stat& s) { return !counters_ || s.is_integer() || s.type() == StatType::kDouble; };
      if (renamed && !counters_) {
        key("long_name");
        AppendJsonString(out, host.Str(meta.name));
      }
      seen_.clear();
      for (const Stat& s : stats) {
        seen_.push_back(s.key());
        if (!kept(s)) continue;
        key(host.Str(plane.stat_metadata[s.key()].name));
        AppendStatValue(out, stat_strings, s);
        if (!counters_ && correlation_ && s.key() == *correlation_ && s.is_integer()) flow = s.AsUint();
      }
      for (uint32_t k = meta.stats_begin; k < meta.stats_end; ++k) {
        const Stat& s = plane.metadata_stats[k];
        if (!kept(s) || std::find(seen_.begin(), seen_.end(), s.key()) != seen_.end()) continue;
        key(host.Str(plane.stat_metadata[s.key()].name));
        AppendStatValue(out, host.strings, s);
      }
      out += '}';
    }
    out += '}';
    // The launch on the host starts the arrow, its kernel (or copy) ends it.
    if (flow) {
      ++counts_.flows;
      const uint64_t id =
          (static_cast<uint64_t>(host_index_) << kFlowHostShift) | (*flow & ((uint64_t{1} << kFlowHostShift) - 1));
      std::string& f = Next();
      f += device_ ? "{\"ph\":\"f\"" : "{\"ph\":\"s\"";
      f += ",\"bp\":\"e\",\"cat\":\"launch\",\"name\":\"launch\",\"id\":";
      AppendInt(f, id);
      AppendWhere(f, pid, tid, origin_ps + e.start_ps);
      f += '}';
    }
  }
}

void ChromeTraceWriter::EndHost(const StepDb* steps, const TraceWindow& window) {
  if (!steps || steps->steps.empty()) return;
  // The steps: a thread of the host plane's process (or a process of their own).
  int64_t pid = host_pid_, tid = host_plane_threads_ + 1;
  if (pid == 0) {
    pid = next_pid_++;
    tid = 1;
    ++counts_.processes;
    std::string& m = Next();
    fmt::format_to(std::back_inserter(m),
                   "{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{},\"args\":{{\"name\":", pid);
    AppendJsonString(m, label_.empty() ? std::string("Steps") : label_ + ": Steps");
    m += "}}";
  }
  ++counts_.threads;
  fmt::format_to(std::back_inserter(Next()),
                 "{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":\"Steps\"}}}}", pid,
                 tid);
  const __int128 step_origin_ps = static_cast<__int128>(steps->origin_ns) * 1000;
  for (size_t i = 0; i < steps->steps.size(); ++i) {
    const StepRecord& s = steps->steps[i];
    const int64_t number = StepNumber(s, i);
    if (!window.Overlaps(s.begin_ps, s.begin_ps + static_cast<int64_t>(s.duration_ps))) continue;
    ++counts_.steps;
    std::string& out = Next();
    fmt::format_to(std::back_inserter(out), "{{\"ph\":\"X\",\"pid\":{},\"tid\":{},\"ts\":", pid, tid);
    AppendMicros(out, step_origin_ps + s.begin_ps);
    out += ",\"dur\":";
    AppendMicros(out, static_cast<__int128>(s.duration_ps));
    out += ",\"name\":";
    AppendJsonString(out, s.name.empty() ? fmt::format("step {}", number) : s.name);
    fmt::format_to(std::back_inserter(out), ",\"args\":{{\"step_number\":{}}}}}", number);
  }
}

}  // namespace tfprof
