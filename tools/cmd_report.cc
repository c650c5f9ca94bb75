// `tfprof-analyze report PATH -o report.html`: every analysis of the run on
// one self-contained HTML page (lib/render/render_html.h, docs/report.md).
// Each section is the report of the command of that name, made with that
// command's own options from one summary of the run.
#include <algorithm>
#include <cstring>

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
    cmd->add_option("path", o_.path, "Logdir, run folder, capture file, or run summary")->required();
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
    const RunSummary run = LoadRunSummary(o_, all, EventStatsFor(all));
    // Each section gets its own copy (commands may take parts of it): the
    // summary's bytes, read back (exactly the same reports; the CLI's own
    // wording of hints is not stored, so it is put back).
    const std::string bytes = RunSummaryToBytes(run);
    auto copy = [&] {
      RunSummary one = RunSummaryFromBytes(bytes, o_.path);
      one.options.word_no_steps_hint = AnalysisOptionsFrom(o_).word_no_steps_hint;
      return one;
    };
    const std::vector<std::unique_ptr<Command>> commands = AllCommands();
    std::vector<Report> reports;
    reports.reserve(Sections().size() + 1);
    std::vector<HtmlSection> sections;
    for (const SectionSpec& spec : Sections()) {
      auto it = std::find_if(commands.begin(), commands.end(),
                             [&](const std::unique_ptr<Command>& c) { return c->name() == spec.command; });
      auto* command = it == commands.end() ? nullptr : dynamic_cast<RunReportCommand*>(it->get());
      if (!command) continue;
      HtmlSection section{spec.id, spec.title, nullptr, ""};
      try {
        CLI::App app;
        command->AddOptions(&app);
        std::vector<std::string> args = {o_.path};
        args.insert(args.end(), spec.args.begin(), spec.args.end());
        if (!o_.compat.empty()) args.insert(args.end(), {"--compat", o_.compat});
        if (!o_.step_marker.empty()) args.insert(args.end(), {"--step-marker", o_.step_marker});
        if (!o_.steps_between.empty()) args.insert(args.end(), {"--steps-between", o_.steps_between});
        if (o_.whole_trace) args.push_back("--whole-trace");
        std::reverse(args.begin(), args.end());  // CLI11 takes them last first.
        app.parse(args);
        RunSummary mine = copy();
        reports.push_back(command->ReportOf(mine));
        reports.back().diagnostics = Diagnostics();  // Shown once, below.
        section.report = &reports.back();
      } catch (const InputError& e) {
        section.unavailable = e.what();
      }
      sections.push_back(std::move(section));
    }
    Report diagnostics;
    diagnostics.command = "diagnostics";
    diagnostics.diagnostics = RunDiagnostics(run, all);
    diagnostics.lines.push_back(diagnostics.diagnostics.Entries().empty()
                                    ? "Reading and analysing met nothing to report."
                                    : "What reading and analysing the run met (the text views' diagnostics).");
    reports.push_back(std::move(diagnostics));
    sections.push_back({"diagnostics", "Diagnostics", &reports.back(), ""});
    WriteOutput(o_.output == "-" ? "" : o_.output,
                [&](std::ostream& out) { RenderHtmlPage("tfprof-analyze report: run " + run.run, sections, out); });
  }

 private:
  CommonOptions o_;
};

}  // namespace

std::unique_ptr<Command> ReportCommand() { return std::make_unique<HtmlReport>(); }

}  // namespace tfprof::cli
