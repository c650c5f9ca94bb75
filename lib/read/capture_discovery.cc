#include "lib/read/capture_discovery.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <utility>
#include <system_error>

#include "lib/model/errors.h"
#include "lib/read/byte_source.h"

namespace tfprof {
namespace fs = std::filesystem;
namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// TensorFlow's per-tool outputs that sit beside captures: results, not captures.
const char* ToolOutputName(const std::string& file) {
  for (const char* s : {".overview_page.pb", ".input_pipeline.pb", ".tensorflow_stats.pb", ".kernel_stats.pb",
                        ".memory_profile.json.gz", ".memory_profile.json", ".pod_viewer.json", ".tf_data_bottleneck_analysis.json"})
    if (EndsWith(file, s)) return s + 1;
  return nullptr;
}

// Capture files recognised in a run folder by name, with their host names.
std::optional<CaptureFile> CaptureFromName(const fs::path& p) {
  const std::string file = p.filename().string();
  for (const char* s : {".xplane.pb", ".xplane.pb.gz"})
    if (EndsWith(file, s)) return CaptureFile{p.string(), file.substr(0, file.size() - std::string(s).size()), CaptureFormat::kXSpace};
  if (ToolOutputName(file)) return std::nullopt;
  // Longest suffix first: PyTorch's `worker0.pt.trace.json.gz` is host
  // `worker0`, not `worker0.pt`.
  for (const char* s : {".pt.trace.json.gz", ".pt.trace.json", ".trace.json.gz", ".trace.json"})
    if (EndsWith(file, s)) return CaptureFile{p.string(), file.substr(0, file.size() - std::string(s).size()), CaptureFormat::kChromeTrace};
  // Bare names that exporters write (torch.profiler's export_chrome_trace
  // examples, TF1's timeline.json): the file's stem names the host.
  for (const char* s : {"trace.json", "trace.json.gz", "timeline.json", "timeline.json.gz"})
    if (file == s) return CaptureFile{p.string(), file.substr(0, file.find('.')), CaptureFormat::kChromeTrace};
  return std::nullopt;
}

// A host name for a file passed directly under a name we do not know
// (`run7.json.gz` → `run7`): its extensions dropped, the name kept if that
// leaves nothing.
std::string HostFromUnknownName(const std::string& file) {
  std::string host = file;
  for (const char* s : {".gz", ".json", ".pb"})
    if (EndsWith(host, s) && host.size() > std::strlen(s)) host.resize(host.size() - std::strlen(s));
  return host;
}

std::vector<fs::path> SortedEntries(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  if (ec) throw InputError(dir.string(), "cannot list folder: " + ec.message());
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) throw InputError(dir.string(), "cannot list folder: " + ec.message());
    out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool IsDir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}
bool IsFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// Why an entry named like a capture cannot be read as one.
std::string NotAFileReason(const fs::path& p) {
  std::error_code ec;
  fs::file_status link = fs::symlink_status(p, ec);
  fs::file_status target = fs::status(p, ec);
  if (fs::is_symlink(link) && !fs::exists(target)) return "a dangling symlink";
  if (fs::is_directory(target)) return "a folder";
  if (fs::is_fifo(target)) return "a FIFO";
  return "not a regular file";
}

// The captures of one run folder: one per host, xplane.pb preferred over the
// trace JSON TensorFlow wrote beside it from the same data. Entries named
// like captures that are not files go to `skipped`.
std::vector<CaptureFile> CapturesInFolder(const fs::path& dir, std::vector<std::string>* skipped = nullptr) {
  std::map<std::string, CaptureFile> by_host;
  for (const fs::path& p : SortedEntries(dir)) {
    auto c = CaptureFromName(p);
    if (!c) continue;
    if (!IsFile(p)) {
      if (skipped) skipped->push_back(p.filename().string() + " (" + NotAFileReason(p) + ")");
      continue;
    }
    auto it = by_host.find(c->host);
    if (it == by_host.end() || (it->second.format == CaptureFormat::kChromeTrace && c->format == CaptureFormat::kXSpace))
      by_host[c->host] = *c;
  }
  std::vector<CaptureFile> out;
  for (auto& [host, c] : by_host) out.push_back(std::move(c));
  return out;
}

