#include "tests/parity/overview_parity.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "fmt/format.h"
#include "lib/analyze/overview_analysis.h"
#include "nlohmann/json.hpp"
#include "proto/input_pipeline.pb.h"
#include "proto/overview_page.pb.h"
#include "tests/parity/run_summary.h"

namespace tfprof::parity {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// As `overview` runs: ops with eager marks and steps, the command's options.
Overview RunOverview(const std::string& folder, const AnalysisOptions& options) {
  return RunSummaryToOverview(
      LoadRun(folder, SummaryPart::kOps | SummaryPart::kEagerMarks | SummaryPart::kSteps, options));
}

// "14.4%" as the reference prints percentages in its properties.
std::string Pct(double v) { return fmt::format("{:.1f}%", v); }

// TensorFlow links "tf.function." in its eager statement; ours is plain text.
std::string WithoutLinks(std::string html) {
  for (size_t a; (a = html.find("<a ")) != std::string::npos;) {
    size_t b = html.find('>', a);
    if (b == std::string::npos) break;
    html.erase(a, b - a + 1);
  }
  for (size_t a; (a = html.find("</a>")) != std::string::npos;) html.erase(a, 4);
  return html;
}

}  // namespace

Tally CompareOverviewWithLegacy(const std::string& folder, const std::string& pb_path) {
  Tally t;
  legacy::OverviewPage ref;
  if (!ref.ParseFromString(Slurp(pb_path))) {
    t.Text("parse " + pb_path, "ok", "failed");
    return t;
  }
  Overview o = RunOverview(folder, AnalysisOptions{Compat::kTfLegacy});
  const auto& a = ref.analysis();
  t.Number("host_tf_op_percent", o.placement.host_percent(), a.host_tf_op_percent(), 0.05);
  t.Number("device_tf_op_percent", o.placement.device_percent(), a.device_tf_op_percent(), 0.05);
  t.Number("compute_16bit_percent", o.compute_16bit_percent, a.device_compute_16bit_percent(), 0.05);
  t.Number("compute_32bit_percent", o.compute_32bit_percent, a.device_compute_32bit_percent(), 0.05);
  // Stored unrounded: 0.1% relative or 1e-6.
  t.Number("host_op_time_eager_percent", o.host_eager_percent, a.host_op_time_eager_percent(), 1e-6);
  t.Number("device_op_time_eager_percent", o.device_eager_percent, a.device_op_time_eager_percent(), 1e-6);
  t.Count("top_device_ops", static_cast<int64_t>(o.top_device_ops.size()), a.top_device_ops_size());
  for (int i = 0; i < a.top_device_ops_size() && i < static_cast<int>(o.top_device_ops.size()); ++i) {
    const auto& r = a.top_device_ops(i);
    const TopDeviceOp& x = o.top_device_ops[i];
    const std::string w = fmt::format("top[{}]", i);
    t.Text(w + " name", x.name, r.name());
    t.Text(w + " category", x.category, r.category());
    t.Number(w + " self_fraction", x.self_fraction, r.self_time_fraction(), 1e-6);
    t.Number(w + " cumulative", x.cumulative_fraction, r.cumulative_time_fraction(), 1e-6);
    t.Flag(w + " tc_eligible", x.tensor_core_eligible, r.is_op_tensorcore_eligible());
    t.Flag(w + " tc_used", x.uses_tensor_core, r.is_op_using_tensorcore());
  }
  const auto& rec = ref.recommendation();
  t.Text("bottleneck", o.bottleneck.input_classification, rec.bottleneck());
  t.Text("statement", o.bottleneck.input_statement, rec.statement());
  legacy::GenericRecommendation g;
  g.ParseFromString(rec.recommendation().value());
  t.Text("kernel_launch_bottleneck", o.bottleneck.kernel_launch_classification, g.kernel_launch_bottleneck());
  t.Text("kernel_launch_statement", o.bottleneck.kernel_launch_statement, g.kernel_launch_statement());
  t.Text("all_other_bottleneck", o.bottleneck.all_other_classification, g.all_other_bottleneck());
  t.Text("all_other_statement", o.bottleneck.all_other_statement, g.all_other_statement());
  t.Text("precision_statement", o.precision_statement, g.precision_statement());
  t.Text("eager_statement", o.eager_statement, WithoutLinks(rec.eager_statement_html()));
  const auto& in = ref.input_analysis();
  t.Text("summary_next_step", o.summary_next_step, WithoutLinks(in.recommendation().summary_next_step()));
  // The input-pipeline page TensorFlow wrote beside it says the same.
  const std::string overview_suffix = ".overview_page.pb";
  if (pb_path.size() > overview_suffix.size() &&
      pb_path.compare(pb_path.size() - overview_suffix.size(), overview_suffix.size(), overview_suffix) == 0) {
    const std::string ip = pb_path.substr(0, pb_path.size() - overview_suffix.size()) + ".input_pipeline.pb";
    if (legacy::InputPipelineAnalysisResult pipeline;
        std::filesystem::exists(ip) && pipeline.ParseFromString(Slurp(ip)))
      t.Text("input_pipeline summary_next_step", o.summary_next_step,
             WithoutLinks(pipeline.recommendation().summary_next_step()));
  }
  t.Count("input_ops", static_cast<int64_t>(o.input.ops.size()), in.input_op_details_size());
  for (int i = 0; i < in.input_op_details_size() && i < static_cast<int>(o.input.ops.size()); ++i) {
    const auto& r = in.input_op_details(i);
    const InputOp& x = o.input.ops[i];
    const std::string w = fmt::format("input_op[{}]", i);
    t.Text(w + " name", x.name, r.op_name());
    t.Count(w + " count", static_cast<int64_t>(x.count), static_cast<int64_t>(r.count()));
    t.Number(w + " time_ms", x.time_ms, r.time_in_ms(), 1e-6);
    t.Number(w + " self_ms", x.self_time_ms, r.self_time_in_ms(), 1e-6);
    t.Number(w + " time_percent", x.time_fraction * 100, r.time_in_percent(), 1e-4);
    t.Number(w + " self_percent", x.self_time_fraction * 100, r.self_time_in_percent(), 1e-4);
    t.Text(w + " category", std::string(InputOpCategoryName(x.category)), r.category());
  }
  const auto& b = in.input_time_breakdown();
  t.Number("enqueue_us", o.input.breakdown.enqueue_us, b.enqueue_us(), 0.001);
  t.Number("demanded_file_read_us", o.input.breakdown.demanded_file_read_us, b.demanded_file_read_us(), 0.001);
  t.Number("advanced_file_read_us", o.input.breakdown.advanced_file_read_us, b.advanced_file_read_us(), 0.001);
  t.Number("preprocessing_us", o.input.breakdown.preprocessing_us, b.preprocessing_us(), 0.001);
  t.Number("unclassified_us", o.input.breakdown.unclassified_non_enqueue_us, b.unclassified_non_enqueue_us(), 0.001);
  t.Count("host_count", static_cast<int64_t>(o.env.hosts.size()), ref.run_environment().host_count());
  t.Text("device_type", o.env.device_type, ref.run_environment().device_type());
  t.Count("device_core_count", o.env.device_core_count, ref.run_environment().device_core_count());
  return t;
}

