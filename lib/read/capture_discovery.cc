#include "lib/read/capture_discovery.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <system_error>

#include "lib/model/errors.h"
#include "lib/read/byte_source.h"
#include "lib/read/tf1_timeline_files.h"
#include "lib/read/trace_json_sniff.h"

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
  // TF1 timelines as users named them (timeline_01.json, timeline_xla.ctf.json):
  // the name without .json(.gz); numbered ones are gathered below.
  if (IsTf1TimelineName(file))
    return CaptureFile{p.string(), file.substr(0, file.size() - (file.back() == 'z' ? 8 : 5)), CaptureFormat::kChromeTrace};
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

// A .json or .json.gz file that no name rule claims, read by content: a
// Chrome trace whatever it is called (`rank0_kineto.json.gz`, `train.json`).
// Only regular files are opened (never a FIFO, which would block); tool
// outputs stay out whatever they hold.
std::optional<CaptureFile> CaptureFromContent(const fs::path& p) {
  const std::string file = p.filename().string();
  std::error_code ec;
  if (!HasJsonName(file) || ToolOutputName(file) || !fs::is_regular_file(p, ec)) return std::nullopt;
  if (!LooksLikeTraceJson(p.string())) return std::nullopt;
  return CaptureFile{p.string(), HostFromUnknownName(file), CaptureFormat::kChromeTrace};
}

// What the "no captures found" message lists: the names taken as captures.
constexpr const char* kRecognisedNames =
    "<host>.xplane.pb[.gz], <host>[.pt].trace.json[.gz], trace.json[.gz], timeline*.json[.gz], or any .json[.gz] "
    "holding Chrome trace JSON (\"traceEvents\" or \"ph\" in its first 64 KiB), in this folder or in a logdir's "
    "plugins/profile/<run>/";

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
  std::vector<fs::path> unnamed;  // Files no name rule claims: read by content below.
  for (const fs::path& p : SortedEntries(dir)) {
    auto c = CaptureFromName(p);
    if (!c) {
      unnamed.push_back(p);
      continue;
    }
    if (!IsFile(p)) {
      if (skipped) skipped->push_back(p.filename().string() + " (" + NotAFileReason(p) + ")");
      continue;
    }
    auto it = by_host.find(c->host);
    if (it == by_host.end() || (it->second.format == CaptureFormat::kChromeTrace && c->format == CaptureFormat::kXSpace))
      by_host[c->host] = *c;
  }
  // Beside an XPlane, JSON traces under other names are views of the same
  // capture (JAX's perfetto_trace.json.gz), not more hosts: only folders
  // without one are searched by content.
  const bool has_xplane = std::any_of(by_host.begin(), by_host.end(),
                                      [](const auto& h) { return h.second.format == CaptureFormat::kXSpace; });
  if (!has_xplane)
    for (const fs::path& p : unnamed)
      if (auto c = CaptureFromContent(p)) by_host.try_emplace(c->host, std::move(*c));
  std::vector<CaptureFile> out;
  for (auto& [host, c] : by_host) out.push_back(std::move(c));
  return GatherTf1TimelineSeries(std::move(out));
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
    d.selected = ProfileRun{fs::path(path).filename().string(), path, {c}};
    d.runs = {d.selected};
    return d;
  }
  if (!fs::is_directory(st)) throw InputError(path, "is neither a file nor a folder");

  // A run folder holds the captures directly.
  std::vector<std::string> skipped_here;
  std::vector<CaptureFile> here = CapturesInFolder(path, &skipped_here);
  if (here.empty() && !skipped_here.empty())
    throw InputError(path, "no readable capture: " + skipped_here.front() +
                               (skipped_here.size() > 1 ? " and " + std::to_string(skipped_here.size() - 1) + " more" : ""));
  if (!here.empty()) {
    d.kind = InputKind::kRunFolder;
    d.selected = ProfileRun{fs::path(path).lexically_normal().filename().string(), path, here};
    d.selected.skipped = std::move(skipped_here);
    if (d.selected.name.empty()) d.selected.name = fs::path(path).lexically_normal().parent_path().filename().string();
    d.runs = {d.selected};
    for (CaptureFile& c : d.selected.files) c.format = DetectFormat(c.path);
    if (!keep_duplicates) DropDuplicateHosts(d.selected);
    return d;
  }

  // Otherwise a logdir: find plugins/profile folders and their runs.
  std::vector<fs::path> profiles;
  FindProfileFolders(path, 4, profiles);
  if (profiles.empty()) {
    if (SortedEntries(path).empty()) throw InputError(path, "folder is empty");
    throw InputError(path, std::string("no captures found: recognised are ") + kRecognisedNames);
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
      if (!pr.files.empty()) d.runs.push_back(std::move(pr));
      else if (!pr.skipped.empty() && first_skipped.empty()) first_skipped = pr.name + "/" + pr.skipped.front();
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
  if (run.empty()) {
    d.selected = d.runs.back();
  } else {
    std::vector<const ProfileRun*> hits;
    for (const ProfileRun& r : d.runs)
      if (r.name == run || fs::path(r.path).filename() == run) hits.push_back(&r);
    if (hits.empty()) throw InputError(path, "no run named '" + run + "' (see --list-runs)", kExitUsage);
    if (hits.size() > 1) throw InputError(path, "run name '" + run + "' is ambiguous; use its full name from --list-runs", kExitUsage);
    d.selected = *hits.front();
  }
  for (CaptureFile& c : d.selected.files) c.format = DetectFormat(c.path);
  if (!keep_duplicates) DropDuplicateHosts(d.selected);
  return d;
}

}  // namespace tfprof
