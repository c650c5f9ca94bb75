#include "tests/parity/kernel_stats_parity.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "proto/kernel_stats.pb.h"
#include "tests/parity/run_summary.h"

namespace tfprof::parity {
namespace {

// Our reports merged on the legacy key (launch parameters zeroed) and sorted
// as the reference sorts.
std::vector<KernelReport> LegacyView(const std::vector<KernelReport>& reports) {
  std::vector<KernelReport> out;
  std::map<std::tuple<std::string, bool, bool, std::string>, size_t> index;
  for (const KernelReport& r : reports) {
    auto [it, fresh] =
        index.try_emplace({r.name, r.uses_tensor_core, r.op_tensor_core_eligible, r.op_name}, out.size());
    if (fresh) {
      KernelReport z = r;
      z.params = KernelLaunchParams{};
      out.push_back(z);
      continue;
    }
    KernelReport& x = out[it->second];
    x.occurrences += r.occurrences;
    x.total_ns += r.total_ns;
    x.min_ns = std::min(x.min_ns, r.min_ns);
    x.max_ns = std::max(x.max_ns, r.max_ns);
  }
  std::stable_sort(out.begin(), out.end(), [](const KernelReport& a, const KernelReport& b) {
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    return std::tie(a.name, a.uses_tensor_core, a.op_tensor_core_eligible, a.op_name) <
           std::tie(b.name, b.uses_tensor_core, b.op_tensor_core_eligible, b.op_name);
  });
  return out;
}

std::string Dims(const std::array<uint32_t, 3>& d) { return fmt::format("{},{},{}", d[0], d[1], d[2]); }

}  // namespace

Tally CompareKernelStatsWithLegacy(const std::string& run_folder, const std::string& pb_path) {
  Tally t;
  legacy::KernelStatsDb db;
  if (!ParseReference(t, pb_path, db)) return t;  // An empty file parses as no reports.
  std::vector<KernelReport> ours =
      LegacyView(SummarizeRun(run_folder, SummaryPart::kOps, AnalysisOptions{Compat::kTfLegacy}).kernels.Sorted());
  t.Count("rows", static_cast<int64_t>(ours.size()), db.reports_size());
  for (int i = 0; i < db.reports_size() && i < static_cast<int>(ours.size()); ++i) {
    const legacy::KernelReport& r = db.reports(i);
    const KernelReport& o = ours[i];
    const std::string w = fmt::format("[{}]", i);
    t.Text(w + " name", o.name, r.name());
    t.Text(w + " op_name", o.op_name, r.op_name());
    t.Flag(w + " uses_tensor_core", o.uses_tensor_core, r.is_kernel_using_tensor_core());
    t.Flag(w + " op_eligible", o.op_tensor_core_eligible, r.is_op_tensor_core_eligible());
    t.Count(w + " occurrences", static_cast<int64_t>(o.occurrences), r.occurrences());
    t.Count(w + " total_ns", static_cast<int64_t>(o.total_ns), static_cast<int64_t>(r.total_duration_ns()));
    t.Count(w + " min_ns", static_cast<int64_t>(o.min_ns), static_cast<int64_t>(r.min_duration_ns()));
    t.Count(w + " max_ns", static_cast<int64_t>(o.max_ns), static_cast<int64_t>(r.max_duration_ns()));
    t.Skip(5);  // Registers, shared memory, block, grid, occupancy: zeros in these files.
  }
  return t;
}

Tally CompareKernelStatsWithXprof(const std::string& run_folder, const std::string& json_path) {
  Tally t;
  nlohmann::json table;
  if (!ParseJsonReference(t, json_path, table,
                          [](const nlohmann::json& d) { return d.is_object() && d.contains("rows"); }))
    return t;
  std::map<std::string, size_t> col;
  for (size_t c = 0; c < table["cols"].size(); ++c) col[table["cols"][c]["id"].get<std::string>()] = c;
  std::vector<KernelReport> ours =
      SummarizeRun(run_folder, SummaryPart::kOps, AnalysisOptions{Compat::kXprof}).kernels.Sorted();
  const nlohmann::json& rows = table["rows"];
  t.Count("rows", static_cast<int64_t>(ours.size()), static_cast<int64_t>(rows.size()));
  for (size_t i = 0; i < rows.size() && i < ours.size(); ++i) {
    const nlohmann::json& c = rows[i]["c"];
    auto v = [&](const char* id) -> const nlohmann::json& { return c[col.at(id)]["v"]; };
    const KernelReport& o = ours[i];
    const std::string w = fmt::format("[{}]", i);
    t.Count(w + " rank", static_cast<int64_t>(i + 1), static_cast<int64_t>(v("rank").get<double>()));
    t.Text(w + " name", o.name, v("kernel_name").get<std::string>());
    t.Count(w + " registers", o.params.registers_per_thread,
            static_cast<int64_t>(v("registers_per_thread").get<double>()));
    t.Count(w + " shmem", o.params.static_shmem_bytes + o.params.dynamic_shmem_bytes,
            static_cast<int64_t>(v("shmem_bytes").get<double>()));
    t.Text(w + " block", Dims(o.params.block), v("block_dim").get<std::string>());
    t.Text(w + " grid", Dims(o.params.grid), v("grid_dim").get<std::string>());
    t.Number(w + " occupancy", o.params.occupancy_pct, v("occupancy_pct").get<double>(), 0.01);
    t.Flag(w + " op_eligible", o.op_tensor_core_eligible, v("is_op_tensor_core_eligible").get<bool>());
    t.Flag(w + " uses_tensor_core", o.uses_tensor_core, v("is_kernel_using_tensor_core").get<bool>());
    t.Text(w + " op_name", o.op_name, v("op_name").get<std::string>());
    t.Count(w + " occurrences", static_cast<int64_t>(o.occurrences),
            static_cast<int64_t>(v("occurrences").get<double>()));
    t.Number(w + " total_us", static_cast<double>(o.total_ns) / 1000.0, v("total_duration_us").get<double>(), 0.001);
    t.Number(w + " avg_us", static_cast<double>(o.total_ns / o.occurrences) / 1000.0,
             v("avg_duration_us").get<double>(), 0.001);
    t.Number(w + " min_us", static_cast<double>(o.min_ns) / 1000.0, v("min_duration_us").get<double>(), 0.001);
    t.Number(w + " max_us", static_cast<double>(o.max_ns) / 1000.0, v("max_duration_us").get<double>(), 0.001);
  }
  return t;
}

}  // namespace tfprof::parity
