#include "lib/analyze/tf_stats_report.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "lib/summary/device_plane_to_op_metrics.h"

namespace tfprof {
namespace {

constexpr size_t kReferenceRowsPerSide = 500;

double SafeDiv(double a, double b) { return b == 0 ? 0.0 : a / b; }

// Tensor Core time over all kernel time of each op, from the kernel reports.
absl::flat_hash_map<std::string, double> TensorCoreUtilizationByOp(const KernelStatsDb& kernels) {
  absl::flat_hash_map<std::string, std::pair<uint64_t, uint64_t>> sums;  // (tc, total) ns
  for (const KernelReport& r : kernels.Sorted()) {
    auto& [tc, total] = sums[r.op_name];
    total += r.total_ns;
    if (r.uses_tensor_core) tc += r.total_ns;
  }
  absl::flat_hash_map<std::string, double> out;
  for (const auto& [op, s] : sums) out[op] = SafeDiv(static_cast<double>(s.first), static_cast<double>(s.second));
  return out;
}

// `total_ps` is the denominator of the fractions. `drop_idle` leaves the
// IDLE row out: after the top `limit` were taken when `idle_counts`, so
// that the host side without idle has one row fewer, as in the reference
// (its 500 rows a side); before, for a limit the user set (--top N: at
// most N rows a side, docs/op-stats.md).
// Returns how many rows the side has without the limit.
size_t AppendSide(const OpMetricsDb& db, uint64_t total_ps, bool drop_idle, bool idle_counts, bool on_device,
                  size_t limit, int64_t& rank, const absl::flat_hash_map<std::string, double>& tc,
                  std::vector<TfStatsRecord>& out) {
  const double total_us = static_cast<double>(total_ps) / 1e6;
  double cumulative = 0;
  size_t rows = 0;
  for (const OpMetrics& m : db.rows()) rows += !(drop_idle && m.is_idle());
  for (const OpMetrics* m : db.Sorted(limit, /*with_idle=*/!drop_idle || idle_counts)) {
    if (drop_idle && m->is_idle()) continue;
    TfStatsRecord r;
    r.rank = ++rank;
    r.on_device = on_device;
    r.op_type = m->category;
    r.op_name = m->name;
    r.occurrences = m->occurrences;
    r.total_time_us = static_cast<double>(m->time_ps) / 1e6;
    r.avg_time_us = SafeDiv(r.total_time_us, static_cast<double>(m->occurrences));
    r.total_self_time_us = static_cast<double>(m->self_time_ps) / 1e6;
    r.avg_self_time_us = SafeDiv(r.total_self_time_us, static_cast<double>(m->occurrences));
    const double fraction = SafeDiv(r.total_self_time_us, total_us);
    cumulative += fraction;
    (on_device ? r.device_self_fraction : r.host_self_fraction) = fraction;
    (on_device ? r.device_cumulative_fraction : r.host_cumulative_fraction) = cumulative;
    if (on_device) {
      auto it = tc.find(m->name);
      r.tensor_core_utilization = it == tc.end() ? 0.0 : it->second;
    }
    r.is_eager = m->is_eager;
    out.push_back(std::move(r));
  }
  return rows;
}

// One row per (side, op type); cumulative fractions follow the new order.
std::vector<TfStatsRecord> ByType(const std::vector<TfStatsRecord>& records) {
  std::vector<TfStatsRecord> out;
  std::map<std::pair<bool, std::string>, size_t> index;
  for (const TfStatsRecord& r : records) {
    auto [it, fresh] = index.try_emplace({r.on_device, r.op_type}, out.size());
    if (fresh) {
      TfStatsRecord t;
      t.on_device = r.on_device;
      t.op_type = r.op_type;
      t.op_name = r.op_type;
      out.push_back(t);
    }
    TfStatsRecord& t = out[it->second];
    t.occurrences += r.occurrences;
    t.total_time_us += r.total_time_us;
    t.total_self_time_us += r.total_self_time_us;
    t.device_self_fraction += r.device_self_fraction;
    t.host_self_fraction += r.host_self_fraction;
    t.is_eager = t.is_eager || r.is_eager;
  }
  std::stable_sort(out.begin(), out.end(), [](const TfStatsRecord& a, const TfStatsRecord& b) {
    if (a.on_device != b.on_device) return a.on_device;
    return a.total_self_time_us > b.total_self_time_us;
  });
  double dev = 0, host = 0;
  int64_t rank = 0;
  for (TfStatsRecord& t : out) {
    t.rank = ++rank;
    t.avg_time_us = SafeDiv(t.total_time_us, static_cast<double>(t.occurrences));
    t.avg_self_time_us = SafeDiv(t.total_self_time_us, static_cast<double>(t.occurrences));
    if (t.on_device) t.device_cumulative_fraction = dev += t.device_self_fraction;
    else t.host_cumulative_fraction = host += t.host_self_fraction;
  }
  return out;
}

}  // namespace

std::vector<TfStatsRecord> BuildTfStatsRecords(const HostSummary& summary, const TfStatsOptions& options,
                                               TfStatsRowCounts* before_cut) {
  const size_t limit = options.top ? options.top : kReferenceRowsPerSide;
  auto tc = TensorCoreUtilizationByOp(summary.kernels);
  std::vector<TfStatsRecord> records;
  TfStatsRowCounts counts;
  int64_t rank = 0;
  if (options.side != "host") {
    OpMetricsDb tf_ops = DeviceOpsToTfOps(summary.device_ops, options.with_idle, options.analysis);
    if (summary.env.has_device())
      counts.device =
          AppendSide(tf_ops, tf_ops.total_time_ps, false, true, true, options.by_type ? 0 : limit, rank, tc, records);
  }
  if (options.side != "device") {
    // Without idle the host total is its ops' own time.
    const OpMetricsDb& host = summary.host_ops;
    const uint64_t total = options.with_idle ? host.total_time_ps : host.total_op_time_ps;
    if (summary.has_host_plane)
      counts.host = AppendSide(host, total, !options.with_idle, /*idle_counts=*/options.top == 0, false,
                               options.by_type ? 0 : limit, rank, tc, records);
  }
  if (options.by_type) {
    records = ByType(records);
    counts = {};
    for (const TfStatsRecord& r : records) ++(r.on_device ? counts.device : counts.host);
    if (options.top) {
      std::vector<TfStatsRecord> kept;
      size_t dev = 0, host = 0;
      for (TfStatsRecord& r : records)
        if ((r.on_device ? dev : host)++ < options.top) kept.push_back(std::move(r));
      records = std::move(kept);
      int64_t rank = 0;
      for (TfStatsRecord& r : records) r.rank = ++rank;
    }
  }
  if (before_cut) *before_cut = counts;
  return records;
}

Report BuildTfStatsReport(const HostSummary& summary, const TfStatsOptions& options) {
  TfStatsRowCounts before_cut;
  std::vector<TfStatsRecord> records = BuildTfStatsRecords(summary, options, &before_cut);
  const bool gpu = summary.env.has_device();
  // PyTorch's ops have no eager/function mode (TensorFlow's tf.function
  // notion): no such column for them, and no TensorFlow title.
  const bool pytorch = summary.env.pytorch();

  Table t{"op_stats",
          pytorch ? (options.by_type ? "PyTorch op stats by op type" : "PyTorch op stats")
                  : (options.by_type ? "TensorFlow Stats by op type" : "TensorFlow Stats"),
          {},
          {}};
  // Precision 6: a fraction shown as a percentage.
  auto col = [&](std::string key, std::string label, ColumnType type, std::string csv, int precision = 3,
                 int width = 0) {
    const bool fraction = precision == 6;
    std::string unit = fraction ? "fraction" : key.ends_with("_us") ? "us" : key == "occurrences" ? "count" : "";
    t.Add({std::move(key), std::move(label), type, precision, width, std::move(csv), fraction}, std::move(unit));
  };
  col("rank", "rank", ColumnType::kInt, "Rank");
  col("host_or_device", "side", ColumnType::kString, "Host/device");
  col("op_type", "type", ColumnType::kString, "Type", 3, 28);
  col("op_name", "operation", ColumnType::kString, "Operation", 3, 56);
  col("occurrences", "#", ColumnType::kInt, "#Occurrences");
  col("total_time_us", "total us", ColumnType::kDouble, "Total time (us)");
  col("avg_time_us", "avg us", ColumnType::kDouble, "Avg. time (us)");
  col("total_self_time_us", "self us", ColumnType::kDouble, "Total self-time (us)");
  col("avg_self_time_us", "avg self us", ColumnType::kDouble, "Avg. self-time (us)");
  col("device_self_time_fraction", "dev self", ColumnType::kDouble, "Total self-time on Device (%)", 6);
  col("device_cumulative_self_time_fraction", "dev cum", ColumnType::kDouble,
      "Cumulative total-self time on Device (%)", 6);
  col("host_self_time_fraction", "host self", ColumnType::kDouble, "Total self-time on Host (%)", 6);
  col("host_cumulative_self_time_fraction", "host cum", ColumnType::kDouble, "Cumulative total-self time on Host (%)",
      6);
  if (gpu) col("gpu_tensorcore_utilization", "TC util", ColumnType::kDouble, "GPU TensorCore utilization", 6);
  if (!pytorch) col("execution_mode", "mode", ColumnType::kString, "Execution mode");

  if (!options.sort.empty()) {
    int k = t.ColumnIndex(options.sort);
    static const std::vector<std::string> kSortable = {
        "occurrences", "total_time_us", "avg_time_us", "total_self_time_us", "avg_self_time_us", "op_name", "op_type"};
    if (k < 0 || std::find(kSortable.begin(), kSortable.end(), options.sort) == kSortable.end())
      throw std::invalid_argument(
          "--sort: unknown or unsortable column '" + options.sort +
          "' (use occurrences, total_time_us, avg_time_us, total_self_time_us, avg_self_time_us, op_name, op_type)");
    auto key = [&](const TfStatsRecord& r) -> std::pair<double, std::string> {
      if (options.sort == "occurrences") return {static_cast<double>(r.occurrences), ""};
      if (options.sort == "total_time_us") return {r.total_time_us, ""};
      if (options.sort == "avg_time_us") return {r.avg_time_us, ""};
      if (options.sort == "avg_self_time_us") return {r.avg_self_time_us, ""};
      if (options.sort == "op_name") return {0, r.op_name};
      if (options.sort == "op_type") return {0, r.op_type};
      return {r.total_self_time_us, ""};
    };
    const bool text = options.sort == "op_name" || options.sort == "op_type";
    std::stable_sort(records.begin(), records.end(), [&](const TfStatsRecord& a, const TfStatsRecord& b) {
      if (a.on_device != b.on_device) return a.on_device;
      auto ka = key(a), kb = key(b);
      return text ? ka.second < kb.second : ka.first > kb.first;
    });
  }

  for (const TfStatsRecord& r : records) {
    Table::RowWriter row = t.AddRow();
    row.Set("rank", r.rank)
        .Set("host_or_device", std::string(r.on_device ? "Device" : "Host"))
        .Set("op_type", r.op_type)
        .Set("op_name", r.op_name)
        .Set("occurrences", static_cast<int64_t>(r.occurrences))
        .Set("total_time_us", r.total_time_us)
        .Set("avg_time_us", r.avg_time_us)
        .Set("total_self_time_us", r.total_self_time_us)
        .Set("avg_self_time_us", r.avg_self_time_us)
        .Set("device_self_time_fraction", r.device_self_fraction)
        .Set("device_cumulative_self_time_fraction", r.device_cumulative_fraction)
        .Set("host_self_time_fraction", r.host_self_fraction)
        .Set("host_cumulative_self_time_fraction", r.host_cumulative_fraction);
    if (gpu) row.Set("gpu_tensorcore_utilization", r.tensor_core_utilization);
    if (!pytorch) row.Set("execution_mode", std::string(r.is_eager ? "Eager" : "Function"));
  }

  Report report;
  report.command = "op-stats";
  report.tables.push_back(std::move(t));
  if (!gpu && summary.env.tpu_count > 0)
    report.notes.push_back("the capture's devices are TPUs, which tfprof-analyze does not analyse: host ops only");
  else if (!gpu) report.notes.push_back("no GPU device plane in this capture: host ops only");
  if (!options.with_idle) report.notes.push_back("IDLE excluded: fractions are of the ops' own time");
  // The cut is the reference's (500 a side), but a table that stops
  // without saying so reads as every op of the run.
  TfStatsRowCounts shown;
  for (const TfStatsRecord& r : records) ++(r.on_device ? shown.device : shown.host);
  std::string& left_out = report.tables.front().rows_left_out;
  auto note_cut = [&](const char* side, size_t kept, size_t all) {
    if (kept >= all) return;
    report.notes.push_back(fmt::format("{} side: {} of {} {} shown, those with the most self time (--top N shows more)",
                                       side, kept, all, options.by_type ? "op types" : "ops"));
    left_out += (left_out.empty() ? "" : "; ") + report.notes.back();
  };
  note_cut("device", shown.device, before_cut.device);
  note_cut("host", shown.host, before_cut.host);
  return report;
}

}  // namespace tfprof