// True when two files have the same bytes. Sizes differ for nearly every
// pair, so the full comparison rarely runs.
bool SameContent(const std::string& a, const std::string& b) {
  std::error_code ec1, ec2;
  if (fs::file_size(a, ec1) != fs::file_size(b, ec2) || ec1 || ec2) return false;
  auto ra = ChunkReader::Open(a), rb = ChunkReader::Open(b);
  std::vector<char> ba(1 << 20), bb(1 << 20);
  for (;;) {
    size_t na = ra->Read(ba.data(), ba.size()), nb = rb->Read(bb.data(), bb.size());
    if (na != nb || std::memcmp(ba.data(), bb.data(), na) != 0) return false;
    if (na == 0) return true;
  }
}

void DropDuplicateHosts(ProfileRun& run) {
  std::vector<CaptureFile> kept;
  for (CaptureFile& f : run.files) {
    auto same = std::find_if(kept.begin(), kept.end(), [&](const CaptureFile& k) { return SameContent(k.path, f.path); });
    if (same != kept.end()) run.duplicates.push_back(f.host + " (a byte-identical copy of " + same->host + ")");
    else kept.push_back(std::move(f));
  }
  run.files = std::move(kept);
}

// Every <...>/plugins/profile folder under `root`, a few levels deep (users
// point at logs/, logs/fit/ or logs/fit/<date>/train/ alike).
void FindProfileFolders(const fs::path& root, int depth, std::vector<fs::path>& out) {
  fs::path profile = root / "plugins" / "profile";
  if (IsDir(profile)) out.push_back(profile);
  if (depth == 0) return;
  for (const fs::path& p : SortedEntries(root))
    if (IsDir(p) && p.filename() != "plugins") FindProfileFolders(p, depth - 1, out);
}

// --- PyTorch profiling spans --------------------------------------------------
// torch.profiler.tensorboard_trace_handler names its files
// <worker>.<timestamp>.pt.trace.json[.gz] (ms since the epoch in 2021 builds,
// ns later): one file per worker and profiling span. Several files of one
// worker are several spans (profiles taken one after another), not several
// hosts: the i-th span of every worker is one run, as torch-tb-profiler pairs
// them. Files without a timestamp stay a run of their own.

