#include "tests/parity/op_stats_parity.h"

#include <fstream>
#include <sstream>

#include "fmt/format.h"
#include "lib/analyze/tf_stats_report.h"
#include "nlohmann/json.hpp"
#include "proto/tf_stats.pb.h"
#include "tests/parity/run_summary.h"

namespace tfprof::parity {
namespace {

// Microsecond values are printed with 3 decimals in the reference's UI.
constexpr double kUs = 0.001;
constexpr double kFraction = 1e-6;

// TF legacy's device IDLE row on a GPU plane without events: its total
// time came from an unset first offset (INT64_MAX ps, 9223372036854.775
// us, fractions 1); current xprof gives 0 there, as we do (docs/parity.md).
bool LegacyEmptyDeviceIdle(const legacy::TfStatsRecord& theirs) {
  return theirs.op_type() == "IDLE" && theirs.host_or_device() == "Device" && theirs.total_time_in_us() > 9.2e12;
}

void CompareRecord(Tally& t, const std::string& where, const TfStatsRecord& ours, const legacy::TfStatsRecord& theirs,
                   bool compare_tensor_core) {
  if (LegacyEmptyDeviceIdle(theirs)) {
    t.Count(where + " rank", ours.rank, static_cast<int64_t>(theirs.rank()));
    t.Text(where + " host_or_device", ours.on_device ? "Device" : "Host", theirs.host_or_device());
    t.Text(where + " op_type", ours.op_type, theirs.op_type());
    t.Number(where + " total_time (TF legacy: INT64_MAX ps; current xprof: 0)", ours.total_time_us, 0, kUs);
    t.Number(where + " self_time (TF legacy: INT64_MAX ps; current xprof: 0)", ours.total_self_time_us, 0, kUs);
    t.Skip(compare_tensor_core ? 10 : 9);  // The other fields CompareRecord compares below.
    return;
  }
  t.Count(where + " rank", ours.rank, static_cast<int64_t>(theirs.rank()));
  t.Text(where + " host_or_device", ours.on_device ? "Device" : "Host", theirs.host_or_device());
  t.Text(where + " op_type", ours.op_type, theirs.op_type());
  t.Text(where + " op_name", ours.op_name, theirs.op_name());
  t.Count(where + " occurrences", static_cast<int64_t>(ours.occurrences), theirs.occurrences());
  t.Number(where + " total_time", ours.total_time_us, theirs.total_time_in_us(), kUs);
  t.Number(where + " avg_time", ours.avg_time_us, theirs.avg_time_in_us(), kUs);
  t.Number(where + " self_time", ours.total_self_time_us, theirs.total_self_time_in_us(), kUs);
  t.Number(where + " avg_self_time", ours.avg_self_time_us, theirs.avg_self_time_in_us(), kUs);
  t.Number(where + " device_fraction", ours.device_self_fraction, theirs.device_total_self_time_as_fraction(),
           kFraction);
  t.Number(where + " device_cumulative", ours.device_cumulative_fraction,
           theirs.device_cumulative_total_self_time_as_fraction(), kFraction);
  t.Number(where + " host_fraction", ours.host_self_fraction, theirs.host_total_self_time_as_fraction(), kFraction);
  t.Number(where + " host_cumulative", ours.host_cumulative_fraction,
           theirs.host_cumulative_total_self_time_as_fraction(), kFraction);
  t.Flag(where + " is_eager", ours.is_eager, theirs.is_eager());
  if (compare_tensor_core)
    t.Number(where + " tensor_core", ours.tensor_core_utilization, theirs.gpu_tensorcore_utilization(), kFraction);
}

}  // namespace

Tally CompareOpStatsWithLegacy(const std::string& run_folder, const std::string& pb_path) {
  legacy::TfStatsDatabase db;
  Tally t;
  if (!ParseReference(t, pb_path, db)) return t;
  const AnalysisOptions legacy{Compat::kTfLegacy};
  HostSummary summary = SummarizeRun(run_folder, SummaryPart::kOps | SummaryPart::kEagerMarks, legacy);
  for (bool with_idle : {true, false}) {
    const legacy::TfStatsTable& table = with_idle ? db.with_idle() : db.without_idle();
    TfStatsOptions options;
    options.with_idle = with_idle;
    options.analysis = legacy;
    std::vector<TfStatsRecord> ours = BuildTfStatsRecords(summary, options);
    const std::string side = with_idle ? "with_idle" : "without_idle";
    t.Count(side + " rows", static_cast<int64_t>(ours.size()), table.tf_stats_record_size());
    for (int i = 0; i < table.tf_stats_record_size() && i < static_cast<int>(ours.size()); ++i)
      CompareRecord(t, fmt::format("{}[{}]", side, i), ours[i], table.tf_stats_record(i), /*compare_tensor_core=*/true);
  }
  return t;
}

Tally CompareOpStatsWithXprof(const std::string& run_folder, const std::string& json_path) {
  Tally t;
  nlohmann::json doc;
  if (!ParseJsonReference(t, json_path, doc, [](const nlohmann::json& d) { return d.is_array() && d.size() == 2; }))
    return t;
  const AnalysisOptions xprof{Compat::kXprof};
  HostSummary summary = SummarizeRun(run_folder, SummaryPart::kOps | SummaryPart::kEagerMarks, xprof);
  for (int table_index : {0, 1}) {
    const nlohmann::json& table = doc[table_index];
    std::map<std::string, size_t> col;
    for (size_t c = 0; c < table["cols"].size(); ++c) col[table["cols"][c]["id"].get<std::string>()] = c;
    TfStatsOptions options;
    options.with_idle = table_index == 0;
    options.analysis = xprof;
    std::vector<TfStatsRecord> ours = BuildTfStatsRecords(summary, options);
    const nlohmann::json& rows = table["rows"];
    const std::string side = table_index == 0 ? "with_idle" : "without_idle";
    t.Count(side + " rows", static_cast<int64_t>(ours.size()), static_cast<int64_t>(rows.size()));
    for (size_t i = 0; i < rows.size() && i < ours.size(); ++i) {
      const nlohmann::json& c = rows[i]["c"];
      auto v = [&](const char* id) -> const nlohmann::json& { return c[col.at(id)]["v"]; };
      legacy::TfStatsRecord r;
      r.set_rank(static_cast<uint64_t>(v("rank").get<double>()));
      r.set_host_or_device(v("host_or_device").get<std::string>());
      r.set_op_type(v("type").get<std::string>());
      r.set_op_name(v("operation").get<std::string>());
      r.set_occurrences(static_cast<int64_t>(v("occurrences").get<double>()));
      r.set_total_time_in_us(v("total_time").get<double>());
      r.set_avg_time_in_us(v("avg_time").get<double>());
      r.set_total_self_time_in_us(v("total_self_time").get<double>());
      r.set_avg_self_time_in_us(v("avg_self_time").get<double>());
      r.set_device_total_self_time_as_fraction(v("device_total_self_time_percent").get<double>());
      r.set_device_cumulative_total_self_time_as_fraction(v("device_cumulative_total_self_time_percent").get<double>());
      r.set_host_total_self_time_as_fraction(v("host_total_self_time_percent").get<double>());
      r.set_host_cumulative_total_self_time_as_fraction(v("Host_cumulative_total_self_time_percent").get<double>());
      r.set_is_eager(v("eager").get<std::string>() == "Eager");
      bool tc = col.count("gpu_tensorcore_utilization") > 0;
      if (tc) r.set_gpu_tensorcore_utilization(v("gpu_tensorcore_utilization").get<double>());
      CompareRecord(t, fmt::format("{}[{}]", side, i), ours[i], r, tc);
    }
  }
  return t;
}

}  // namespace tfprof::parity
