// `tfprof-analyze report PATH -o report.html`: every analysis of the run on
// one self-contained HTML page (lib/render/render_html.h, docs/report.md).
// Each section is the report of the command of that name, made with that
// command's own options from one summary of the run.
#include <algorithm>
#include <cstring>
#include <deque>

#include "lib/advise/advice_diff.h"
#include "lib/analyze/metrics_report.h"
#include "lib/model/errors.h"
#include "lib/render/render_html.h"
#include "lib/summary/analysed_event_stats.h"
#include "lib/summary/run_summary_combine.h"
#include "lib/summary/run_summary_file.h"
#include "tools/commands.h"
#include "tools/run_summary_loader.h"

namespace tfprof::cli {
namespace {

struct SectionSpec {
  const char* id;
  const char* title;
  const char* command;
  std::vector<std::string> args;  // The command's own options for the page.
};

const std::vector<SectionSpec>& Sections() {
  static const std::vector<SectionSpec> kSections = {
      {"advise", "Findings (the performance guide's checklist)", "advise", {}},
      {"overview", "Overview", "overview", {}},
      {"steps", "Step-time graph", "steps", {}},
      {"hosts", "Hosts", "hosts", {}},
      {"input-pipeline", "Input pipeline", "input-pipeline", {}},
      {"op-stats", "TensorFlow ops (top 50 per side)", "op-stats", {"--top", "50"}},
      {"placement", "Placement", "placement", {}},
      {"kernel-stats", "GPU kernels (top 50)", "kernel-stats", {"--top", "50"}},
      {"memory", "Memory profile", "memory", {"--timeline"}},
      {"tf-data", "tf.data", "tf-data", {}},
  };
  return kSections;
}

class HtmlReport final : public Command {
 public:
  HtmlReport()
      : Command("report",
                "Every analysis of the run on one self-contained HTML page (charts as inline SVG; no network, opens "
                "offline)") {}

  void AddOptions(CLI::App* cmd) override {
    cmd->add_option("paths", paths_,
                    "Logdir, run folder, capture file, or run summary; two of them (BASE NEW) for a page of what "
                    "changed, then both runs' overview and steps")
        ->required()
        ->expected(1, 2);
    AddOutputOption(cmd, "--output,-o", o_.output, "The HTML file to write ('-': standard output)")->required();
    cmd->add_option("--host", o_.host, "Only this host of a multi-host run (its name, or rank<N>)");
    cmd->add_option("--run", o_.run, "Which run of a logdir (default: the newest)");
    cmd->add_option("--compat", o_.compat, "As for the analysis commands")
        ->check(CLI::IsMember({"xprof", "tf-legacy"}));
    AddReadLimitOptions(cmd, o_);
    AddStepOptions(cmd, o_);
  }

