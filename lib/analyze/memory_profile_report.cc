#include "lib/analyze/memory_profile_report.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "fmt/format.h"

namespace tfprof {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kMiB = 1024.0 * 1024.0;

// Sizes in the unit asked for. Precision: the breakdown and summary keep
// what the TensorFlow Profiler prints (GiB with 3 decimals); the timeline,
// meant for plotting, keeps about a KiB.
struct SizeFormat {
  MemoryUnit unit;
  std::string suffix;  // Column key suffix: "_gib", "_mib", "_bytes".
  std::string label;   // "GiB", "MiB", "B".

  explicit SizeFormat(MemoryUnit u) : unit(u) {
    switch (u) {
      case MemoryUnit::kGiB: suffix = "_gib", label = "GiB"; break;
      case MemoryUnit::kMiB: suffix = "_mib", label = "MiB"; break;
      case MemoryUnit::kBytes: suffix = "_bytes", label = "B"; break;
    }
  }
  Column Col(const std::string& key, const std::string& label_prefix, bool fine = false) const {
    Column c{key + suffix, label_prefix + " " + label, ColumnType::kDouble};
    c.unit = unit == MemoryUnit::kBytes ? "bytes" : label;
    if (unit == MemoryUnit::kBytes) c.type = ColumnType::kInt, c.precision = 0;
    else if (unit == MemoryUnit::kGiB) c.precision = fine ? 6 : 3;
    else c.precision = fine ? 3 : 2;
    return c;
  }
  // The key of a column made by Col().
  std::string Key(const std::string& key) const { return key + suffix; }