// The worker and span of a .pt.trace.json file named so; a suffix of 10 or
// more digits is a timestamp (host names like "node.7" keep their digits).
std::optional<std::pair<std::string, std::string>> PyTorchWorkerSpan(const CaptureFile& c) {
  const std::string file = fs::path(c.path).filename().string();
  if (!EndsWith(file, ".pt.trace.json") && !EndsWith(file, ".pt.trace.json.gz")) return std::nullopt;
  const size_t dot = c.host.rfind('.');
  if (dot == std::string::npos || dot == 0) return std::nullopt;
  const std::string span = c.host.substr(dot + 1);
  if (span.size() < 10 || span.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::make_pair(c.host.substr(0, dot), span);
}

// Hosts named by their worker; the run split into one run per span index
// ("<run>/<timestamp>", the timestamp of the span's first worker) when a
// worker has several spans or some files have none. Runs keep time order:
// files without a span first, then span 1, 2, ...
std::vector<ProfileRun> SplitPyTorchSpans(ProfileRun run) {
  std::map<std::string, std::vector<std::pair<std::string, CaptureFile>>> spans_of;  // worker -> (span, file)
  std::vector<CaptureFile> plain;
  for (CaptureFile& f : run.files) {
    if (auto ws = PyTorchWorkerSpan(f)) {
      f.host = ws->first;
      spans_of[ws->first].emplace_back(ws->second, std::move(f));
    } else {
      plain.push_back(std::move(f));
    }
  }
  size_t most = 0;
  bool worker_also_plain = false;
  for (auto& [worker, spans] : spans_of) {
    // Timestamps of one worker have one width, so text order is time order.
    std::sort(spans.begin(), spans.end(), [](const auto& a, const auto& b) {
      return a.first.size() != b.first.size() ? a.first.size() < b.first.size() : a.first < b.first;
    });
    most = std::max(most, spans.size());
    for (const CaptureFile& p : plain) worker_also_plain = worker_also_plain || p.host == worker;
  }
  std::vector<ProfileRun> out;
  if (most <= 1 && !worker_also_plain) {
    for (auto& [worker, spans] : spans_of) plain.push_back(std::move(spans.front().second));
    std::sort(plain.begin(), plain.end(), [](const CaptureFile& a, const CaptureFile& b) { return a.host < b.host; });
    run.files = std::move(plain);
    out.push_back(std::move(run));
    return out;
  }
  if (!plain.empty()) {
    ProfileRun r = run;
    r.files = std::move(plain);
    out.push_back(std::move(r));
  }
  for (size_t i = 0; i < most; ++i) {
    ProfileRun r = run;
    r.files.clear();
    r.skipped.clear();
    std::string first_span;
    for (auto& [worker, spans] : spans_of) {
      if (i >= spans.size()) continue;
      if (first_span.empty()) first_span = spans[i].first;
      r.files.push_back(std::move(spans[i].second));
    }
    r.name = run.name + "/" + first_span;
    out.push_back(std::move(r));
  }
  return out;
}

// `run` names a run: its full name, its folder's name, or a span's
// timestamp (the part after the last '/').
bool RunNamed(const ProfileRun& r, const std::string& run) {
  const size_t slash = r.name.rfind('/');
  return r.name == run || fs::path(r.path).filename() == run ||
         (slash != std::string::npos && r.name.compare(slash + 1, std::string::npos, run) == 0);
}

// A folder without captures named as such may still hold Chrome traces
// under other names: HTA's and other tools' test data name ranks
// `sampled_rank-0.json.gz`, `trace_8_rank_1.json`. A `.json`/`.json.gz` file
// is one when its first 64 KiB hold the "traceEvents" key (Kineto writes it
// after deviceProperties and distributedInfo, within a few KiB); other JSON
// beside them (PyTorch execution traces, configs) is left alone.
std::vector<CaptureFile> ChromeTracesByContent(const fs::path& dir) {
  std::vector<CaptureFile> out;
  for (const fs::path& p : SortedEntries(dir)) {
    const std::string file = p.filename().string();
    if ((!EndsWith(file, ".json") && !EndsWith(file, ".json.gz")) || ToolOutputName(file) || !IsFile(p)) continue;
    std::string head;
    try {
      head = PeekContent(p.string(), 64 * 1024);
    } catch (const std::exception&) {
      continue;  // Unreadable: not taken as a capture here.
    }
    if (head.find("\"traceEvents\"") == std::string::npos) continue;
    out.push_back(CaptureFile{p.string(), HostFromUnknownName(file), CaptureFormat::kChromeTrace});
  }
  return out;
}

// The run `run` names (see RunNamed); empty: the newest, the last.
ProfileRun PickRun(const std::vector<ProfileRun>& runs, const std::string& path, const std::string& run) {
  if (run.empty()) return runs.back();
  std::vector<const ProfileRun*> hits;
  for (const ProfileRun& r : runs)
    if (r.name == run) return r;  // A full name is never ambiguous.
  for (const ProfileRun& r : runs)
    if (RunNamed(r, run)) hits.push_back(&r);
  if (hits.empty()) throw InputError(path, "no run named '" + run + "' (see --list-runs)", kExitUsage);
  if (hits.size() > 1) throw InputError(path, "run name '" + run + "' is ambiguous; use its full name from --list-runs", kExitUsage);
  return *hits.front();
}

}  // namespace

CaptureFormat DetectFormat(const std::string& path) {
  const std::string file = fs::path(path).filename().string();
  if (const char* tool = ToolOutputName(file))
    throw InputError(path, std::string("is TensorFlow's precomputed '") + tool +
                               "' tool output, not a capture; pass the .xplane.pb beside it");
  bool gz = false;
  std::string head = PeekContent(path, 4096, &gz);
  if (head.empty()) throw InputError(path, gz ? "gzip file inflates to nothing" : "file is empty (0 bytes)");
  size_t i = head.find_first_not_of(" \t\r\n");
  if (i != std::string::npos && i + 3 <= head.size() && head.compare(i, 3, "\xEF\xBB\xBF") == 0)
    i = head.find_first_not_of(" \t\r\n", i + 3);  // A UTF-8 byte order mark.
  if (i != std::string::npos && (head[i] == '{' || head[i] == '[')) return CaptureFormat::kChromeTrace;
  // An XSpace starts with a length-delimited field 1..4 (planes, errors,
  // warnings, hostnames): tag byte 0x0a, 0x12, 0x1a or 0x22.
  unsigned char b = static_cast<unsigned char>(head[0]);
  if (b == 0x0a || b == 0x12 || b == 0x1a || b == 0x22) return CaptureFormat::kXSpace;
  if (i == std::string::npos) throw InputError(path, "file holds only whitespace");
  throw InputError(path, "unknown format: neither an XSpace protobuf (.xplane.pb) nor Chrome trace JSON");
}

