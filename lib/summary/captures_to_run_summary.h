// A discovered run's capture files → its RunSummary: each selected host is
// read, summarised (HostToRunSummary) and dropped before the next is read,
// so memory holds one host's events at a time. The one place hosts are read
// and combined: the commands (tools/run_summary_loader.h), the parity tests
// and the fuzz target all come through here.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "lib/model/errors.h"
#include "lib/model/model.h"
#include "lib/read/capture_discovery.h"
#include "lib/read/read_options.h"
#include "lib/summary/run_summary.h"

namespace tfprof {

struct RunReadOptions {
  ReadOptions read;
  // Only this host: its name from the file, or a PyTorch rank ("rank1"),
  // which only the trace says. Empty: every host.
  std::string host;
  // Called with each host read, before it is summarised (`info`, which
  // shows the capture itself rather than a summary of it).
  std::function<void(const Host&)> visit;
  // Called with each host and its summary (one host, `order` 0) once it is
  // summarised, before the host is dropped (`trace`: events and steps),
  // and the number of host files of the run.
  std::function<void(const Host&, const RunSummary&, size_t run_hosts)> summarized;
  // Record each host's capture's SHA-256 (HostPartials::source_sha256):
  // for summaries kept to be combined later; one more pass over the files.
  bool hash_sources = false;
};

// `options.order` and `source` are ignored: each host's source is its
// file's name (and order 0). Throws InputError (exit code 2) when `host` names
// no host of the run, and what reading and summarising throw.
// The error for --host naming no host of the selected run (exit 2): the
// run's name and its hosts.
// `read`: the host names of the files read on the way (by path), as the
// reports name them; the others are named from their heads.
InputError NoHostNamed(const DiscoveredInput& input, const std::string& host,
                       const std::map<std::string, std::string>* read = nullptr);

RunSummary CapturesToRunSummary(const DiscoveredInput& input, const RunReadOptions& read,
                                const SummaryOptions& options);

}  // namespace tfprof