  Cell Value(int64_t bytes) const {
    switch (unit) {
      case MemoryUnit::kGiB: return static_cast<double>(bytes) / kGiB;
      case MemoryUnit::kMiB: return static_cast<double>(bytes) / kMiB;
      case MemoryUnit::kBytes: return bytes;
    }
    return bytes;
  }
};

bool Selected(const AllocatorMemoryProfile& a, const MemoryReportOptions& o) {
  return o.memory_id.empty() || a.memory_id == o.memory_id;
}

std::string ShownId(const std::string& id) { return id.empty() ? "(unnamed allocator)" : id; }

// The step's name from grouping; steps made up for events between steps
// (the previous step + 1) may have none.
std::string StepName(const HostMemoryProfile& h, int64_t step) {
  auto it = h.step_names.find(step);
  return it == h.step_names.end() ? std::string() : it->second;
}

double Ms(int64_t ps) { return static_cast<double>(ps) / 1e9; }

// A TensorFlow 1 timeline's profile counts tensors, not the allocator: what
// the allocator held (stack, free, fragmentation, its limit and lifetime
// peak) is not in it, so those cells stay empty.
bool Tf1(const HostMemoryProfile& h) { return h.source == MemorySource::kTf1Timeline; }

std::vector<size_t> TimelinePoints(const AllocatorMemoryProfile& a, const MemoryReportOptions& o) {
  return AllocatorTimelinePoints(a, o.all_points ? 0 : o.max_points, o.compat == Compat::kTfLegacy);
}

// Calls visit(host, allocator) for each allocator the options select, hosts
// in order: every table and headline lists allocators the same way.
template <typename Visit>
void ForEachSelected(const std::vector<HostMemoryProfile>& hosts, const MemoryReportOptions& o, Visit visit) {
  for (const HostMemoryProfile& h : hosts)
    for (const AllocatorMemoryProfile& a : h.allocators)
      if (Selected(a, o)) visit(h, a);
}

// Whether a shown timeline is cut down to o.max_points.
bool AnyTimelineSampled(const std::vector<HostMemoryProfile>& hosts, const MemoryReportOptions& o) {
  bool sampled = false;
  ForEachSelected(hosts, o, [&](const HostMemoryProfile&, const AllocatorMemoryProfile& a) {
    sampled = sampled || (!o.all_points && TimelineEvents(a) > o.max_points);
  });
  return sampled;
}

// One row per sampled snapshot of each selected allocator. Both layouts
// share the cells set here; set_own(row, host, allocator, snapshot) fills
// the layout's own (the sizes; TensorFlow's region, dtype and shape).
template <typename SetOwn>
void AddTimelineRows(Table& t, const std::vector<HostMemoryProfile>& hosts, const MemoryReportOptions& o,
                     SetOwn set_own) {
  ForEachSelected(hosts, o, [&](const HostMemoryProfile& h, const AllocatorMemoryProfile& a) {
    for (size_t i : TimelinePoints(a, o)) {
      const MemorySnapshot& s = a.timeline[i];
      Table::RowWriter row = t.AddRow();
      row.Set("host", h.host)
          .Set("memory_id", ShownId(a.memory_id))
          .Set("time_ms", Ms(s.time_ps))
          .Set("activity", std::string(s.activity == MemoryActivity::kAllocation ? "allocation" : "deallocation"))
          .Set("op_name", std::string(h.Str(s.op_name)))
          .Set("step", s.step);
      set_own(row, h, a, s);
    }
  });
}

Table SummaryTable(const std::vector<HostMemoryProfile>& hosts, const MemoryReportOptions& o, const SizeFormat& f) {
  Table t{"summary", "Memory profile summary (peak = stack + heap inside the profile window)", {}, {}};
  t.Add({"host", "host"})
      .Add({"memory_id", "memory id"})
      .Add({"allocations", "#alloc", ColumnType::kInt}, "count")
      .Add({"deallocations", "#dealloc", ColumnType::kInt}, "count")
      .Add(f.Col("capacity", "capacity"))
      .Add(f.Col("lifetime_peak_heap", "lifetime peak heap"))
      .Add(f.Col("peak_usage", "window peak"))
      .Add({"peak_time_ms", "at ms", ColumnType::kDouble, 3}, "ms")
      .Add({"peak_step", "step", ColumnType::kInt})
      .Add({"peak_step_name", "step name"})
      .Add(f.Col("stack_at_peak", "stack"))
      .Add(f.Col("heap_at_peak", "heap"))
      .Add(f.Col("free_at_peak", "free"))
      .Add({"fragmentation_at_peak_pct", "frag %", ColumnType::kDouble, 2}, "%");
  ForEachSelected(hosts, o, [&](const HostMemoryProfile& h, const AllocatorMemoryProfile& a) {
    int64_t allocs = a.allocations, deallocs = a.deallocations;
    if (o.compat == Compat::kXprof) {
      // The TensorFlow Profiler's UI counts the plotted (sampled) points.
      allocs = deallocs = 0;
      for (size_t i : AllocatorTimelinePoints(a, o.max_points, /*legacy=*/false))
        ++(a.timeline[i].activity == MemoryActivity::kAllocation ? allocs : deallocs);
    }
    const bool tf1 = Tf1(h);
    t.AddRow()
        .Set("host", h.host)
        .Set("memory_id", ShownId(a.memory_id))
        .Set("allocations", allocs)
        .Set("deallocations", deallocs)
        .Set(f.Key("capacity"), tf1 ? Cell{} : f.Value(a.capacity_bytes))
        .Set(f.Key("lifetime_peak_heap"), tf1 ? Cell{} : f.Value(a.lifetime_peak_bytes))
        .Set(f.Key("peak_usage"), f.Value(a.peak_bytes))
        .Set("peak_time_ms", Ms(a.peak_time_ps))
        .Set("peak_step", a.peak_step)
        .Set("peak_step_name", StepName(h, a.peak_step))
        .Set(f.Key("stack_at_peak"), tf1 ? Cell{} : f.Value(a.peak.stack_bytes))
        .Set(f.Key("heap_at_peak"), f.Value(a.peak.heap_bytes))
        .Set(f.Key("free_at_peak"), tf1 ? Cell{} : f.Value(a.peak.free_bytes))
        .Set("fragmentation_at_peak_pct", tf1 ? Cell{} : Cell{a.peak.fragmentation * 100.0});
  });
  return t;
}

Table TimelineTable(const std::vector<HostMemoryProfile>& hosts, const MemoryReportOptions& o, const SizeFormat& f) {
  Table t{"timeline", "Memory timeline (after each allocator event)", {}, {}};
  t.Add({"host", "host"})
      .Add({"memory_id", "memory id"})
      .Add({"time_ms", "ms", ColumnType::kDouble, 6}, "ms")
      .Add(f.Col("stack", "stack", true))
      .Add(f.Col("heap", "heap", true))
      .Add(f.Col("free", "free", true))
      .Add({"fragmentation_pct", "frag %", ColumnType::kDouble, 2}, "%")
      .Add({"activity", "event"})
      .Add({"op_name", "op", ColumnType::kString, 0, 48})
      .Add(f.Col("requested", "requested", true))
      .Add(f.Col("allocation", "allocated", true))
      .Add({"step", "step", ColumnType::kInt})
      .Add({"region_type", "region"})
      .Add({"data_type", "dtype"})
      .Add({"shape", "shape", ColumnType::kString, 0, 32});
  AddTimelineRows(
      t, hosts, o,
      [&](Table::RowWriter& row, const HostMemoryProfile& h, const AllocatorMemoryProfile&, const MemorySnapshot& s) {
        const bool tf1 = Tf1(h);
        row.Set(f.Key("stack"), tf1 ? Cell{} : f.Value(s.stack_bytes))
            .Set(f.Key("heap"), f.Value(s.heap_bytes))
            .Set(f.Key("free"), tf1 ? Cell{} : f.Value(s.free_bytes))
            .Set("fragmentation_pct", tf1 ? Cell{} : Cell{s.fragmentation * 100.0})
            .Set(f.Key("requested"), f.Value(s.requested_bytes))
            .Set(f.Key("allocation"), f.Value(s.allocation_bytes))
            .Set("region_type", std::string(h.Str(s.region_type)))
            .Set("data_type", DataTypeName(s.data_type))
            .Set("shape", std::string(h.Str(s.shape)));
      });
  return t;
}

Table BreakdownTable(const std::vector<HostMemoryProfile>& hosts, const MemoryReportOptions& o, const SizeFormat& f,
                     int64_t& hidden) {
  Table t{"breakdown", "Memory breakdown: allocations alive at the window peak, one row per op", {}, {}};
  t.Add({"host", "host"})
      .Add({"memory_id", "memory id"})
      .Add({"op_name", "op", ColumnType::kString, 0, 60})
      .Add(f.Col("allocation", "allocated"))
      .Add(f.Col("requested", "requested"))
      .Add({"occurrences", "#", ColumnType::kInt}, "count")
      .Add({"region_type", "region"})
      .Add({"data_type", "dtype"})
      .Add({"shape", "shape", ColumnType::kString, 0, 40});
  hidden = 0;
  ForEachSelected(hosts, o, [&](const HostMemoryProfile& h, const AllocatorMemoryProfile& a) {
    for (const ActiveAllocation& r : a.active) {
      // The TensorFlow Profiler's table hides rows under 0.001 GiB requested.
      if (o.compat == Compat::kXprof && static_cast<double>(r.requested_bytes) / kGiB < 0.001) {
        ++hidden;
        continue;
      }
      t.AddRow()
          .Set("host", h.host)
          .Set("memory_id", ShownId(a.memory_id))
          .Set("op_name", std::string(h.Str(r.op_name)))
          .Set(f.Key("allocation"), f.Value(r.allocation_bytes))
          .Set(f.Key("requested"), f.Value(r.requested_bytes))
          .Set("occurrences", r.occurrences)
          .Set("region_type", std::string(h.Str(r.region_type)))
          .Set("data_type", DataTypeName(r.data_type))
          .Set("shape", std::string(h.Str(r.shape)));
    }
  });
  return t;
}

// The UI's summary card, one line per allocator.
std::string Headline(const HostMemoryProfile& h, const AllocatorMemoryProfile& a, size_t hosts) {
  std::string who = (hosts > 1 ? h.host + " " : "") + ShownId(a.memory_id);
  const std::string step = StepName(h, a.peak_step).empty()
                               ? std::to_string(a.peak_step)
                               : fmt::format("{}, {}", a.peak_step, StepName(h, a.peak_step));
  if (Tf1(h))
    return fmt::format("{}: peak of tensors alive {} at {:.1f} ms (step {}) · {} tensors allocated, {} freed", who,
                       HumanBytes(a.peak_bytes), Ms(a.peak_time_ps), step, a.allocations, a.deallocations);
  return fmt::format(
      "{}: window peak {} of {} at {:.1f} ms (step {}): stack {}, heap {}, free {}, fragmentation {:.2f}% · "
      "lifetime peak heap {} · {} allocations, {} deallocations",
      who, HumanBytes(a.peak_bytes), HumanBytes(a.capacity_bytes), Ms(a.peak_time_ps), step,
      HumanBytes(a.peak.stack_bytes), HumanBytes(a.peak.heap_bytes), HumanBytes(a.peak.free_bytes),
      a.peak.fragmentation * 100.0, HumanBytes(a.lifetime_peak_bytes), a.allocations, a.deallocations);
}

// --- PyTorch ([memory] events) ------------------------------------------------
// Allocated and reserved are what PyTorch's allocator reports; stack, free
// and fragmentation mean nothing there, so PyTorch profiles get their own
// columns (the TensorFlow layout reads them as heap = allocated, free =
// reserved - allocated, in a run that mixes both).

bool IsPyTorchLayout(const std::vector<HostMemoryProfile>& hosts) {
  bool any = false;
  for (const HostMemoryProfile& h : hosts) {
    if (h.allocators.empty()) continue;
    if (h.source != MemorySource::kPyTorch) return false;
    any = true;
  }
  return any;
}

// Reserved memory, empty when the trace does not say it (2021 builds).
Cell Reserved(const AllocatorMemoryProfile& a, const SizeFormat& f, int64_t bytes) {
  return a.pytorch.reserved_known ? f.Value(bytes) : Cell{};
}

std::string OpShown(const HostMemoryProfile& h, StringId op) {
  return op == StringPool::kEmpty ? std::string("(outside any op)") : std::string(h.Str(op));
}

Table PyTorchSummaryTable(const std::vector<HostMemoryProfile>& hosts, const MemoryReportOptions& o,
                          const SizeFormat& f) {
  Table t{"summary", "Memory profile summary (PyTorch: peak of memory allocated in the trace)", {}, {}};
  t.Add({"host", "host"})
      .Add({"memory_id", "device"})
      .Add({"allocations", "#alloc", ColumnType::kInt}, "count")
      .Add({"deallocations", "#free", ColumnType::kInt}, "count")
      .Add(f.Col("peak_allocated", "peak allocated"))
      .Add({"peak_time_ms", "at ms", ColumnType::kDouble, 3}, "ms")
      .Add({"peak_step", "step", ColumnType::kInt})
      .Add({"peak_step_name", "step name"})
      .Add(f.Col("reserved_at_peak", "reserved then"))
      .Add(f.Col("peak_reserved", "peak reserved"))
      .Add({"peak_reserved_time_ms", "at ms", ColumnType::kDouble, 3}, "ms")
      .Add(f.Col("live_at_peak", "live from trace"))
      .Add(f.Col("before_trace_at_peak", "from before"))
      .Add({"unmatched_frees", "#unmatched frees", ColumnType::kInt}, "count");
  ForEachSelected(hosts, o, [&](const HostMemoryProfile& h, const AllocatorMemoryProfile& a) {
    const PyTorchMemoryDetails& d = a.pytorch;
    const bool matched = d.addresses_known;
    t.AddRow()
        .Set("host", h.host)
        .Set("memory_id", ShownId(a.memory_id))
        .Set("allocations", a.allocations)
        .Set("deallocations", a.deallocations)
        .Set(f.Key("peak_allocated"), f.Value(a.peak_bytes))
        .Set("peak_time_ms", Ms(a.peak_time_ps))
        .Set("peak_step", a.peak_step)
        .Set("peak_step_name", StepName(h, a.peak_step))
        .Set(f.Key("reserved_at_peak"), Reserved(a, f, a.capacity_bytes))
        .Set(f.Key("peak_reserved"), Reserved(a, f, d.peak_reserved_bytes))
        .Set("peak_reserved_time_ms", d.reserved_known ? Cell{Ms(d.peak_reserved_time_ps)} : Cell{})
        .Set(f.Key("live_at_peak"), matched ? f.Value(d.live_at_peak_bytes) : Cell{})
        .Set(f.Key("before_trace_at_peak"), matched && d.allocated_known ? f.Value(d.before_trace_bytes) : Cell{})
        .Set("unmatched_frees", matched ? Cell{d.unmatched_frees} : Cell{});
  });
  return t;
}

Table PyTorchTimelineTable(const std::vector<HostMemoryProfile>& hosts, const MemoryReportOptions& o,
                           const SizeFormat& f) {
  Table t{"timeline", "Memory timeline (after each PyTorch [memory] event)", {}, {}};
  t.Add({"host", "host"})
      .Add({"memory_id", "device"})
      .Add({"time_ms", "ms", ColumnType::kDouble, 6}, "ms")
      .Add(f.Col("allocated", "allocated", true))
      .Add(f.Col("reserved", "reserved", true))
      .Add({"activity", "event"})
      .Add({"op_name", "op", ColumnType::kString, 0, 48})
      .Add(f.Col("size", "size", true))
      .Add({"step", "step", ColumnType::kInt});
  AddTimelineRows(
      t, hosts, o,
      [&](Table::RowWriter& row, const HostMemoryProfile&, const AllocatorMemoryProfile& a, const MemorySnapshot& s) {
        row.Set(f.Key("allocated"), f.Value(s.heap_bytes))
            .Set(f.Key("reserved"), Reserved(a, f, s.heap_bytes + s.free_bytes))
            .Set(f.Key("size"), f.Value(s.allocation_bytes));
      });
  return t;
}

Table PyTorchBreakdownTable(const std::vector<HostMemoryProfile>& hosts, const MemoryReportOptions& o,
                            const SizeFormat& f) {
  Table t{"breakdown", "Memory breakdown: allocations alive at the peak, one row per PyTorch op", {}, {}};
  t.Add({"host", "host"})
      .Add({"memory_id", "device"})
      .Add({"op_name", "op", ColumnType::kString, 0, 60})
      .Add(f.Col("allocated", "allocated"))
      .Add({"allocations", "#", ColumnType::kInt}, "count")
      .Add(f.Col("largest", "largest"));
  ForEachSelected(hosts, o, [&](const HostMemoryProfile& h, const AllocatorMemoryProfile& a) {
    for (const OpMemoryAtPeak& r : a.pytorch.ops_at_peak)
      t.AddRow()
          .Set("host", h.host)
          .Set("memory_id", ShownId(a.memory_id))
          .Set("op_name", OpShown(h, r.op_name))
          .Set(f.Key("allocated"), f.Value(r.bytes))
          .Set("allocations", r.allocations)
          .Set(f.Key("largest"), f.Value(r.largest_bytes));
    if (a.pytorch.before_trace_bytes > 0)
      t.AddRow()
          .Set("host", h.host)
          .Set("memory_id", ShownId(a.memory_id))
          .Set("op_name", std::string("(allocated before the trace)"))
          .Set(f.Key("allocated"), f.Value(a.pytorch.before_trace_bytes))
          .Set("allocations", Cell{})
          .Set(f.Key("largest"), Cell{});
  });
  return t;
}

std::string PyTorchHeadline(const HostMemoryProfile& h, const AllocatorMemoryProfile& a, size_t hosts) {
  std::string who = (hosts > 1 ? h.host + " " : "") + ShownId(a.memory_id);
  std::string step = StepName(h, a.peak_step).empty() ? std::to_string(a.peak_step)
                                                      : fmt::format("{}, {}", a.peak_step, StepName(h, a.peak_step));
  std::string reserved =
      a.pytorch.reserved_known
          ? fmt::format(", {} reserved then · peak reserved {} at {:.1f} ms", HumanBytes(a.capacity_bytes),
                        HumanBytes(a.pytorch.peak_reserved_bytes), Ms(a.pytorch.peak_reserved_time_ps))
          : std::string();
  return fmt::format("{}: peak allocated {} at {:.1f} ms (step {}){} · {} allocations, {} frees", who,
                     HumanBytes(a.peak_bytes), Ms(a.peak_time_ps), step, reserved, a.allocations, a.deallocations);
}

void AddPyTorchNotes(const std::vector<HostMemoryProfile>& hosts, const MemoryReportOptions& o, const SizeFormat& f,
                     Report& report) {
  report.notes.push_back(fmt::format(
      "Sizes in {} (base 1024). PyTorch [memory] events: allocated is memory in tensors (\"Total Allocated\"), "
      "reserved what the caching allocator holds (\"Total Reserved\"), both after each event; the peak is the most "
      "allocated, first reached at the time shown; times are since the earliest start of a host thread.",
      f.label));
  if (o.breakdown)
    report.notes.push_back(
        "The breakdown counts the allocations made in the trace and not yet freed at the peak (matched with their "
        "frees by address), by the innermost PyTorch op around each on its thread; memory allocated before the "
        "trace and still held is one row.");
  if (o.timeline && AnyTimelineSampled(hosts, o))
    report.notes.push_back(fmt::format(
        "Timelines longer than {0} events are sampled to {0} points, keeping the highest point of each window so the "
        "peak survives; --all-points shows every event.",
        o.max_points));
  for (const HostMemoryProfile& h : hosts)
    if (!h.no_steps_reason.empty() && !h.allocators.empty())
      report.notes.push_back((hosts.size() > 1 ? h.host + ": " : "") + "no steps (" + h.no_steps_reason +
                             "), so every [memory] event counts as step 0.");
  ForEachSelected(hosts, o, [&](const HostMemoryProfile& h, const AllocatorMemoryProfile& a) {
    const std::string who = (hosts.size() > 1 ? h.host + " " : "") + ShownId(a.memory_id);
    if (!a.pytorch.allocated_known)
      report.notes.push_back(who +
                             ": the trace has no \"Total Allocated\" (PyTorch before 1.10): allocated is the net "
                             "of the trace's own allocations and frees, counted from 0 at its start.");
    if (!a.pytorch.addresses_known)
      report.notes.push_back(who +
                             ": the trace has no \"Addr\": frees cannot be matched with allocations, so "
                             "there is no breakdown.");
  });
}

}  // namespace