DiscoveredInput DiscoverInput(const std::string& path, const std::string& run, bool keep_duplicates) {
  DiscoveredInput d;
  d.input_path = path;
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw InputError(path, "no such file or folder");

  if (fs::is_regular_file(st)) {
    d.kind = InputKind::kFile;
    CaptureFile c;
    c.path = path;
    c.format = DetectFormat(path);
    auto named = CaptureFromName(fs::path(path));
    c.host = named ? named->host : HostFromUnknownName(fs::path(path).filename().string());
    if (auto ws = PyTorchWorkerSpan(c)) c.host = ws->first;
    d.selected = ProfileRun{fs::path(path).filename().string(), path, {c}};
    d.runs = {d.selected};
    return d;
  }
  if (!fs::is_directory(st)) throw InputError(path, "is neither a file nor a folder");

  // A run folder holds the captures directly.
  std::vector<std::string> skipped_here;
  std::vector<CaptureFile> here = CapturesInFolder(path, &skipped_here);
  if (here.empty() && skipped_here.empty()) {
    std::vector<fs::path> profiles;  // A logdir is read as one, whatever else its root holds.
    FindProfileFolders(path, 4, profiles);
    if (profiles.empty()) here = ChromeTracesByContent(path);
  }
  if (here.empty() && !skipped_here.empty())
    throw InputError(path, "no readable capture: " + skipped_here.front() +
                               (skipped_here.size() > 1 ? " and " + std::to_string(skipped_here.size() - 1) + " more" : ""));
  if (!here.empty()) {
    d.kind = InputKind::kRunFolder;
    ProfileRun folder{fs::path(path).lexically_normal().filename().string(), path, here};
    folder.skipped = std::move(skipped_here);
    if (folder.name.empty()) folder.name = fs::path(path).lexically_normal().parent_path().filename().string();
    d.runs = SplitPyTorchSpans(std::move(folder));
    d.selected = d.runs.size() == 1 ? d.runs.front() : PickRun(d.runs, path, run);
    for (CaptureFile& c : d.selected.files) c.format = DetectFormat(c.path);
    if (!keep_duplicates) DropDuplicateHosts(d.selected);
    return d;
  }

  // Otherwise a logdir: find plugins/profile folders and their runs.
  std::vector<fs::path> profiles;
  FindProfileFolders(path, 4, profiles);
  if (profiles.empty()) {
    if (SortedEntries(path).empty()) throw InputError(path, "folder is empty");
    throw InputError(path, "no captures found: expected <host>.xplane.pb files, a run folder, or a logdir with plugins/profile/<run>/");
  }
  d.kind = InputKind::kLogdir;
  const fs::path root = fs::path(path);
  std::string first_skipped;
  for (const fs::path& profile : profiles) {
    fs::path tb_run = profile.parent_path().parent_path().lexically_relative(root);
    for (const fs::path& r : SortedEntries(profile)) {
      if (!IsDir(r)) continue;
      ProfileRun pr;
      pr.path = r.string();
      pr.name = (profiles.size() > 1 && tb_run != "." ? tb_run.string() + "/" : "") + r.filename().string();
      pr.files = CapturesInFolder(r, &pr.skipped);
      if (!pr.files.empty()) {
        for (ProfileRun& span : SplitPyTorchSpans(std::move(pr))) d.runs.push_back(std::move(span));
      } else if (!pr.skipped.empty() && first_skipped.empty()) {
        first_skipped = pr.name + "/" + pr.skipped.front();
      }
    }
  }
  if (d.runs.empty())
    throw InputError(path, "logdir has plugins/profile/ but no run folder in it holds a readable capture" +
                               (first_skipped.empty() ? std::string() : " (skipped " + first_skipped + ")"));
  // Run folders are named by their start time (YYYY_MM_DD_HH_MM_SS), so the
  // folder name orders them; the full name breaks ties.
  std::stable_sort(d.runs.begin(), d.runs.end(), [](const ProfileRun& a, const ProfileRun& b) {
    std::string an = fs::path(a.path).filename().string(), bn = fs::path(b.path).filename().string();
    return an != bn ? an < bn : a.name < b.name;
  });
  d.selected = PickRun(d.runs, path, run);
  for (CaptureFile& c : d.selected.files) c.format = DetectFormat(c.path);
  if (!keep_duplicates) DropDuplicateHosts(d.selected);
  return d;
}

}  // namespace tfprof
