#include "lib/analyze/kernel_stats_report.h"

#include <map>
#include <optional>

#include "fmt/format.h"
#include "lib/summary/name_regex.h"

namespace tfprof {
namespace {

std::string Dims(const std::array<uint32_t, 3>& d) { return fmt::format("{},{},{}", d[0], d[1], d[2]); }

// `with_precision`: PyTorch traces, whose kernels' data type is read from
// their names and ops (TensorFlow's kernel stats have no such column).
Table KernelTable(const std::vector<KernelReport>& reports, bool with_precision) {
  Table t{"kernel_stats", "GPU kernel stats", {}, {}};
  t.Add({"rank", "rank", ColumnType::kInt, 0, 0, "Rank"})
      .Add({"kernel_name", "kernel", ColumnType::kString, 0, 60, "Kernel Name"})
      .Add({"registers_per_thread", "regs", ColumnType::kInt, 0, 0, "Registers per thread"}, "count")
      .Add({"shmem_bytes", "shmem B", ColumnType::kInt, 0, 0, "Shared Mem bytes"}, "bytes")
      .Add({"block_dim", "block", ColumnType::kString, 0, 0, "Block dim"})
      .Add({"grid_dim", "grid", ColumnType::kString, 0, 0, "Grid dim"})
      .Add({"occupancy_pct", "occ %", ColumnType::kDouble, 1, 0, "Theoretical Occupancy %"}, "%")
      .Add({"is_op_tensor_core_eligible", "TC eligible", ColumnType::kBool, 0, 0, "Op is TensorCore eligible"})
      .Add({"is_kernel_using_tensor_core", "uses TC", ColumnType::kBool, 0, 0, "Kernel uses TensorCore"})
      .Add({"op_name", "op", ColumnType::kString, 0, 48, "Op Name"});
  if (with_precision) t.Add({"precision", "precision", ColumnType::kString, 0, 0, "Precision"});
  t.Add({"occurrences", "#", ColumnType::kInt, 0, 0, "Occurrences"}, "count")
      .Add({"total_duration_us", "total us", ColumnType::kDouble, 3, 0, "Total Duration (us)"}, "us")
      .Add({"avg_duration_us", "avg us", ColumnType::kDouble, 3, 0, "Avg Duration (us)"}, "us")
      .Add({"min_duration_us", "min us", ColumnType::kDouble, 3, 0, "Min Duration (us)"}, "us")
      .Add({"max_duration_us", "max us", ColumnType::kDouble, 3, 0, "Max Duration (us)"}, "us");
  int64_t rank = 0;
  for (const KernelReport& r : reports) {
    Table::RowWriter row = t.AddRow();
    row.Set("rank", ++rank)
        .Set("kernel_name", r.name)
        .Set("registers_per_thread", static_cast<int64_t>(r.params.registers_per_thread))
        .Set("shmem_bytes", static_cast<int64_t>(r.params.static_shmem_bytes) + r.params.dynamic_shmem_bytes)
        .Set("block_dim", Dims(r.params.block))
        .Set("grid_dim", Dims(r.params.grid))
        .Set("occupancy_pct", r.params.occupancy_unknown ? Cell{} : Cell{r.params.occupancy_pct})
        .Set("is_op_tensor_core_eligible", r.op_tensor_core_eligible)
        .Set("is_kernel_using_tensor_core", r.uses_tensor_core)
        .Set("op_name", r.op_name);
    if (with_precision) row.Set("precision", std::string(ComputePrecisionName(r.precision)));
    row.Set("occurrences", static_cast<int64_t>(r.occurrences))
        .Set("total_duration_us", static_cast<double>(r.total_ns) / 1000.0)
        // The reference divides in integer nanoseconds.
        .Set("avg_duration_us", static_cast<double>(r.occurrences ? r.total_ns / r.occurrences : 0) / 1000.0)
        .Set("min_duration_us", static_cast<double>(r.min_ns) / 1000.0)
        .Set("max_duration_us", static_cast<double>(r.max_ns) / 1000.0);
  }
  return t;
}

Table OpTable(const std::vector<KernelReport>& reports, size_t top) {
  struct OpSum {
    uint64_t kernels = 0, launches = 0, total_ns = 0, tc_ns = 0;
    bool eligible = false;
  };
  std::map<std::string, OpSum> by_op;
  std::vector<std::string> order;
  for (const KernelReport& r : reports) {
    auto [it, fresh] = by_op.try_emplace(r.op_name);
    if (fresh) {
      order.push_back(r.op_name);
      it->second.eligible = r.op_tensor_core_eligible;  // From the first row, as the reference.
    }
    it->second.kernels += 1;
    it->second.launches += r.occurrences;
    it->second.total_ns += r.total_ns;
    if (r.uses_tensor_core) it->second.tc_ns += r.total_ns;
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](const std::string& a, const std::string& b) { return by_op[a].total_ns > by_op[b].total_ns; });
  if (top && order.size() > top) order.resize(top);
  Table t{"kernel_stats_by_op", "GPU kernel time per op", {}, {}};
  t.Add({"op_name", "op", ColumnType::kString, 0, 60})
      .Add({"kernels", "kernels", ColumnType::kInt}, "count")
      .Add({"launches", "launches", ColumnType::kInt}, "count")
      .Add({"total_duration_us", "total us", ColumnType::kDouble, 3}, "us")
      .Add({"tensor_core_duration_us", "TC us", ColumnType::kDouble, 3}, "us")
      .Add({"tensor_core_fraction", "on TC", ColumnType::kDouble, 6, 0, "", true}, "fraction")
      .Add({"is_op_tensor_core_eligible", "TC eligible", ColumnType::kBool});
  for (const std::string& op : order) {
    const OpSum& s = by_op[op];
    t.AddRow()
        .Set("op_name", op.empty() ? std::string("(no op)") : op)
        .Set("kernels", static_cast<int64_t>(s.kernels))
        .Set("launches", static_cast<int64_t>(s.launches))
        .Set("total_duration_us", static_cast<double>(s.total_ns) / 1000.0)
        .Set("tensor_core_duration_us", static_cast<double>(s.tc_ns) / 1000.0)
        .Set("tensor_core_fraction", s.total_ns ? static_cast<double>(s.tc_ns) / static_cast<double>(s.total_ns) : 0.0)
        .Set("is_op_tensor_core_eligible", s.eligible);
  }
  return t;
}

}  // namespace