std::string HumanBytes(int64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  const double magnitude = std::abs(static_cast<double>(bytes));
  int unit = 0;
  while (unit < 6 && magnitude >= std::pow(1024.0, unit + 1)) ++unit;
  return fmt::format("{:.2f} {}", static_cast<double>(bytes) / std::pow(1024.0, unit), kUnits[unit]);
}

std::vector<std::string> MemoryIds(const std::vector<HostMemoryProfile>& hosts) {
  std::set<std::string> ids;
  for (const HostMemoryProfile& h : hosts)
    for (const AllocatorMemoryProfile& a : h.allocators) ids.insert(a.memory_id);
  return {ids.begin(), ids.end()};
}

Report BuildMemoryReport(const std::vector<HostMemoryProfile>& hosts, const MemoryReportOptions& o) {
  Report report;
  report.command = "memory";
  const SizeFormat f(o.unit);
  if (IsPyTorchLayout(hosts)) {
    ForEachSelected(hosts, o, [&](const HostMemoryProfile& h, const AllocatorMemoryProfile& a) {
      report.lines.push_back(PyTorchHeadline(h, a, hosts.size()));
    });
    report.tables.push_back(PyTorchSummaryTable(hosts, o, f));
    if (o.timeline) report.tables.push_back(PyTorchTimelineTable(hosts, o, f));
    if (o.breakdown) report.tables.push_back(PyTorchBreakdownTable(hosts, o, f));
    AddPyTorchNotes(hosts, o, f, report);
    return report;
  }
  ForEachSelected(hosts, o, [&](const HostMemoryProfile& h, const AllocatorMemoryProfile& a) {
    report.lines.push_back(Headline(h, a, hosts.size()));
  });

  int64_t hidden = 0;
  report.tables.push_back(SummaryTable(hosts, o, f));
  if (o.timeline) report.tables.push_back(TimelineTable(hosts, o, f));
  if (o.breakdown) report.tables.push_back(BreakdownTable(hosts, o, f, hidden));

  const bool all_tf1 = std::all_of(hosts.begin(), hosts.end(), [](const HostMemoryProfile& h) { return Tf1(h); });
  report.notes.push_back(
      all_tf1 ? fmt::format("Sizes in {} (base 1024). TensorFlow 1 timeline (show_memory=True): heap is the bytes of "
                            "the tensors alive (requested bytes, as timeline.py's Memory counters), each from its "
                            "op's start to the end of its last reader; the peak is the first time the most is alive "
                            "(timeline.py's AllocationMaximum). What the allocator itself held (stack, free, "
                            "fragmentation, its limit and lifetime peak) is not in a timeline.",
                            f.label)
              : fmt::format("Sizes in {} (base 1024). The window peak is the most stack + heap after any allocator "
                            "event in the capture; the lifetime peak heap is the allocator's own high-water mark "
                            "since the program started and may lie outside the profile window.",
                            f.label));
  if (o.timeline) {
    if (AnyTimelineSampled(hosts, o))
      report.notes.push_back(
          o.compat == Compat::kTfLegacy
              ? fmt::format("Timelines longer than {0} events keep the {0} with the least free memory, as TensorFlow "
                            "2.x did; --all-points shows every event.",
                            o.max_points)
              : fmt::format("Timelines longer than {0} events are sampled to {0} points, keeping the highest point of "
                            "each window so the peak survives, as the TensorFlow Profiler does; --all-points shows "
                            "every event.",
                            o.max_points));
  }
  if (o.breakdown) {
    report.notes.push_back(
        "The breakdown counts the allocations of the peak's step made up to the peak and not yet freed; heap in use "
        "that they do not explain (allocated before the window or in earlier steps) is one made-up row, and so is "
        "the stack reservation.");
    if (hidden)
      report.notes.push_back(fmt::format(
          "{} breakdown rows with less than 0.001 GiB requested are hidden, as in the TensorFlow Profiler.", hidden));
  }
  for (const HostMemoryProfile& h : hosts)
    if (!h.no_steps_reason.empty() && !h.allocators.empty())
      report.notes.push_back((hosts.size() > 1 ? h.host + ": " : "") + "no steps (" + h.no_steps_reason +
                             "), so every allocator event counts as step 0 and the breakdown covers the whole window.");
  return report;
}

}  // namespace tfprof
