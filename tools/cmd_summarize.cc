// `summarize INPUT -o host.tfsum` and `combine A.tfsum B.tfsum ... -o
// run.tfsum`: a run's summary kept as a file, made where each host's
// capture lives and combined anywhere (docs/scale-out.md). Every analysis
// command reads the result as it reads the captures.
#include <unistd.h>

#include "lib/model/errors.h"
#include "lib/summary/analysed_event_stats.h"
#include "lib/summary/run_summary_file.h"
#include "tools/commands.h"
#include "tools/run_summary_loader.h"

namespace tfprof::cli {
namespace {

// "-" is standard output, which must not be a terminal: a summary is binary.
void WriteSummaryTo(const std::string& output, const RunSummary& run) {
  const bool to_stdout = output == "-";
  if (to_stdout && ::isatty(STDOUT_FILENO))
    throw InputError("", "a run summary is binary: write it to a file (-o FILE) or a pipe, not a terminal", kExitUsage);
  const std::string bytes = RunSummaryToBytes(run);
  WriteOutput(to_stdout ? "" : output,
              [&](std::ostream& out) { out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())); });
}

CLI::Option* AddSummaryOutput(CLI::App* cmd, std::string& output) {
  return AddOutputOption(cmd, "--output,-o", output,
                         "The run summary file to write (*.tfsum by convention; '-': standard output)")
      ->required();
}

class Summarize final : public Command {
 public:
  Summarize()
      : Command("summarize",
                "Summarise a capture (one host file, a run folder or a logdir's run) into a run summary file that "
                "every analysis command reads, and `combine` merges with other hosts' (docs/scale-out.md)") {}

  void AddOptions(CLI::App* cmd) override {
    cmd->add_option("path", o_.path, "Logdir, run folder (plugins/profile/<run>) or capture file")->required();
    AddSummaryOutput(cmd, o_.output);
    cmd->add_option("--host", o_.host, "Only this host of a multi-host run (its name, or rank<N>)");
    cmd->add_option("--run", o_.run, "Which run of a logdir (default: the newest)");
    cmd->add_option("--compat", o_.compat, "As for the analysis commands; the summary records it")
        ->check(CLI::IsMember({"xprof", "tf-legacy"}));
    cmd->add_option("--run-name", run_name_,
                    "The run's name in the summary (default: as the analysis commands name it: the run folder's "
                    "name, or a file's own name; host files of one folder combine into a run named after the "
                    "folder)");
    AddReadLimitOptions(cmd, o_);
    AddStepOptions(cmd, o_);
  }

  void Run() override {
    o_.hash_sources = true;
    const SummaryParts all = SummaryParts::All();
    RunSummary run = LoadRunSummary(o_, all, EventStatsFor(all));
    if (!run_name_.empty()) run.run = run.run_folder = run_name_;
    WriteSummaryTo(o_.output, run);
  }

 private:
  CommonOptions o_;
  std::string run_name_;
};

class Combine final : public Command {
 public:
  Combine()
      : Command("combine",
                "Combine run summaries of one run's hosts (files, or folders of *.tfsum) into one; any order or "
                "grouping gives the same bytes") {}

  void AddOptions(CLI::App* cmd) override {
    cmd->add_option("inputs", inputs_, "Run summary files, or folders of *.tfsum files")->required();
    AddSummaryOutput(cmd, output_);
  }

  void Run() override {
    std::vector<std::string> files;
    for (const std::string& input : inputs_) {
      Guard().AddInput(input);
      std::vector<std::string> here = SummaryFilesAt(input);
      if (here.empty())
        throw InputError(input, "not a run summary, nor a folder holding *.tfsum files (make them with `summarize`)");
      files.insert(files.end(), here.begin(), here.end());
    }
    WriteSummaryTo(output_, CombineSummaryFiles(files, ReadOptions{}));
  }

 private:
  std::vector<std::string> inputs_;
  std::string output_;
};

}  // namespace

std::unique_ptr<Command> SummarizeCommand() { return std::make_unique<Summarize>(); }
std::unique_ptr<Command> CombineCommand() { return std::make_unique<Combine>(); }

}  // namespace tfprof::cli
