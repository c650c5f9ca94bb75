// `summarize INPUT -o host.tfsum` and `combine A.tfsum B.tfsum ... -o
// run.tfsum`: a run's summary kept as a file, made where each host's
// capture lives and combined anywhere (docs/scale-out.md). Every analysis
// command reads the result as it reads the captures.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>

#include "lib/model/errors.h"
#include "lib/summary/analysed_event_stats.h"
#include "lib/summary/run_summary_file.h"
#include "lib/summary/run_summary_stream_combine.h"
#include "tools/commands.h"
#include "tools/run_summary_loader.h"

namespace tfprof::cli {
namespace {

// "-" is standard output, which must not be a terminal: a summary is binary.
void WriteSummaryTo(const std::string& output, const std::function<void(std::ostream&)>& write) {
  const bool to_stdout = output == "-";
  if (to_stdout && ::isatty(STDOUT_FILENO))
    throw InputError("", "a run summary is binary: write it to a file (-o FILE) or a pipe, not a terminal", kExitUsage);
  WriteOutput(to_stdout ? "" : output, write);
}

void WriteSummaryTo(const std::string& output, const RunSummary& run) {
  const std::string bytes = RunSummaryToBytes(run);
  WriteSummaryTo(output,
                 [&](std::ostream& out) { out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())); });
}

// Standard input copied to <TMPDIR>/tfprof-stdin-XXXXXX/<name>, removed
// with the object.
class StdinCopy {
 public:
  explicit StdinCopy(std::string name) {
    if (name.empty()) name = "stdin";
    if (name.find('/') != std::string::npos || name == "." || name == "..")
      throw InputError("", "--source-name is a file name, without folders: " + name, kExitUsage);
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/tfprof-stdin-XXXXXX";
    if (!::mkdtemp(pattern.data()))
      throw InputError(pattern, std::string("cannot make a temporary folder: ") + std::strerror(errno), kExitBadInput);
    dir_ = pattern;
    path_ = dir_ + "/" + name;
    std::ofstream out(path_, std::ios::binary);
    char block[1 << 16];
    for (;;) {
      const ssize_t n = ::read(STDIN_FILENO, block, sizeof block);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw InputError("-", std::string("cannot read standard input: ") + std::strerror(errno));
      if (n == 0) break;
      out.write(block, n);
      if (!out) throw InputError(path_, "cannot write the copy of standard input (disk full?)", kExitBadInput);
    }
    out.close();
    if (!out) throw InputError(path_, "cannot write the copy of standard input (disk full?)", kExitBadInput);
  }
  ~StdinCopy() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  StdinCopy(const StdinCopy&) = delete;
  StdinCopy& operator=(const StdinCopy&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string dir_, path_;
};

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
    cmd->add_option("path", o_.path,
                    "Logdir, run folder (plugins/profile/<run>), capture file, or '-': one capture on standard "
                    "input")
        ->required();
    cmd->add_option("--source-name", source_name_,
                    "With '-': the capture's file name, which names its host and orders it among the run's hosts "
                    "(default: stdin)");
    AddSummaryOutput(cmd, o_.output);
    cmd->add_option("--host", o_.host, "Only this host of a multi-host run (its name, or rank<N>)");
    cmd->add_option("--run", o_.run, "Which run of a logdir (default: the newest)");
    cmd->add_option("--compat", o_.compat, "As for the analysis commands; the summary records it")
        ->check(CLI::IsMember({"xprof", "tf-legacy"}));
    cmd->add_option("--run-name", run_name_,
                    "The run's name in the summary (default: as the analysis commands name it: the run folder's "
                    "name, or a file's own name; host files of one folder combine into a run named after the "
                    "folder)");
    cmd->add_flag("--all-points", all_points_,
                  "Keep every allocator event of the memory timelines (for `memory --timeline --all-points` on the "
                  "summary); by default a summary keeps the 1000 sampled points the memory report shows");
    AddReadLimitOptions(cmd, o_);
    AddStepOptions(cmd, o_);
  }

  void Run() override {
    o_.hash_sources = true;
    const SummaryParts all = SummaryParts::All();
    std::optional<StdinCopy> stdin_copy;
    if (o_.path == "-") {
      // Readers map or stream files by name: standard input is copied to a
      // private temporary file first, named as --source-name says.
      stdin_copy.emplace(source_name_);
      o_.path = stdin_copy->path();
    } else if (!source_name_.empty()) {
      throw InputError("", "--source-name names a capture read from standard input ('-')", kExitUsage);
    }
    RunSummary run;
    try {
      run = LoadRunSummary(o_, all, EventStatsFor(all, AnalysisOptionsFrom(o_)), {}, {},
                           all_points_ ? 0 : kMemoryTimelinePoints);
    } catch (const InputError& e) {
      // The temporary copy is no name to show: standard input is.
      if (!stdin_copy || e.path().rfind(stdin_copy->path(), 0) != 0) throw;
      const std::string problem = std::string(e.what()).substr(e.path().size() + 2);
      throw InputError("standard input", problem, e.code(), e.hint());
    }
    if (stdin_copy) run.run_folder.clear();  // The temporary folder is no run's.
    // What the memory report shows of a timeline: its sampled points, not
    // every allocator event (which would make a summary grow with them).
    // The profile made them so (memory_timeline_points); a summary read
    // back keeps what it held.
    if (!all_points_)
      for (HostPartials& h : run.hosts) KeepSampledTimelines(h.memory, kMemoryTimelinePoints);
    if (!run_name_.empty()) run.run = run.run_folder = run_name_;
    WriteSummaryTo(o_.output, run);
  }

 private:
  CommonOptions o_;
  std::string run_name_, source_name_;
  bool all_points_ = false;
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
    for (const std::string& file : files) Guard().AddInput(file);
    // Host by host: memory for the hosts' keys, not their contents.
    WriteSummaryTo(output_, [&](std::ostream& out) { CombineRunSummaryFiles(files, out); });
  }

 private:
  std::vector<std::string> inputs_;
  std::string output_;
};

}  // namespace

std::unique_ptr<Command> SummarizeCommand() { return std::make_unique<Summarize>(); }
std::unique_ptr<Command> CombineCommand() { return std::make_unique<Combine>(); }

}  // namespace tfprof::cli
