// `tfprof-analyze tf-data PATH`: the tf.data bottleneck analysis (which input
// pipeline is slow, which iterator is its bottleneck, what to do) and the
// iterator graph of one pipeline call, also as Graphviz DOT.
#include <algorithm>

#include "lib/analyze/tf_data_pipelines_to_report.h"
#include "lib/model/errors.h"
#include "lib/summary/run_summary_combine.h"
#include "tools/commands.h"

namespace tfprof::cli {
namespace {

class TfData final : public RunReportCommand {
 public:
  TfData()
      : RunReportCommand(
            "tf-data",
            "tf.data bottleneck analysis: slow input pipelines, their bottleneck iterator and the iterator graph",
            SummaryPart::kTfData, /*finds_steps=*/false) {}

 private:
  void AddCommandOptions(CLI::App* cmd) override {
    cmd->add_option("--pipeline", pipeline_,
                    "Which pipeline to draw: <host>/<pipeline>, <pipeline> (e.g. Host:0) or its root iterator id "
                    "(default: the most input-bound)");
    cmd->add_option("--execution", execution_,
                    "Which call of that pipeline to draw: 0 = the slowest (default), 1 = next, ...")
        ->transform(WholeNumber(0, INT64_MAX));
  }
  Report BuildReport(RunSummary& run) override {
    const TfDataAnalysis analysis = CombineRunTfData(run);
    if (analysis.IteratorEvents() == 0)
      throw InputError(options_.path,
                       "no tf.data iterator events in this capture (it did not use tf.data, or the host trace level "
                       "was too low)",
                       kExitUnavailable);
    bool any_pipeline = false;
    for (const TfDataHost& h : analysis.hosts) any_pipeline = any_pipeline || !h.pipelines.empty();
    if (!any_pipeline)
      throw InputError(options_.path,
                       std::to_string(analysis.IteratorEvents()) +
                           " tf.data iterator events but no call of a pipeline's root iterator (Iterator::<name>) was "
                           "captured; capture a longer profile",
                       kExitUnavailable);

    TfDataReportOptions report_options;
    report_options.pipeline = pipeline_;
    report_options.execution = execution_;
    report_options.xprof_ids = run.options.xprof();
    Report report = BuildTfDataReport(analysis, report_options);
    report.lines.insert(report.lines.begin(), "run " + run.run);
    const bool chrome = std::any_of(run.hosts.begin(), run.hosts.end(),
                                    [](const HostPartials& h) { return h.format == CaptureFormat::kChromeTrace; });
    if (chrome)
      report.notes.push_back(
          "Chrome-trace input: the Produce/Consume events that link asynchronous iterators to their producers are "
          "not in trace JSON, so producer-side iterators are missing from the graph and self times lean toward "
          "asynchronous iterators. Analyse the .xplane.pb when there is one.");
    return report;
  }
  void Write(const Report& report) override {
    if (options_.format == "csv" && options_.table.empty()) options_.table = "pipelines";
    Emit(report, options_);
  }

  std::string pipeline_;
  int64_t execution_ = 0;
};

}  // namespace

std::unique_ptr<Command> TfDataCommand() { return std::make_unique<TfData>(); }

}  // namespace tfprof::cli
