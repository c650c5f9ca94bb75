// `tfprof-analyze check PATH`: threshold rules on the run's metrics, for CI.
// Prints every rule with the actual value and pass/FAIL/skip, optionally
// writes JUnit XML, and exits 5 when any rule fails (docs/ci.md).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "lib/advise/advice_rules_check.h"
#include "lib/advise/run_summary_to_advice.h"
#include "lib/analyze/metric_rules.h"
#include "lib/analyze/metrics_report.h"
#include "lib/analyze/run_summary_to_metrics.h"
#include "lib/model/errors.h"
#include "lib/render/render.h"
#include "tools/commands.h"

namespace tfprof::cli {
namespace {

struct CheckOptions {
  std::vector<std::string> max, min, rules_files;
  std::vector<std::string> no_finding, max_findings;  // The advisor's gates (docs/advise.md).
  std::vector<std::string> thresholds;                // The advisor's thresholds, as `advise --threshold`.
  std::string missing = "fail";
  std::string junit;
};

// A rules file is a few hundred bytes written by hand; the cap keeps a
// wrong path (a capture, /dev/zero) from being read whole.
constexpr size_t kMaxRulesFileBytes = size_t{1} << 20;

std::string ReadRulesFile(const std::string& path) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat on the
  // open file then refuses it, with devices and sockets, before any read.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    throw InputError(path, std::string("cannot read the rules file (") + std::strerror(errno) + ")", kExitUsage);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    throw InputError(path, "the rules file is not a regular file (a folder, device, FIFO or socket)", kExitUsage);
  if (static_cast<uint64_t>(st.st_size) > kMaxRulesFileBytes)
    throw InputError(path, "the rules file is larger than 1 MiB; is it the right file?", kExitUsage);
  std::string text;
  char chunk[1 << 14];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      throw InputError(path, std::string("cannot read the rules file (") + std::strerror(errno) + ")", kExitUsage);
    if (n == 0) return text;
    text.append(chunk, static_cast<size_t>(n));
    // Also when the file grew after fstat.
    if (text.size() > kMaxRulesFileBytes)
      throw InputError(path, "the rules file is larger than 1 MiB; is it the right file?", kExitUsage);
  }
}

std::vector<MetricRule> CollectRules(const CheckOptions& c) {
  std::vector<MetricRule> rules;
  for (const std::string& path : c.rules_files) {
    Guard().AddInput(path);
    for (MetricRule& r : ParseRules(ReadRulesFile(path), path)) rules.push_back(std::move(r));
  }
  for (const std::string& m : c.max) rules.push_back(ParseBoundFlag(m, /*is_max=*/true));
  for (const std::string& m : c.min) rules.push_back(ParseBoundFlag(m, /*is_max=*/false));
  if (rules.empty() && c.no_finding.empty() && c.max_findings.empty())
    throw InputError("",
                     "check needs at least one rule: --max METRIC=VALUE, --min METRIC=VALUE, --rules FILE, "
                     "--no-finding ID or --max-findings SEVERITY",
                     kExitUsage);
  return rules;
}

std::vector<FindingGate> CollectFindingGates(const CheckOptions& c, AdviseOptions& advise) {
  std::vector<FindingGate> gates;
  try {
    for (const std::string& id : c.no_finding) gates.push_back(ParseNoFindingFlag(id));
    for (const std::string& m : c.max_findings) gates.push_back(ParseMaxFindingsFlag(m));
    for (const std::string& t : c.thresholds) advise.Set(t);
  } catch (const std::invalid_argument& e) {
    throw InputError("", e.what(), kExitUsage);
  }
  return gates;
}

class Check final : public RunReportCommand {
 public:
  Check()
      : RunReportCommand("check", "Check metrics against thresholds (for CI): exit code 5 when a rule fails",
                         SummaryParts::All(), /*finds_steps=*/true) {}

 private:
  void AddCommandOptions(CLI::App* cmd) override {
    cmd->add_option("--max", c_.max, "Rule METRIC=VALUE: fails when the metric is above VALUE (repeatable)")
        ->allow_extra_args(false);  // One value per --max, so PATH is never taken as one.
    cmd->add_option("--min", c_.min, "Rule METRIC=VALUE: fails when the metric is below VALUE (repeatable)")
        ->allow_extra_args(false);
    cmd->add_option("--rules", c_.rules_files, "A rules file: one 'METRIC OP VALUE' per line (docs/ci.md; repeatable)")
        ->allow_extra_args(false);
    cmd->add_option("--missing", c_.missing,
                    "A rule on a metric this capture lacks: 'fail' (default) or 'skip' (lines starting 'optional' "
                    "always skip)")
        ->check(CLI::IsMember({"fail", "skip"}));
    cmd->add_option("--no-finding", c_.no_finding,
                    "Fails when the advisor's rule ID fires (advise; docs/advise.md lists the ids; repeatable)")
        ->allow_extra_args(false);
    cmd->add_option("--max-findings", c_.max_findings,
                    "SEVERITY[=N]: fails when more than N (default 0) advisor findings are at or above SEVERITY "
                    "(low, medium, high; repeatable)")
        ->allow_extra_args(false);
    cmd->add_option("--threshold", c_.thresholds,
                    "NAME=VALUE: one of the advisor's thresholds for --no-finding/--max-findings (as advise takes it)")
        ->allow_extra_args(false);
    AddOutputOption(cmd, "--junit", c_.junit, "Also write the results as JUnit XML to this file (for CI test reports)");
  }
  // Rules first: a typo in a metric name is a usage error before any reading.
  void Prepare() override {
    rules_ = CollectRules(c_);
    advise_ = AdviseOptions{};
    gates_ = CollectFindingGates(c_, advise_);
  }
  Report BuildReport(RunSummary& run) override {
    metrics_ = RunSummaryToMetrics(run);
    const MissingPolicy missing = c_.missing == "skip" ? MissingPolicy::kSkip : MissingPolicy::kFail;
    outcomes_ = EvaluateRules(rules_, metrics_, missing);
    if (!gates_.empty())
      for (CheckOutcome& o : EvaluateFindingGates(gates_, RunSummaryToAdvice(run, advise_, &metrics_), missing))
        outcomes_.push_back(std::move(o));
    return BuildCheckReport(metrics_, outcomes_);
  }
  void Write(const Report& report) override {
    Emit(report, options_);
    if (!c_.junit.empty()) {
      const Report junit = BuildOutcomesReport("check", outcomes_, {{"input", options_.path}, {"run", metrics_.run}});
      WriteOutput(c_.junit, [&](std::ostream& out) { Render(junit, {.format = OutputFormat::kJUnit}, out); });
    }
    if (std::string failed = FailureSummary(outcomes_, "rule"); !failed.empty())
      throw InputError(options_.path, "check failed: " + failed, kExitCheckFailed);
  }

  CheckOptions c_;
  std::vector<MetricRule> rules_;
  std::vector<FindingGate> gates_;
  AdviseOptions advise_;
  RunAnalysis metrics_;
  std::vector<CheckOutcome> outcomes_;
};

}  // namespace

std::unique_ptr<Command> CheckCommand() { return std::make_unique<Check>(); }

}  // namespace tfprof::cli
