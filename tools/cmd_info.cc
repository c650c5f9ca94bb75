// `tfprof-analyze info PATH`: what the capture holds.
#include <sstream>

#include "lib/analyze/capture_info.h"
#include "lib/analyze/host_to_text_dump.h"
#include "lib/model/errors.h"
#include "tools/cli_common.h"
#include "tools/commands.h"

namespace tfprof::cli {

namespace {

// --dump: the model each host's reader produced, as text (reader tests).
void EmitDump(const CommonOptions& options, const TextDumpLimits& limits) {
  if (!options.format.empty() && options.format != "table")
    throw InputError("", "--dump writes text only; leave out --format", kExitUsage);
  // Hosts are dropped one by one as they are read, so each is dumped at once.
  std::ostringstream dump;
  LoadResult loaded = ForEachHost(options, [&](Host& host) { HostToTextDump(host, limits, dump); });
  dump << "run " << QuoteForDump(loaded.input.selected.name) << "\n";
  DiagnosticsToTextDump(loaded.diagnostics, dump);
  WriteOutput(options.output, [&](std::ostream& out) { out << dump.str(); });
}

void Register(CLI::App& app, std::function<void()>& action) {
  static CommonOptions options;
  static bool dump = false;
  static TextDumpLimits limits;
  CLI::App* cmd = app.add_subcommand("info", "Hosts, planes, lines, events, time span and devices of a capture");
  AddCommonOptions(cmd, options);
  CLI::Option* dump_flag = cmd->add_flag("--dump", dump,
                "Write the model the reader produced as text instead: hosts, planes, lines, events with their "
                "stats (for reader tests and bug reports)");
  cmd->add_option("--dump-events", limits.events_per_line, "With --dump: at most N events per line (default 20; 0: all)")
      ->transform(WholeNumber(0, UINT64_MAX))
      ->needs(dump_flag);
  cmd->callback([&action] {
    action = [] {
      if (MaybeListRuns(options)) return;
      if (dump) return EmitDump(options, limits);
      std::vector<HostInfo> hosts;
      LoadResult loaded = ForEachHost(options, [&](Host& host) { hosts.push_back(SummarizeHost(host)); });
      Report report = BuildInfoReport(hosts);
      report.lines.insert(report.lines.begin(), "run " + loaded.input.selected.name);
      report.diagnostics.Merge(loaded.diagnostics);
      Emit(report, options);
    };
  });
}

const CommandRegistration kInfo(10, Register);

}  // namespace

}  // namespace tfprof::cli
