// The subcommands: objects holding their options, listed in order in
// commands.cc (the order `--help` lists them). Adding a command: a class
// here or in its tools/cmd_<name>.cc, and one line in AllCommands().
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "lib/report/report.h"
#include "lib/summary/run_summary.h"
#include "tools/cli_common.h"

namespace tfprof::cli {

class Command {
 public:
  Command(std::string name, std::string description) : name_(std::move(name)), description_(std::move(description)) {}
  virtual ~Command() = default;
  Command(const Command&) = delete;
  Command& operator=(const Command&) = delete;

  const std::string& name() const { return name_; }
  const std::string& description() const { return description_; }
  // Declares the command's options on its subcommand; their values land in
  // the object, read by Run() once the command line is parsed.
  virtual void AddOptions(CLI::App* cmd) = 0;
  virtual void Run() = 0;

 private:
  std::string name_, description_;
};

// A command that reports on one run, the shape of all but `diff`: the
// common options (and the step options when it finds steps), --list-runs,
// the run's summary with the parts it shows, its report with every
// diagnostic reading and summarising met, written in the chosen format.
class RunReportCommand : public Command {
 public:
  RunReportCommand(std::string name, std::string description, SummaryParts parts, bool finds_steps)
      : Command(std::move(name), std::move(description)), parts_(parts), finds_steps_(finds_steps) {}

  void AddOptions(CLI::App* cmd) final;
  void Run() final;
  // The report this command makes of `run` once its options are parsed,
  // without the run's diagnostics (`report` shows them once, and builds
  // each section so; the command may take parts of `run`).
  Report ReportOf(RunSummary& run);
  SummaryParts parts() const { return parts_; }

 protected:
  // The command's own options.
  virtual void AddCommandOptions(CLI::App*) {}
  // Checks and settings made before anything is read, so a usage error
  // comes before any reading.
  virtual void Prepare() {}
  virtual RunSummary Load();
  // How many points of each memory timeline the report may show
  // (SummaryOptions::memory_timeline_points; 0: every event).
  virtual size_t MemoryTimelinePoints() const { return kMemoryTimelinePoints; }
  // The summary is the command's to use up (memory moves its profiles out).
  virtual Report BuildReport(RunSummary& run) = 0;
  // Writes the report (Emit); commands that write more override it.
  virtual void Write(const Report& report);

  CommonOptions options_;
  const SummaryParts parts_;

 private:
  const bool finds_steps_;
};

// In the order `--help` lists them.
std::vector<std::unique_ptr<Command>> AllCommands();

}  // namespace tfprof::cli
