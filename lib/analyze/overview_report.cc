#include "lib/analyze/overview_report.h"

#include <cmath>

#include "fmt/format.h"
#include "lib/analyze/pytorch_advice.h"

namespace tfprof {
namespace {

constexpr Category kShown[] = {Category::kDeviceCompute, Category::kDeviceToDevice, Category::kDeviceCollectives,
                               Category::kInput,         Category::kOutput,         Category::kKernelLaunch,
                               Category::kHostCompute,   Category::kCompilation,    Category::kAllOthers};

std::string Headline(const Overview& o, const std::string& run) {
  std::string hosts;
  for (const std::string& h : o.env.hosts) hosts += (hosts.empty() ? "" : ", ") + h;
  std::string device =
      o.env.has_device()    ? fmt::format("{} GPU{} ({}{})", o.env.device_core_count,
                                       o.env.device_core_count == 1 ? "" : "s", o.env.device_type,
                                          // CUDA's sm_XY; another vendor's compute capability
                                          // (AMD: gfx9.4 is no sm_94).
                                       !o.env.first_device.compute_cap_major ? ""
                                          : o.env.first_device.vendor == "Nvidia" || o.env.first_device.vendor.empty()
                                              ? fmt::format(", sm_{}{}", o.env.first_device.compute_cap_major,
                                                            o.env.first_device.compute_cap_minor)
                                              : fmt::format(", cc {}.{}", o.env.first_device.compute_cap_major,
                                                            o.env.first_device.compute_cap_minor))
         : o.env.tpu_count > 0 ? fmt::format("{} TPU{} (not analysed)", o.env.tpu_count, o.env.tpu_count == 1 ? "" : "s")
      : o.env.untraced_gpus > 0 ? fmt::format("no GPU activity traced ({} GPU{} listed)", o.env.untraced_gpus,
                                              o.env.untraced_gpus == 1 ? "" : "s")
                                : "CPU only";
  return fmt::format("run {} · {} host{} ({}) · {} · {} step{} profiled", run, o.env.hosts.size(),
                     o.env.hosts.size() == 1 ? "" : "s", hosts, device, o.steps.rows.size(),
                     o.steps.rows.size() == 1 ? "" : "s");
}

void AddBreakdown(const Overview& o, Report& r) {
  Table t{"step_time_breakdown", "Step-time breakdown (average per step)", {}, {}};
  t.Add({"category", "category"})
      .Add({"avg_ms", "avg ms", ColumnType::kDouble, 3}, "ms")
      .Add({"stddev_ms", "σ ms", ColumnType::kDouble, 3}, "ms")
      .Add({"percent", "% of step", ColumnType::kDouble, 1}, "%")
      .Add({"bar", "", ColumnType::kString, 0, 0, "", false, /*terminal_only=*/true});
  if (o.steps.rows.empty()) {  // No steps: no breakdown, rather than zeros.
    r.tables.push_back(std::move(t));
    return;
  }
  t.AddRow()
      .Set("category", std::string("Step time"))
      .Set("avg_ms", o.steps.step_time_ms.avg)
      .Set("stddev_ms", o.steps.step_time_ms.stddev)
      .Set("percent", 100.0)
      .Set("bar", std::string());
  std::vector<Category> order(std::begin(kShown), std::end(kShown));
  std::stable_sort(order.begin(), order.end(), [&](Category a, Category b) {
    return o.steps.category_ms[static_cast<size_t>(a)].avg > o.steps.category_ms[static_cast<size_t>(b)].avg;
  });
  for (Category c : order) {
    const Stats& s = o.steps.category_ms[static_cast<size_t>(c)];
    const double pct = o.steps.category_percent[static_cast<size_t>(c)];
    t.AddRow()
        .Set("category", std::string(CategoryName(c)))
        .Set("avg_ms", s.avg)
        .Set("stddev_ms", s.stddev)
        .Set("percent", pct)
        .Set("bar", Bar(pct / 100, 30));
  }
  r.tables.push_back(std::move(t));
}

void AddSummary(const Overview& o, Report& r) {
  Table t{"summary", "Summary", {}, {}};
  t.Add({"metric", "metric"}).Add({"value", "value", ColumnType::kDouble, 3}).Add({"unit", "unit"});
  auto row = [&](std::string k, double v, std::string unit) {
    t.AddRow().Set("metric", std::move(k)).Set("value", v).Set("unit", std::move(unit));
  };
  row("steps", static_cast<double>(o.steps.rows.size()), "count");
  row("step_time_avg", o.steps.step_time_ms.avg, "ms");
  row("step_time_stddev", o.steps.step_time_ms.stddev, "ms");
  row("step_time_min", o.steps.step_time_ms.min, "ms");
  row("step_time_max", o.steps.step_time_ms.max, "ms");
  for (Category c : kShown) {
    row(std::string(CategoryKey(c)) + "_avg", o.steps.category_ms[static_cast<size_t>(c)].avg, "ms");
    row(std::string(CategoryKey(c)) + "_percent", o.steps.category_percent[static_cast<size_t>(c)], "%");
  }
  row("device_compute_16bit_percent", o.compute_16bit_percent, "%");
  row("device_compute_32bit_percent", o.compute_32bit_percent, "%");
  if (o.env.pytorch()) {
    row("device_compute_8bit_percent", o.compute_8bit_percent, "%");
    row("device_compute_unknown_precision_percent", o.compute_unknown_precision_percent, "%");
    row("tensor_core_eligible_unused_percent", o.tensor_core_eligible_unused_percent, "%");
  }
  row("host_tf_op_percent", o.placement.host_percent(), "%");
  row("device_tf_op_percent", o.placement.device_percent(), "%");
  if (!o.env.pytorch()) {  // Eager execution is TensorFlow's notion.
    row("host_op_time_eager_percent", o.host_eager_percent, "%");
    row("device_op_time_eager_percent", o.device_eager_percent, "%");
  }
  row("idle_percent", o.bottleneck.idle_percent, "%");
  r.tables.push_back(std::move(t));
}

void AddTopOps(const Overview& o, Report& r) {
  Table t{"top_device_ops", "Top device ops by self time", {}, {}};
  t.Add({"rank", "rank", ColumnType::kInt})
      .Add({"op_name", "operation", ColumnType::kString, 0, 56})
      .Add({"category", "type", ColumnType::kString, 0, 24})
      .Add({"self_time_fraction", "self", ColumnType::kDouble, 6, 0, "", true}, "fraction")
      .Add({"cumulative_time_fraction", "cumulative", ColumnType::kDouble, 6, 0, "", true}, "fraction")
      .Add({"tensor_core_eligible", "TC eligible", ColumnType::kBool})
      .Add({"uses_tensor_core", "uses TC", ColumnType::kBool});
  int64_t rank = 0;
  for (const TopDeviceOp& op : o.top_device_ops)
    t.AddRow()
        .Set("rank", ++rank)
        .Set("op_name", op.name)
        .Set("category", op.category)
        .Set("self_time_fraction", op.self_fraction)
        .Set("cumulative_time_fraction", op.cumulative_fraction)
        .Set("tensor_core_eligible", op.tensor_core_eligible)
        .Set("uses_tensor_core", op.uses_tensor_core);
  r.tables.push_back(std::move(t));
}

void AddEnvironment(const Overview& o, Report& r) {
  Table t{"run_environment", "Run environment", {}, {}};
  t.Add({"host_count", "hosts", ColumnType::kInt}, "count")
      .Add({"device_type", "device type"})
      .Add({"device_core_count", "devices", ColumnType::kInt}, "count")
      .Add({"device_name", "device"})
      .Add({"compute_capability", "cc"});
  const DeviceProperties& d = o.env.first_device;
  t.AddRow()
      .Set("host_count", static_cast<int64_t>(o.env.hosts.size()))
      .Set("device_type", !o.env.has_device() && o.env.tpu_count > 0 ? "TPU (not analysed)" : o.env.device_type)
      .Set("device_core_count", static_cast<int64_t>(o.env.has_device() ? o.env.device_core_count : o.env.tpu_count))
      .Set("device_name", d.name)
      .Set("compute_capability",
           d.compute_cap_major ? fmt::format("{}.{}", d.compute_cap_major, d.compute_cap_minor) : std::string());
  r.tables.push_back(std::move(t));
}

void AddRecommendations(const Overview& o, Report& r) {
  Table t{"recommendation", "Recommendation", {}, {}};
  t.Add({"topic", "topic"}).Add({"classification", "level"}).Add({"statement", "statement"});
  auto add = [&t](const char* topic, const std::string& classification, const std::string& statement) {
    t.AddRow().Set("topic", std::string(topic)).Set("classification", classification).Set("statement", statement);
  };
  const Bottleneck& b = o.bottleneck;
  add("input", b.input_classification, b.input_statement);
  add("kernel_launch", b.kernel_launch_classification, b.kernel_launch_statement);
  add("all_others", b.all_other_classification, b.all_other_statement);
  add("device_collectives", b.collectives_classification, b.collectives_statement);
  add("precision", o.precision_level, o.precision_statement);
  if (o.env.pytorch()) {
    add("tensor_cores", o.tensor_core_statement.empty() ? "no" : "eligible_unused", o.tensor_core_statement);
    add("compilation", o.compilation_statement.empty() ? "no" : "high", o.compilation_statement);
  } else add("eager", o.eager_statement.empty() ? "no" : "high", o.eager_statement);
  t.detail = true;
  r.tables.push_back(std::move(t));
}

}  // namespace

std::string Bar(double fraction, int width) {
  static const char* kEighths[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
  const double cells = std::clamp(fraction, 0.0, 1.0) * width;
  const int full = static_cast<int>(cells);
  const int eighth = static_cast<int>(std::round((cells - full) * 8));
  std::string s;
  for (int i = 0; i < full; ++i) s += "█";
  if (eighth == 8) s += "█";
  else s += kEighths[eighth];
  return s;
}

Report BuildOverviewReport(const Overview& o, const std::string& run) {
  Report r;
  r.command = "overview";
  r.lines.push_back(Headline(o, run));
  const Bottleneck& b = o.bottleneck;
  r.lines.push_back("verdict: " + b.verdict);
  r.lines.push_back(b.input_statement);
  for (const std::string& w : o.warnings) r.lines.push_back(w);
  if (!o.compilation_statement.empty()) r.lines.push_back(o.compilation_statement);
  if (!b.kernel_launch_statement.empty()) r.lines.push_back(b.kernel_launch_statement);
  if (!b.all_other_statement.empty()) r.lines.push_back(b.all_other_statement);
  if (!b.collectives_statement.empty()) r.lines.push_back(b.collectives_statement);
  if (!o.precision_statement.empty()) r.lines.push_back(o.precision_statement);
  if (!o.tensor_core_statement.empty()) r.lines.push_back(o.tensor_core_statement);
  if (!o.eager_statement.empty()) r.lines.push_back(o.eager_statement);
  if (!o.steps.rows.empty())
    r.lines.push_back(fmt::format("step time {:.2f} ms (σ {:.2f} · min {:.2f} · max {:.2f})", o.steps.step_time_ms.avg,
                                  o.steps.step_time_ms.stddev, o.steps.step_time_ms.min, o.steps.step_time_ms.max));
  if (o.placement.host_op_executions + o.placement.device_op_executions == 0) {
    r.lines.push_back(o.env.pytorch()
                          ? "op placement: no PyTorch op executions found (the trace has no cpu_op events "
                            "and no kernels)"
                          : "op placement: no TensorFlow op executions found (eager ops run through "
                            "EagerExecute are not TF op events, and JAX/XLA device ops need the HLO protos)");
  } else if (o.env.pytorch()) {
    r.lines.push_back(fmt::format("op placement: host {:.1f}% · device {:.1f}% of op executions",
                                  o.placement.host_percent(), o.placement.device_percent()));
  } else {
    r.lines.push_back(fmt::format("op placement: host {:.1f}% · device {:.1f}% of TF op executions",
                                  o.placement.host_percent(), o.placement.device_percent()));
    r.lines.push_back(
        fmt::format("eager execution (op by op, outside tf.function): host {:.1f}% · device {:.1f}% of op "
                    "self time",
                    o.host_eager_percent, o.device_eager_percent));
  }
  // No share to give, rather than zeros: TensorFlow's shares are of the
  // steps' device compute (no steps, or their kernels ran outside them);
  // PyTorch's of every kernel but collectives.
  const bool no_compute = o.compute_8bit_percent + o.compute_16bit_percent + o.compute_32bit_percent +
                              o.compute_unknown_precision_percent ==
                          0;
  if (o.env.has_device() && no_compute)
    r.lines.push_back(o.env.pytorch()        ? "device compute precision: n/a (no kernels but collectives)"
                      : o.steps.rows.empty() ? "device compute precision: n/a (no steps)"
                                             : "device compute precision: n/a (no device compute in the steps)");
  else if (o.env.has_device() && o.env.pytorch())
    r.lines.push_back(fmt::format(
        "device compute precision: {:.1f}% 8-bit · {:.1f}% 16-bit · {:.1f}% 32-bit · {:.1f}% "
        "unknown",
        o.compute_8bit_percent, o.compute_16bit_percent, o.compute_32bit_percent, o.compute_unknown_precision_percent));
  else if (o.env.has_device())
    r.lines.push_back(fmt::format("device compute precision: {:.1f}% 16-bit · {:.1f}% 32-bit", o.compute_16bit_percent,
                                  o.compute_32bit_percent));
  AddBreakdown(o, r);
  if (o.env.has_device()) AddTopOps(o, r);
  AddEnvironment(o, r);
  AddSummary(o, r);
  r.tables.back().detail = true;
  AddRecommendations(o, r);
  if (!o.steps.intersection_note.empty()) r.notes.push_back(o.steps.intersection_note);
  if (!o.steps.note.empty()) r.notes.push_back(o.steps.note);
  return r;
}

Report BuildInputPipelineReport(const Overview& o, const std::string& run) {
  Report r;
  r.command = "input-pipeline";
  r.lines.push_back(Headline(o, run));
  r.lines.push_back(o.bottleneck.input_statement);
  r.lines.push_back(o.summary_next_step);
  const StepSummary& s = o.steps;
  const Stats& in = s.category_ms[static_cast<size_t>(Category::kInput)];
  if (!s.rows.empty())
    r.lines.push_back(
        fmt::format("device waits for input {:.3f} ms per step on average (σ {:.3f} · min {:.3f} · max {:.3f}); "
                    "{:.1f}% of step time on average",
                    in.avg, in.stddev, in.min, in.max, s.input_percent.avg));

  Table steps{"input_per_step", "Device side: wait for input per step", {}, {}};
  steps.Add({"step", "step", ColumnType::kString, 0, 24})
      .Add({"step_time_ms", "step ms", ColumnType::kDouble, 3}, "ms")
      .Add({"input_ms", "input ms", ColumnType::kDouble, 3}, "ms")
      .Add({"input_percent", "input %", ColumnType::kDouble, 1}, "%")
      .Add({"bar", "", ColumnType::kString, 0, 0, "", false, true});
  for (const StepRow& row : s.rows)
    steps.AddRow()
        .Set("step", row.name)
        .Set("step_time_ms", row.step_time_ms)
        .Set("input_ms", row.category_ms[static_cast<size_t>(Category::kInput)])
        .Set("input_percent", row.input_percent)
        .Set("bar", Bar(row.input_percent / 100, 20));

  Table ops{"input_ops", "Host side: input ops (by self time)", {}, {}};
  ops.Add({"op_name", "input op", ColumnType::kString, 0, 64, "Input Op"})
      .Add({"count", "count", ColumnType::kInt, 0, 0, "Count"}, "count")
      .Add({"time_ms", "total ms", ColumnType::kDouble, 3, 0, "Total Time (in ms)"}, "ms")
      .Add({"time_fraction", "total", ColumnType::kDouble, 6, 0, "Total Time (as % of total input-processing time)",
            true},
           "fraction")
      .Add({"self_time_ms", "self ms", ColumnType::kDouble, 3, 0, "Total Self Time (in ms)"}, "ms")
      .Add({"self_time_fraction", "self", ColumnType::kDouble, 6, 0,
            "Total Self Time (as % of total input-processing time)", true},
           "fraction")
      .Add({"category", "category", ColumnType::kString, 0, 0, "Category"});
  for (const InputOp& op : o.input.ops)
    ops.AddRow()
        .Set("op_name", op.name)
        .Set("count", static_cast<int64_t>(op.count))
        .Set("time_ms", op.time_ms)
        .Set("time_fraction", op.time_fraction)
        .Set("self_time_ms", op.self_time_ms)
        .Set("self_time_fraction", op.self_time_fraction)
        .Set("category", std::string(InputOpCategoryName(op.category)));

  Table br{"input_time_breakdown", "Host side: input time breakdown", {}, {}};
  br.Add({"category", "category"}).Add({"time_us", "us", ColumnType::kDouble, 3}, "us");
  const InputTimeBreakdown& b = o.input.breakdown;
  br.AddRow().Set("category", std::string("Enqueue")).Set("time_us", b.enqueue_us);
  br.AddRow().Set("category", std::string("Demanded file read")).Set("time_us", b.demanded_file_read_us);
  br.AddRow().Set("category", std::string("Advanced file read")).Set("time_us", b.advanced_file_read_us);
  br.AddRow().Set("category", std::string("Preprocessing")).Set("time_us", b.preprocessing_us);
  br.AddRow().Set("category", std::string("Unclassified (non-enqueue)")).Set("time_us", b.unclassified_non_enqueue_us);

  r.tables = {std::move(steps), std::move(ops), std::move(br)};
  if (o.env.pytorch())
    r.notes.push_back(PyTorchInputAdvice() +
                      " (PyTorch has no tf.data ops: the host-side tables show the DataLoader's fetches, in the "
                      "training process or from its workers, and the host-to-device copies, each whole and over the "
                      "whole trace.)");
  else
    r.notes.push_back(
        "Recommendations: enqueuing data on the host: use more host threads or a faster host; preprocessing: "
        "parallelize it (num_parallel_calls in map), cache it, or do it offline; reading files in advance: "
        "prefetch, interleave reads, use a larger buffer; reading files on demand: read ahead with prefetch "
        "and interleave; other input code: move it into tf.data.");
  for (const std::string& w : o.warnings) r.notes.push_back(w);
  if (!o.steps.note.empty()) r.notes.push_back(o.steps.note);
  return r;
}

}  // namespace tfprof
