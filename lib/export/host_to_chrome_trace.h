// A host's events as Chrome trace JSON (the format chrome://tracing and
// ui.perfetto.dev open), written as they are visited: the writer keeps no
// event. Fed by StreamXSpaceFile (ChromeTraceStreamSink) an XSpace capture
// of any size goes through in constant memory; from a host's model
// (AddHost), in the memory of that model (docs/trace.md).
//
//   planes -> processes (named after the plane; "<host>: <plane>" when a
//             file holds several hosts), lines -> threads (named after the
//             line, in the capture's order), events -> complete ("X")
//             events with their stats (the event's and its metadata's) as
//             args, a name with a display name as TensorFlow's trace viewer
//             writes it (`name` the display name, `long_name` the full one),
//             launch -> kernel links (`correlation_id`) -> flow events,
//             and the steps the analyses find -> a "Steps" thread of the
//             host plane's process.
// Times are microseconds with picosecond digits (6 decimals), absolute on
// the capture's clock, so nothing is rounded away for our own reader.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "lib/model/model.h"
#include "lib/read/xplane_reader.h"
#include "lib/summary/planes_to_step_db.h"

namespace tfprof {

// `s` as a JSON string (quoted): quotes, backslashes and control characters
// escaped; bytes that are not UTF-8 written as the code point of the same
// value (Latin-1), so the output is valid JSON whatever a capture's names hold.
void AppendJsonString(std::string& out, std::string_view s);

// Events overlapping [begin_ps, end_ps) (host-relative, as Event::start_ps) are written.
struct TraceWindow {
  int64_t begin_ps = std::numeric_limits<int64_t>::min();
  int64_t end_ps = std::numeric_limits<int64_t>::max();
  bool Overlaps(int64_t start, int64_t end) const {
    return (end > begin_ps && start < end_ps) || (start == end && start >= begin_ps && start < end_ps);
  }
};

struct ChromeTraceCounts {
  uint64_t hosts = 0, processes = 0, threads = 0, events = 0, flows = 0, steps = 0;
};

class ChromeTraceWriter {
 public:
  // Writes the opening of the JSON object.
  explicit ChromeTraceWriter(std::ostream& out);
  ChromeTraceWriter(const ChromeTraceWriter&) = delete;
  ChromeTraceWriter& operator=(const ChromeTraceWriter&) = delete;

  // `label`: "" to name processes after the planes alone (one host), else
  // the host's name to put before them. `steps` (may be null): the host's
  // steps, written as the "Steps" thread with their numbers (StepNumber of
  // their place in `steps`); only those overlapping `window`.
  void AddHost(const Host& host, const std::string& label, const StepDb* steps, const TraceWindow& window = {});

  // AddHost in parts, for a host whose events come a batch at a time
  // (StreamXSpaceFile): BeginHost (with AddHost's label); for each plane
  // BeginPlane, for each of its lines BeginLine, then AddEvents any number
  // of times; EndHost. The events' string stat values are ids in
  // `stat_strings`; every other string is in host.strings.
  void BeginHost(const std::string& label);
  void BeginPlane(const Host& host, const Plane& plane);
  void BeginLine(const Host& host, const Line& line);
  void AddEvents(const Host& host, const Plane& plane, const Line& events, const StringPool& stat_strings,
                 const TraceWindow& window);
  void EndHost(const StepDb* steps, const TraceWindow& window);

  // Writes the closing; nothing may be added after.
  void Finish();
  const ChromeTraceCounts& counts() const { return counts_; }

 private:
  // Starts the next element of the event array in block_ (a comma after
  // the first); block_ goes to the stream when it is full.
  std::string& Next();
  void Spill();

  std::ostream& out_;
  ChromeTraceCounts counts_;
  int64_t next_pid_ = 1;
  // The host, plane and line being written.
  std::string label_;
  int64_t host_index_ = 0, host_pid_ = 0, host_plane_threads_ = 0;
  int64_t pid_ = 0, tid_ = 0;
  bool device_ = false;
  // The line holds a Chrome trace's counter samples (the reader's
  // "_counters_"): written back as counters, not as zero-length slices.
  bool counters_ = false;
  std::optional<StatKey> correlation_;
  std::vector<StatKey> seen_;  // An event's own stat keys, so its metadata's do not repeat them.
  bool first_ = true, finished_ = false;
  std::string block_;
};

// Writes what StreamXSpaceFile reads through a writer, as AddHost writes a
// host's model: the caller brackets the read with BeginHost and EndHost.
class ChromeTraceStreamSink final : public XSpaceEventSink {
 public:
  // `window` as for AddHost.
  ChromeTraceStreamSink(ChromeTraceWriter& writer, const TraceWindow& window) : writer_(writer), window_(window) {}
  void BeginPlane(const Host& host, size_t p) override { writer_.BeginPlane(host, host.planes[p]); }
  void BeginLine(const Host& host, size_t p, size_t l) override { writer_.BeginLine(host, host.planes[p].lines[l]); }
  void Events(const Host& host, size_t p, size_t l, const Line& batch, const StringPool& batch_strings) override {
    writer_.AddEvents(host, host.planes[p], batch, batch_strings, window_);
  }

 private:
  ChromeTraceWriter& writer_;
  const TraceWindow window_;
};

}  // namespace tfprof