Tally CompareOverviewWithXprof(const std::string& folder, const std::string& json_path) {
  Tally t;
  nlohmann::json doc = nlohmann::json::parse(Slurp(json_path), nullptr, false);
  if (!doc.is_array() || doc.size() < 4) {
    t.Text("parse " + json_path, "ok", "failed");
    return t;
  }
  Overview o = RunOverview(folder, AnalysisOptions{Compat::kXprof});
  const nlohmann::json& a = doc[0];
  auto prop = [](const nlohmann::json& table, const char* key) -> std::string {
    return table.contains("p") && table["p"].contains(key) ? table["p"][key].get<std::string>() : "";
  };
  t.Text("host_tf_op_percent", Pct(o.placement.host_percent()), prop(a, "host_tf_op_percent"));
  t.Text("device_tf_op_percent", Pct(o.placement.device_percent()), prop(a, "device_tf_op_percent"));
  // xprof's JSON carries the percentages, not the eager statement.
  t.Text("host_op_time_eager_percent", Pct(o.host_eager_percent), prop(a, "host_op_time_eager_percent"));
  t.Text("device_op_time_eager_percent", Pct(o.device_eager_percent), prop(a, "device_op_time_eager_percent"));
  if (a["p"].contains("device_compute_16bit_percent")) {
    t.Text("compute_16bit_percent", Pct(o.compute_16bit_percent), prop(a, "device_compute_16bit_percent"));
    t.Text("compute_32bit_percent", Pct(o.compute_32bit_percent), prop(a, "device_compute_32bit_percent"));
  }
  std::map<std::string, size_t> col;
  for (size_t c = 0; c < a["cols"].size(); ++c) col[a["cols"][c]["id"].get<std::string>()] = c;
  t.Count("top_device_ops", static_cast<int64_t>(o.top_device_ops.size()), static_cast<int64_t>(a["rows"].size()));
  for (size_t i = 0; i < a["rows"].size() && i < o.top_device_ops.size(); ++i) {
    const nlohmann::json& c = a["rows"][i]["c"];
    const TopDeviceOp& x = o.top_device_ops[i];
    const std::string w = fmt::format("top[{}]", i);
    t.Text(w + " name", x.name, c[col.at("operation")]["v"].get<std::string>());
    t.Text(w + " category", x.category, c[col.at("category")]["v"].get<std::string>());
    t.Number(w + " self_fraction", x.self_fraction, c[col.at("selfTimePercent")]["v"].get<double>(), 1e-6);
  }
  // The input-pipeline next step, shared by the overview and input-pipeline
  // pages; xprof links "the tf.data API", ours is plain text.
  t.Text("summary_next_step", o.summary_next_step, WithoutLinks(prop(doc[1], "summary_nextstep")));
  const std::string ip = (std::filesystem::path(json_path).parent_path() / "input_pipeline_analyzer.json").string();
  if (nlohmann::json pipeline = nlohmann::json::parse(Slurp(ip), nullptr, false); pipeline.is_array())
    for (const nlohmann::json& table : pipeline)
      if (table.contains("p") && table["p"].contains("summary_nextstep"))
        t.Text("input_pipeline summary_next_step", o.summary_next_step, WithoutLinks(prop(table, "summary_nextstep")));
  const nlohmann::json& rec = doc[3];
  t.Text("bottleneck", o.bottleneck.input_classification, prop(rec, "bottleneck"));
  t.Text("statement", o.bottleneck.input_statement, prop(rec, "statement"));
  t.Text("kernel_launch_bottleneck", o.bottleneck.kernel_launch_classification, prop(rec, "kernel_launch_bottleneck"));
  t.Text("kernel_launch_statement", o.bottleneck.kernel_launch_statement, prop(rec, "kernel_launch_statement"));
  t.Text("all_other_bottleneck", o.bottleneck.all_other_classification, prop(rec, "all_other_bottleneck"));
  t.Text("all_other_statement", o.bottleneck.all_other_statement, prop(rec, "all_other_statement"));
  t.Text("precision_statement", o.precision_statement, prop(rec, "precision_statement"));
  const nlohmann::json& env = doc[2];
  t.Text("host_count", std::to_string(o.env.hostnames.size()), prop(env, "host_count"));
  t.Text("device_type", o.env.device_type, prop(env, "device_type"));
  t.Text("device_core_count", std::to_string(o.env.device_core_count), prop(env, "device_core_count"));
  return t;
}

}  // namespace tfprof::parity
