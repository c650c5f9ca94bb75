// What each fuzz target does with one input, shared by the libFuzzer targets
// (fuzz/*_fuzzer.cc) and the regression test that replays the findings kept
// in testdata/bad/fuzz/ (tests/read/bad_inputs_test.cc), so a finding is
// replayed exactly as it was found, in the normal build.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_common.h"
#include "fuzz/host_check.h"
#include "lib/read/capture_discovery.h"
#include "lib/read/capture_loader.h"
#include "lib/read/chrome_trace_reader.h"
#include "lib/read/xplane_reader.h"
#include "lib/summary/analysed_event_stats.h"

namespace tfprof::fuzz {

// How FuzzXplane's last read reads an input of `size` bytes: as `memory`
// alone reads (EventStatsFor): the allocator events' own stats as records,
// the devices unread, and on a plane grouped when taken the host's other
// events left out where all the profile reads of them is a group id; the
// kept events reached by the pre-scan's offsets, or (odd sizes) by its
// marks; in chunks of 1 to 4 events on two threads.
inline ReadOptions MemoryAloneFuzzReadOptions(size_t size) {
  ReadOptions options = FuzzReadOptions();
  options.max_events = 0;
  options.decode_threads = 2;
  options.decode_chunk_events = 1 + size % 4;
  options.decode_kept_by_offsets = size % 2 == 0;
  options.event_stats = EventStatsFor(SummaryParts(SummaryPart::kMemory), AnalysisOptions{});
  return options;
}

// The XSpace wire reader on arbitrary bytes.
inline void FuzzXplane(std::string_view bytes) {
  ExpectOnlyInputErrors([&] {
    Diagnostics diagnostics;
    Host host = ReadXSpaceBytes(bytes, "fuzz.xplane.pb", diagnostics, FuzzReadOptions());
    CheckHost(host);
  });
  // Again as the analysing commands read: some stats only, derived lines
  // (and, for inputs of even length, host-thread lines: kernel-stats)
  // unread, skipped by their length, allocator events framed but left out.
  // Without --max-events, which would frame every line. Decoded on two
  // threads in chunks of 1 to 5 events, so that the chunk pipeline's
  // hand-over (lib/read/xplane_chunk_pipeline.h) meets the input too.
  ExpectOnlyInputErrors([&] {
    ReadOptions options = FuzzReadOptions();
    options.max_events = 0;
    options.decode_threads = 2;
    options.decode_chunk_events = 1 + bytes.size() % 5;
    options.event_stats = EventStatFilter::Only({"correlation_id", "tf_op", "kernel_details", "group_id"});
    options.event_stats.keep_derived_line_events = false;
    options.event_stats.keep_allocator_events = false;
    options.event_stats.keep_host_thread_events = bytes.size() % 2 != 0;
    options.event_stats.keep_device_events = bytes.size() % 3 != 0;
    Diagnostics diagnostics;
    Host host = ReadXSpaceBytes(bytes, "fuzz.xplane.pb", diagnostics, options);
    CheckHost(host);
  });
  // Again as `memory` alone reads (MemoryAloneFuzzReadOptions).
  ExpectOnlyInputErrors([&] {
    const ReadOptions options = MemoryAloneFuzzReadOptions(bytes.size());
    Diagnostics diagnostics;
    Host host = ReadXSpaceBytes(bytes, "fuzz.xplane.pb", diagnostics, options);
    CheckHost(host);
  });
}

// The Chrome trace JSON reader on arbitrary text.
inline void FuzzChromeJson(std::string_view text) {
  ExpectOnlyInputErrors([&] {
    Diagnostics diagnostics;
    Host host = ReadChromeTraceText(text, "fuzz.trace.json", diagnostics, FuzzReadOptions());
    CheckHost(host);
  });
}

// Both readers through the file path, so gzip (ISA-L inflate, multi-member
// streams, the inflate limit) is exercised: the input is the file's bytes.
inline void FuzzFileReaders(std::string_view bytes) {
  MemFile file(bytes);
  ReadOptions options = FuzzReadOptions();
  options.max_inflated_bytes = 16u << 20;
  ExpectOnlyInputErrors([&] {
    Diagnostics diagnostics;
    Host host = ReadChromeTraceFile(file.path(), diagnostics, options);
    CheckHost(host);
  });
  ExpectOnlyInputErrors([&] {
    Diagnostics diagnostics;
    Host host = ReadXSpaceFile(file.path(), diagnostics, options);
    CheckHost(host);
  });
}

// Takes small integers and strings off the front of the input.
class ByteTaker {
 public:
  explicit ByteTaker(std::string_view bytes) : rest_(bytes) {}
  size_t Pick(size_t n) {  // In [0, n).
    if (rest_.empty()) return 0;
    unsigned char c = static_cast<unsigned char>(rest_.front());
    rest_.remove_prefix(1);
    return c % n;
  }
  std::string_view Take(size_t max) {  // A 2-byte length, then that many bytes.
    size_t n = Pick(256) * 256 + Pick(256);
    n = std::min({n, max, rest_.size()});
    std::string_view out = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return out;
  }
  bool empty() const { return rest_.empty(); }

