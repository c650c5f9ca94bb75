// `tfprof-analyze info PATH`: what the capture holds.
#include "lib/analyze/capture_info.h"
#include "tools/cli_common.h"
#include "tools/commands.h"

namespace tfprof::cli {

namespace {

void Register(CLI::App& app, std::function<void()>& action) {
  static CommonOptions options;
  CLI::App* cmd = app.add_subcommand("info", "Hosts, planes, lines, events, time span and devices of a capture");
  AddCommonOptions(cmd, options);
  cmd->callback([&action] {
    action = [] {
      if (MaybeListRuns(options)) return;
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