std::string NoKernelsReason(const HostSummary& summary) {
  if (!summary.kernels.empty()) return "";
  if (!summary.env.has_device() && summary.env.tpu_count > 0)
    return fmt::format(
        "no GPU kernels: the capture's devices are {} TPU{} (/device:TPU:<n> planes), which "
        "tfprof-analyze does not analyse",
        summary.env.tpu_count, summary.env.tpu_count == 1 ? "" : "s");
  if (!summary.env.has_device())
    return "no GPU kernels: the capture has no GPU device plane (a CPU-only run, or the GPU was not traced)";
  if (summary.device_events == 0)
    return "no GPU kernels: the GPU device plane holds no events (CUPTI was probably unavailable or lacked "
           "permission when the profile was taken; see the capture's errors with `info`)";
  return "no GPU kernels: the GPU device plane has events but none carries kernel launch details (kernel_details)";
}

Report BuildKernelStatsReport(const HostSummary& summary, const KernelStatsOptions& options) {
  // Every row, then the 1000 longest as the reference keeps (Sorted's
  // default): the headline gives both when the cut leaves some out.
  std::vector<KernelReport> all = summary.kernels.Sorted(0);
  std::vector<KernelReport> kept;
  std::optional<NameRegex> op_re, kernel_re;
  if (!options.op_regex.empty()) op_re.emplace(options.op_regex, "--op");
  if (!options.kernel_regex.empty()) kernel_re.emplace(options.kernel_regex, "--kernel");
  uint64_t every_total = 0, every_launches = 0;
  size_t every_rows = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    KernelReport& r = all[i];
    if (op_re && !op_re->Matches(r.op_name)) continue;
    if (kernel_re && !kernel_re->Matches(r.name)) continue;
    ++every_rows;
    every_total += r.total_ns;
    every_launches += r.occurrences;
    if (i < 1000) kept.push_back(std::move(r));
  }
  Report report;
  report.command = "kernel-stats";
  uint64_t total = 0, tc = 0, launches = 0;
  for (const KernelReport& r : kept) {
    total += r.total_ns;
    launches += r.occurrences;
    if (r.uses_tensor_core) tc += r.total_ns;
  }
  const double tc_pct = total ? 100.0 * static_cast<double>(tc) / static_cast<double>(total) : 0.0;
  if (every_rows > kept.size())
    report.lines.push_back(fmt::format(
        "{} of {} kernel rows (the longest) · {} of {} launches · {:.3f} of {:.3f} ms of kernel time · {:.1f}% on "
        "Tensor Cores",
        kept.size(), every_rows, launches, every_launches, static_cast<double>(total) / 1e6,
        static_cast<double>(every_total) / 1e6, tc_pct));
  else
    report.lines.push_back(
        fmt::format("{} kernel rows · {} launches · {:.3f} ms of kernel time · {:.1f}% on Tensor Cores", kept.size(),
                    launches, static_cast<double>(total) / 1e6, tc_pct));
  if (options.by_op) {
    report.tables.push_back(OpTable(kept, options.top));
  } else {
    if (options.top && kept.size() > options.top) kept.resize(options.top);
    report.tables.push_back(KernelTable(kept, summary.env.pytorch()));
  }
  // CSV holds the table alone: the cut said on stderr (Table::rows_left_out).
  if (every_rows > kept.size()) report.tables.back().rows_left_out = report.lines.front();
  if (summary.kernels.size() > 1000)
    report.notes.push_back(
        fmt::format("{} kernel rows in the capture; the 1000 longest are kept, as the TensorFlow Profiler does",
                    summary.kernels.size()));
  return report;
}

}  // namespace tfprof
