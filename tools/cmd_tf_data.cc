// `tfprof-analyze tf-data PATH`: the tf.data bottleneck analysis (which input
// pipeline is slow, which iterator is its bottleneck, what to do) and the
// iterator graph of one pipeline call, also as Graphviz DOT.
#include "lib/summary/tf_data_events_to_pipelines.h"
#include "lib/analyze/tf_data_pipelines_to_report.h"
#include "lib/model/errors.h"
#include "tools/cli_common.h"
#include "tools/commands.h"

namespace tfprof::cli {

namespace {

struct TfDataCliOptions {
  std::string pipeline;
  int64_t execution = 0;
};

void Run(CommonOptions options, const TfDataCliOptions& t) {
  if (MaybeListRuns(options)) return;
  TfDataOptions analysis_options;
  // --compat xprof reads iterator ids as xprof does (and, through
  // discovery, reads byte-identical host files twice, as xprof does).
  analysis_options.xprof_ids = options.compat == "xprof";
  Diagnostics diagnostics;
  TfDataAnalysis analysis;
  bool chrome = false;
  LoadResult loaded = ForEachHost(options, [&](Host& host) {
    chrome = chrome || host.format == CaptureFormat::kChromeTrace;
    CombineTfData(analysis, SummarizeTfData(host, analysis_options, diagnostics));
  });
  FinalizeTfData(analysis);

  if (analysis.IteratorEvents() == 0)
    throw InputError(options.path,
                     "no tf.data iterator events in this capture (it did not use tf.data, or the host trace level "
                     "was too low)",
                     kExitUnavailable);
  bool any_pipeline = false;
  for (const TfDataHost& h : analysis.hosts) any_pipeline = any_pipeline || !h.pipelines.empty();
  if (!any_pipeline)
    throw InputError(options.path,
                     std::to_string(analysis.IteratorEvents()) +
                         " tf.data iterator events but no call of a pipeline's root iterator (Iterator::<name>) was "
                         "captured; capture a longer profile",
                     kExitUnavailable);

  TfDataReportOptions report_options;
  report_options.pipeline = t.pipeline;
  report_options.execution = t.execution;
  report_options.xprof_ids = analysis_options.xprof_ids;
  Report report = BuildTfDataReport(analysis, report_options);
  report.lines.insert(report.lines.begin(), "run " + loaded.input.selected.name);
  if (chrome)
    report.notes.push_back(
        "Chrome-trace input: the Produce/Consume events that link asynchronous iterators to their producers are "
        "not in trace JSON, so producer-side iterators are missing from the graph and self times lean toward "
        "asynchronous iterators. Analyse the .xplane.pb when there is one.");
  report.diagnostics.Merge(loaded.diagnostics);
  report.diagnostics.Merge(diagnostics);

  if (options.format == "csv" && options.table.empty()) options.table = "pipelines";
  Emit(report, options);
}

void Register(CLI::App& app, std::function<void()>& action) {
  static CommonOptions options;
  static TfDataCliOptions t;
  CLI::App* cmd = app.add_subcommand(
      "tf-data", "tf.data bottleneck analysis: slow input pipelines, their bottleneck iterator and the iterator graph");
  AddCommonOptions(cmd, options);
  cmd->add_option("--pipeline", t.pipeline,
                  "Which pipeline to draw: <host>/<pipeline>, <pipeline> (e.g. Host:0) or its root iterator id "
                  "(default: the most input-bound)");
  cmd->add_option("--execution", t.execution, "Which call of that pipeline to draw: 0 = the slowest (default), 1 = next, ...")
      ->transform(WholeNumber(0, INT64_MAX));
  cmd->callback([&action] { action = [] { Run(options, t); }; });
}

const CommandRegistration kTfData(70, Register);

}  // namespace

}  // namespace tfprof::cli
