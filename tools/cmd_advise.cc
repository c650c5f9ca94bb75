// `tfprof-analyze advise PATH`: the performance guides' checklist run on the
// capture, one finding per rule that fires, most costly first, with the
// evidence and what to try (docs/advise.md).
#include <stdexcept>

#include "lib/advise/run_summary_to_advice.h"
#include "lib/model/errors.h"
#include "tools/commands.h"

namespace tfprof::cli {
namespace {

class Advise final : public RunReportCommand {
 public:
  Advise()
      : RunReportCommand("advise",
                         "The GPU performance guide's checklist run on the capture: findings with evidence, most "
                         "costly first",
                         SummaryParts::All(), /*finds_steps=*/true) {}

 private:
  void AddCommandOptions(CLI::App* cmd) override {
    cmd->add_option("--threshold", thresholds_,
                    "NAME=VALUE: change one of the rules' thresholds (repeatable; advise --verbose lists them, "
                    "docs/advise.md explains them)")
        ->allow_extra_args(false);
  }
  void Prepare() override {
    options_advise_ = AdviseOptions{};
    for (const std::string& t : thresholds_) {
      try {
        options_advise_.Set(t);
      } catch (const std::invalid_argument& e) {
        throw InputError("", e.what(), kExitUsage);
      }
    }
  }
  Report BuildReport(RunSummary& run) override {
    return BuildAdviceReport(RunSummaryToAdvice(run, options_advise_), options_advise_);
  }

  std::vector<std::string> thresholds_;
  AdviseOptions options_advise_;
};

}  // namespace

std::unique_ptr<Command> AdviseCommand() { return std::make_unique<Advise>(); }

}  // namespace tfprof::cli
