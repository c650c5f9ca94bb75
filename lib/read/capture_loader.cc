#include "lib/read/capture_loader.h"

#include "lib/read/chrome_trace_reader.h"
#include "lib/read/kineto_rank.h"
#include "lib/read/memory_guard.h"
#include "lib/read/tf1_timeline_files.h"
#include "lib/read/xplane_reader.h"

namespace tfprof {

Host LoadCapture(const CaptureFile& file, Diagnostics& diagnostics, const ReadOptions& read_options) {
  // Refuse early what would not fit in memory; bound gzip inflation by it.
  ReadOptions options = read_options;
  CheckMemoryFor(file.path, file.format, options);
  Host host = file.format == CaptureFormat::kXSpace ? ReadXSpaceFile(file.path, diagnostics, options)
                                                    : ReadChromeTraceFile(file.path, diagnostics, options);
  // The further steps of a TF1 timeline series, one file at a time.
  for (const std::string& path : file.more_steps) {
    ReadOptions step_options = read_options;
    CheckMemoryFor(path, CaptureFormat::kChromeTrace, step_options);
    AppendTf1TimelineStep(host, ReadChromeTraceFile(path, diagnostics, step_options));
  }
  if (!file.host.empty()) host.name = file.host;
  // A rank of a distributed PyTorch job is named by its rank: the file names
  // ranks write (host_pid.timestamp, trace_8_rank_1) rarely say it plainly.
  if (host.rank) host.name = RankHostName(*host.rank);
  return host;
}

}  // namespace tfprof
