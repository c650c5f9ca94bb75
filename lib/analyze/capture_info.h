// `info`: what a capture holds, per host: planes, lines, events, time span,
// device properties and the profiler's own errors and warnings.
#pragma once

#include <string>
#include <vector>

#include "lib/model/model.h"
#include "lib/report/report.h"

namespace tfprof {

struct LineInfo {
  int64_t id = 0;
  std::string name;
  uint64_t events = 0;
  int64_t first_ps = 0, last_ps = 0;  // Earliest start, latest end.
};

struct PlaneInfo {
  int64_t id = 0;
  std::string name;
  uint64_t events = 0;
  uint64_t event_names = 0;  // Distinct event metadata.
  int64_t first_ps = 0, last_ps = 0;
  DeviceProperties device;
  std::vector<LineInfo> lines;
};

// The per-host summary `info` needs; small, so hosts can be dropped after.
struct HostInfo {
  std::string name;
  std::vector<std::string> hostnames;
  std::string source_path;
  std::string format;
  bool gzipped = false;
  uint64_t file_bytes = 0;
  int64_t time_origin_ns = 0;
  int listed_gpus = 0;  // Host::listed_gpus.
  std::vector<PlaneInfo> planes;
  std::vector<std::string> errors, warnings;
};

HostInfo SummarizeHost(const Host& host);

// Tables "planes" (the CSV default), "hosts", "devices" and "lines".
Report BuildInfoReport(const std::vector<HostInfo>& hosts);

}  // namespace tfprof
