#include "lib/read/capture_loader.h"

#include "lib/read/capture_formats.h"
#include "lib/read/kineto_rank.h"
#include "lib/read/memory_guard.h"
#include "lib/read/tf1_timeline_files.h"

namespace tfprof {

Host LoadCapture(const CaptureFile& file, Diagnostics& diagnostics, const ReadOptions& read_options) {
  // Refuse early what would not fit in memory; bound gzip inflation by it.
  ReadOptions options = read_options;
  CheckMemoryFor(file.path, file.format, options);
  const CaptureFormatRow& format = FormatRow(file.format);
  Host host = format.read(file.path, diagnostics, options);
  // The further steps of a TF1 timeline series (files of the first one's
  // format), one file at a time.
  for (const std::string& path : file.more_steps) {
    ReadOptions step_options = read_options;
    CheckMemoryFor(path, file.format, step_options);
    AppendTf1TimelineStep(host, format.read(path, diagnostics, step_options));
  }
  if (!file.host.empty()) host.name = file.host;
  // A rank of a distributed PyTorch job is named by its rank: the file names
  // ranks write (host_pid.timestamp, trace_8_rank_1) rarely say it plainly.
  if (host.rank) host.name = RankHostName(*host.rank);
  return host;
}

}  // namespace tfprof