 private:
  std::string_view rest_;
};

// Logdir discovery and loading: the input describes a small tree (files with
// fuzzed content under capture-like names, folders, symlinks that may
// dangle or loop, FIFOs) built in a fresh temporary folder; DiscoverInput
// and LoadCapture then run on its root and on each top-level entry. Nothing
// may crash, and nothing may hang (a FIFO must never be opened).
inline void FuzzDiscovery(std::string_view bytes) {
  namespace fs = std::filesystem;
  static const char* const kDirs[] = {
      "",
      "plugins",
      "plugins/profile",
      "plugins/profile/2024_01_01_00_00_00",
      "plugins/profile/2024_01_02_00_00_00",
      "fit/train/plugins/profile/2024_01_01_00_00_00",
      "run",
      "a/b/c/d/e/plugins/profile/r",
  };
  static const char* const kNames[] = {
      "h.xplane.pb",        "h.xplane.pb.gz", "h.trace.json", "h.trace.json.gz", "g.pt.trace.json",
      "h.overview_page.pb", "g.xplane.pb",    "notes.txt",    "plugins",         "profile",
  };
  static const char* const kLinks[] = {"nowhere", ".", "..", "h.xplane.pb", "/dev/null", "g.xplane.pb", "plugins"};
  static const char* const kRuns[] = {"", "2024_01_01_00_00_00", "train/2024_01_01_00_00_00", "nope", "r"};
  static const std::string base = fs::is_directory("/dev/shm") ? "/dev/shm" : fs::temp_directory_path().string();

  ByteTaker in(bytes);
  std::string root = base + "/tfprof_fuzz_XXXXXX";
  if (!::mkdtemp(root.data())) std::abort();
  std::error_code ec;
  size_t entries = 1 + in.Pick(8);
  for (size_t i = 0; i < entries && !in.empty(); ++i) {
    fs::path dir = fs::path(root) / kDirs[in.Pick(std::size(kDirs))];
    fs::create_directories(dir, ec);
    fs::path p = dir / kNames[in.Pick(std::size(kNames))];
    // A name used twice is replaced: writing into an earlier FIFO would
    // block this harness (a finding of the harness, not of the tool).
    fs::remove(p, ec);
    if (fs::exists(fs::symlink_status(p, ec))) continue;  // A non-empty folder.
    switch (in.Pick(4)) {
      case 0: {
        std::string_view content = in.Take(65536);
        std::ofstream(p, std::ios::binary).write(content.data(), static_cast<std::streamsize>(content.size()));
        break;
      }
      case 1: fs::create_directories(p, ec); break;
      case 2: fs::create_symlink(kLinks[in.Pick(std::size(kLinks))], p, ec); break;
      case 3: ::mkfifo(p.c_str(), 0600); break;
    }
  }
  const std::string run = kRuns[in.Pick(std::size(kRuns))];
  const bool keep_duplicates = in.Pick(2) == 1;
  std::vector<fs::path> inputs{root};
  for (const auto& e : fs::directory_iterator(root, ec)) inputs.push_back(e.path());
  for (const fs::path& input : inputs) {
    ExpectOnlyInputErrors([&] {
      DiscoveredInput d = DiscoverInput(input.string(), run, keep_duplicates);
      for (const CaptureFile& file : d.selected.files) {
        ExpectOnlyInputErrors([&] {
          Diagnostics diagnostics;
          Host host = LoadCapture(file, diagnostics, FuzzReadOptions());
          CheckHost(host);
        });
      }
    });
  }
  fs::remove_all(root, ec);
}

}  // namespace tfprof::fuzz
