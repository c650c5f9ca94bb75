#include "tests/parity/steps_parity.h"

#include <fstream>
#include <map>
#include <sstream>

#include "fmt/format.h"
#include "lib/analyze/step_summary.h"
#include "lib/summary/run_summary_combine.h"
#include "nlohmann/json.hpp"
#include "proto/input_pipeline.pb.h"
#include "tests/parity/run_summary.h"

namespace tfprof::parity {
namespace {

// As `steps` runs: the steps alone, the command's options.
StepSummary RunSteps(const std::string& folder, const AnalysisOptions& options) {
  return SummarizeSteps(CombineRunSteps(LoadRun(folder, SummaryPart::kSteps, options)));
}

double Cat(const StepRow& r, Category c) { return r.category_ms[static_cast<size_t>(c)]; }

// The references store ms as exact doubles; we allow 1 us, one unit in the
// last digit we print (and the resolution of TensorFlow's timestamps).
constexpr double kMs = 1e-3;

}  // namespace

Tally CompareStepsWithLegacy(const std::string& folder, const std::string& pb_path) {
  Tally t;
  legacy::InputPipelineAnalysisResult ref;
  if (!ParseReference(t, pb_path, ref)) return t;
  StepSummary ours = RunSteps(folder, {});
  t.Count("steps", static_cast<int64_t>(ours.rows.size()), ref.step_details_size());
  for (int i = 0; i < ref.step_details_size() && i < static_cast<int>(ours.rows.size()); ++i) {
    legacy::PerGenericStepDetails d;
    d.ParseFromString(ref.step_details(i).value());
    const StepRow& o = ours.rows[i];
    const std::string w = fmt::format("step[{}]", i);
    t.Number(w + " step_time_ms", o.step_time_ms, d.step_time_ms(), kMs);
    t.Number(w + " device_compute_ms", Cat(o, Category::kDeviceCompute), d.device_compute_ms(), kMs);
    t.Number(w + " device_to_device_ms", Cat(o, Category::kDeviceToDevice), d.device_to_device_ms(), kMs);
    t.Number(w + " collectives_ms", Cat(o, Category::kDeviceCollectives), d.device_collectives_ms(), kMs);
    t.Number(w + " input_ms", Cat(o, Category::kInput), d.host_wait_input_ms() + d.host_to_device_ms(), kMs);
    t.Number(w + " output_ms", Cat(o, Category::kOutput), d.output_ms(), kMs);
    t.Number(w + " kernel_launch_ms", Cat(o, Category::kKernelLaunch), d.host_prepare_ms(), kMs);
    t.Number(w + " host_compute_ms", Cat(o, Category::kHostCompute), d.host_compute_ms(), kMs);
    t.Number(w + " compile_ms", Cat(o, Category::kCompilation), d.host_compile_ms(), kMs);
    t.Number(w + " all_others_ms", Cat(o, Category::kAllOthers), d.unknown_time_ms(), kMs);
  }
  t.Number("step_time avg", ours.step_time_ms.avg, ref.step_time_summary().average(), kMs);
  t.Number("step_time sdv", ours.step_time_ms.stddev, ref.step_time_summary().standard_deviation(), kMs);
  t.Number("step_time min", ours.step_time_ms.min, ref.step_time_summary().minimum(), kMs);
  t.Number("step_time max", ours.step_time_ms.max, ref.step_time_summary().maximum(), kMs);
  t.Number("input_percent avg", ours.input_percent.avg, ref.input_percent_summary().average(), 0.01);
  return t;
}

Tally CompareStepsWithXprof(const std::string& folder, const std::string& json_path) {
  Tally t;
  nlohmann::json doc;
  if (!ParseJsonReference(t, json_path, doc, [](const nlohmann::json& d) { return d.is_array() && d.size() >= 2; }))
    return t;
  const nlohmann::json& table = doc[1];
  std::map<std::string, size_t> col;
  for (size_t c = 0; c < table["cols"].size(); ++c) col[table["cols"][c]["id"].get<std::string>()] = c;
  StepSummary ours = RunSteps(folder, AnalysisOptions{Compat::kXprof});
  const nlohmann::json& rows = table["rows"];
  t.Count("steps", static_cast<int64_t>(ours.rows.size()), static_cast<int64_t>(rows.size()));
  for (size_t i = 0; i < rows.size() && i < ours.rows.size(); ++i) {
    const nlohmann::json& c = rows[i]["c"];
    auto v = [&](const char* id) { return c[col.at(id)]["v"].get<double>(); };
    const StepRow& o = ours.rows[i];
    const std::string w = fmt::format("step[{}]", i);
    std::string label = c[col.at("stepnum")]["v"].get<std::string>();
    // xprof labels GPU steps by number, CPU steps by name.
    if (label != o.name) t.Text(w + " stepnum", std::to_string(o.number), label);
    else t.Text(w + " stepnum", o.name, label);
    t.Number(w + " step_time_ms", o.step_time_ms, v("stepTimeMs"), kMs);
    t.Number(w + " device_compute_ms", Cat(o, Category::kDeviceCompute), v("deviceComputeTimeMs"), kMs);
    t.Number(w + " device_to_device_ms", Cat(o, Category::kDeviceToDevice), v("deviceToDeviceTimeMs"), kMs);
    t.Number(w + " collectives_ms", Cat(o, Category::kDeviceCollectives), v("deviceCollectivesTimeMs"), kMs);
    t.Number(w + " input_ms", Cat(o, Category::kInput), v("infeedTimeMs"), kMs);
    t.Number(w + " output_ms", Cat(o, Category::kOutput), v("outfeedTimeMs"), kMs);
    t.Number(w + " kernel_launch_ms", Cat(o, Category::kKernelLaunch), v("kernelLaunchTimeMs"), kMs);
    t.Number(w + " host_compute_ms", Cat(o, Category::kHostCompute), v("hostComputeTimeMs"), kMs);
    t.Number(w + " compile_ms", Cat(o, Category::kCompilation), v("compileTimeMs"), kMs);
    t.Number(w + " all_others_ms", Cat(o, Category::kAllOthers), v("otherTimeMs"), kMs);
  }
  return t;
}

}  // namespace tfprof::parity
