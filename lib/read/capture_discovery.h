// Finding the captures behind a path: a TensorBoard logdir
// (<logdir>/[<tb_run>/]plugins/profile/<run>/<host>.xplane.pb), one run
// folder (every host in it), or a single capture file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lib/model/model.h"

namespace tfprof {

enum class InputKind { kLogdir, kRunFolder, kFile };

struct CaptureFile {
  std::string path;
  std::string host;  // From the file name: <host>.xplane.pb, <host>.trace.json.gz, ...
  CaptureFormat format = CaptureFormat::kXSpace;
  // TensorFlow 1 timelines numbered in one folder (timeline_01.json, ...):
  // the files after `path`, in order; read as one host, one step each
  // (tf1_timeline_files.h).
  std::vector<std::string> more_steps;
};

// The name a capture file goes by in its run: its file name, or
// "<rank folder>/<file name>" when it lies in a rank's folder (rank_0/, ...),
// where ranks often name their files alike. It orders a run's hosts and
// names each host's summary, from the path alone: the same whether the run
// is read whole or each file summarised apart.
std::string CaptureSourceName(const std::string& path);

struct ProfileRun {
  std::string name;                // "<run>" or "<tb_run>/<run>" when the logdir has several TensorBoard runs.
  std::string path;                // The run folder.
  std::vector<CaptureFile> files;  // One per host, xplane.pb preferred.
  // Host files dropped because they are byte-identical copies of another
  // host's file (as in some published demo runs): "dropped (copy of kept)".
  std::vector<std::string> duplicates;
  // Entries named like captures that are not readable files (a dangling
  // symlink, a FIFO, a folder, a file that cannot be opened): "name (why)".
  // Reported, never read.
  std::vector<std::string> skipped;
};

// How much file-system work finding the captures took: tests check that it
// grows linearly with the input, whatever links and copies it holds.
struct DiscoveryWork {
  uint64_t folders_listed = 0;  // Folders listed while looking for plugins/profile.
  uint64_t file_reads = 0;      // Host files read through to find byte-identical copies.
};

struct DiscoveredInput {
  InputKind kind = InputKind::kFile;
  std::string input_path;
  std::vector<ProfileRun> runs;  // Every run found, oldest first.
  ProfileRun selected;           // The run (or file) to analyse.
  DiscoveryWork work;
};

// Detects a file's format from its content (gzip is looked through), falling
// back on nothing: an unknown format is an InputError naming the file.
CaptureFormat DetectFormat(const std::string& path);

// `run` selects a run of a logdir by name (the run folder's name or its
// "<tb_run>/<run>" name); empty means the newest. Throws InputError for a
// missing path, an empty folder, a logdir with no captures, or an unknown run.
// `keep_duplicates` keeps host files that are byte-identical copies of
// another (xprof reads them all).
DiscoveredInput DiscoverInput(const std::string& path, const std::string& run = "", bool keep_duplicates = false);

}  // namespace tfprof