  void Run() override {
    const SummaryParts all = SummaryParts::All();
    std::vector<RunSummary> runs;
    for (const std::string& path : paths_) {
      CommonOptions side = o_;
      side.path = path;
      runs.push_back(
          LoadRunSummary(side, all, EventStatsFor(all, AnalysisOptionsFrom(side)), {}, {}, kMemoryTimelinePoints));
    }
    std::string title = "tfprof-analyze report: run " + runs.front().run;
    if (runs.size() == 2) {
      title = "tfprof-analyze report: " + paths_[0] + " → " + paths_[1];
      const RunAnalysis base = RunSummaryToMetrics(runs[0]), next = RunSummaryToMetrics(runs[1]);
      Report diff = BuildDiffReport(DiffRuns(base, next, runs[0].options), {paths_[0], paths_[1], 20});
      AddFindingsDiff(runs[0], runs[1], diff, &base, &next);
      reports_.push_back(std::move(diff));
      sections_.push_back({"changes", "What changed (new against base)", nullptr, ""});
      // Each analysis of the two runs one after the other.
      for (const char* command : {"advise", "overview", "steps"})
        for (size_t i = 0; i < runs.size(); ++i) {
          const std::string side = i == 0 ? "base" : "new";
          AddSections(runs[i], paths_[i], side + "-", side + ": ", {command});
        }
    } else {
      AddSections(runs.front(), paths_.front(), "", "", {});
    }
    Report diagnostics;
    diagnostics.command = "diagnostics";
    for (const RunSummary& run : runs) diagnostics.diagnostics.Merge(RunDiagnostics(run, all));
    diagnostics.lines.push_back(diagnostics.diagnostics.Entries().empty()
                                    ? "Reading and analysing met nothing to report."
                                    : "What reading and analysing the runs met (the text views' diagnostics).");
    reports_.push_back(std::move(diagnostics));
    sections_.push_back({"diagnostics", "Diagnostics", nullptr, ""});
    // Sections point at their reports once no more are added.
    for (size_t i = 0, r = 0; i < sections_.size(); ++i)
      if (sections_[i].unavailable.empty()) sections_[i].report = &reports_[r++];
    WriteOutput(o_.output == "-" ? "" : o_.output, [&](std::ostream& out) { RenderHtmlPage(title, sections_, out); });
  }

 private:
  // The sections of one run (`only`: these commands; empty: all).
  void AddSections(RunSummary& run, const std::string& path, const std::string& id_prefix,
                   const std::string& title_prefix, const std::vector<std::string>& only) {
    // Each section gets its own copy (commands may take parts of it): the
    // summary's bytes, read back (exactly the same reports; the CLI's own
    // wording of hints is not stored, so it is put back).
    // The memory section shows sampled timelines (every report reads the
    // same from them): the copies need no more.
    for (HostPartials& h : run.hosts) KeepSampledTimelines(h.memory, kMemoryTimelinePoints);
    const std::string bytes = RunSummaryToBytes(run);
    const std::vector<std::unique_ptr<Command>> commands = AllCommands();
    for (const SectionSpec& spec : Sections()) {
      if (!only.empty() && std::find(only.begin(), only.end(), spec.command) == only.end()) continue;
      auto it = std::find_if(commands.begin(), commands.end(),
                             [&](const std::unique_ptr<Command>& c) { return c->name() == spec.command; });
      auto* command = it == commands.end() ? nullptr : dynamic_cast<RunReportCommand*>(it->get());
      if (!command) continue;
      HtmlSection section{id_prefix + spec.id, title_prefix + spec.title, nullptr, ""};
      try {
        CLI::App app;
        command->AddOptions(&app);
        std::vector<std::string> args = {path};
        args.insert(args.end(), spec.args.begin(), spec.args.end());
        if (!o_.compat.empty()) args.insert(args.end(), {"--compat", o_.compat});
        if (!o_.step_marker.empty()) args.insert(args.end(), {"--step-marker", o_.step_marker});
        if (!o_.steps_between.empty()) args.insert(args.end(), {"--steps-between", o_.steps_between});
        if (o_.whole_trace) args.push_back("--whole-trace");
        std::reverse(args.begin(), args.end());  // CLI11 takes them last first.
        app.parse(args);
        RunSummary mine = RunSummaryFromBytes(bytes, path);
        mine.options.word_no_steps_hint = AnalysisOptionsFrom(o_).word_no_steps_hint;
        reports_.push_back(command->ReportOf(mine));
        reports_.back().diagnostics = Diagnostics();  // Shown once, at the end.
      } catch (const InputError& e) {
        section.unavailable = e.what();
      }
      sections_.push_back(std::move(section));
    }
  }

 private:
  CommonOptions o_;
  std::vector<std::string> paths_;
  std::deque<Report> reports_;  // Sections point into it: a deque keeps them in place.
  std::vector<HtmlSection> sections_;
};

}  // namespace

std::unique_ptr<Command> ReportCommand() { return std::make_unique<HtmlReport>(); }

}  // namespace tfprof::cli
