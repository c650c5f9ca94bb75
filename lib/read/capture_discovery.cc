#include "lib/read/capture_discovery.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <system_error>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "lib/model/errors.h"
#include "lib/read/byte_source.h"
#include "lib/read/capture_formats.h"
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
  for (const char* s :
       {".overview_page.pb", ".input_pipeline.pb", ".tensorflow_stats.pb", ".kernel_stats.pb",
        ".memory_profile.json.gz", ".memory_profile.json", ".pod_viewer.json", ".tf_data_bottleneck_analysis.json"})
    if (EndsWith(file, s)) return s + 1;
  return nullptr;
}

// Capture files recognised in a run folder by name (the format table's name
// rules), with their host names; TensorFlow's tool outputs never are.
std::optional<CaptureFile> CaptureFromName(const fs::path& p) {
  const std::string file = p.filename().string();
  if (ToolOutputName(file)) return std::nullopt;
  std::optional<NamedCapture> named = CaptureFromFileName(file);
  if (!named) return std::nullopt;
  return CaptureFile{p.string(), std::move(named->host), named->format};
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

// A file that no name rule claims, read by content: a Chrome trace
// whatever it is called (`rank0_kineto.json.gz`, `train.json`). Only names
// a format may hold are opened, only regular files (never a FIFO, which
// would block); tool outputs stay out whatever they hold. Unreadable or
// corrupt files are not captures.
std::optional<CaptureFile> CaptureFromContent(const fs::path& p) {
  const std::string file = p.filename().string();
  std::error_code ec;
  if (ToolOutputName(file)) return std::nullopt;
  for (const CaptureFormatRow& row : CaptureFormats())
    if (row.name_may_hold && row.name_may_hold(file) && fs::is_regular_file(p, ec) && row.holds_capture(p.string()))
      return CaptureFile{p.string(), HostFromUnknownName(file), row.format};
  return std::nullopt;
}

// What the "no captures found" message lists: the names taken as captures.
std::string RecognisedNames() {
  std::string names;
  for (const CaptureFormatRow& row : CaptureFormats())
    names += (names.empty() ? "" : ", ") + std::string(row.recognised_names);
  return names +
         ", in this folder, in its rank folders (rank_0/, rank_1/, ... or worker0/, ...) or in a logdir's "
         "plugins/profile/<run>/";
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

// Why a regular file cannot be opened for reading (as a file without read
// permission, for a user other than root); empty when it can.
std::string CannotOpenReason(const fs::path& p) {
  int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return std::string("cannot be opened: ") + std::strerror(errno);
  ::close(fd);
  return std::string();
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
    // One unreadable host file must not stop the others (or --list-runs)
    // from being read: it is skipped and reported like a FIFO.
    if (std::string why = CannotOpenReason(p); !why.empty()) {
      if (skipped) skipped->push_back(p.filename().string() + " (" + why + ")");
      continue;
    }
    auto it = by_host.find(c->host);
    if (it == by_host.end() || FormatRow(c->format).host_preference > FormatRow(it->second.format).host_preference)
      by_host[c->host] = *c;
  }
  // Beside an XPlane, JSON traces under other names are views of the same
  // capture (JAX's perfetto_trace.json.gz), not more hosts: only folders
  // without one are searched by content.
  const bool hidden = std::any_of(by_host.begin(), by_host.end(),
                                  [](const auto& h) { return FormatRow(h.second.format).hides_unnamed_files; });
  if (!hidden)
    for (const fs::path& p : unnamed)
      if (auto c = CaptureFromContent(p)) by_host.try_emplace(c->host, std::move(*c));
  std::vector<CaptureFile> out;
  for (auto& [host, c] : by_host) out.push_back(std::move(c));
  return GatherTf1TimelineSeries(std::move(out));
}

// A file's raw bytes in fixed-size blocks: the same split on every read,
// so equal files hash alike.
class BlockReader {
 public:
  // O_NONBLOCK: a host file swapped for a FIFO since it was listed must not
  // block the open.
  explicit BlockReader(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)) {}
  ~BlockReader() {
    if (fd_ >= 0) ::close(fd_);
  }
  BlockReader(const BlockReader&) = delete;
  BlockReader& operator=(const BlockReader&) = delete;
  bool ok() const { return fd_ >= 0; }
  // The next block's bytes in `block`: its length, 0 at the end, or -1 on a
  // read error.
  ssize_t Next(std::vector<char>& block) {
    size_t got = 0;
    while (got < block.size()) {
      ssize_t n = ::read(fd_, block.data() + got, block.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return -1;
      if (n == 0) break;
      got += static_cast<size_t>(n);
    }
    return static_cast<ssize_t>(got);
  }

 private:
  int fd_;
};

constexpr size_t kBlockBytes = 1 << 20;

// A hash of a file's bytes; nullopt when it cannot be read through. absl's
// hash is seeded per process, so a crafted set of files cannot be made to
// collide ahead of time.
std::optional<size_t> ContentHash(const std::string& path, std::vector<char>& block, DiscoveryWork& work) {
  ++work.file_reads;
  BlockReader reader(path);
  if (!reader.ok()) return std::nullopt;
  size_t hash = 0;
  for (;;) {
    ssize_t n = reader.Next(block);
    if (n < 0) return std::nullopt;
    if (n == 0) return hash;
    hash = absl::HashOf(hash, std::string_view(block.data(), static_cast<size_t>(n)));
  }
}

// True when two files have the same bytes (checked after their hashes agree).
bool SameBytes(const std::string& a, const std::string& b, std::vector<char>& block_a, std::vector<char>& block_b,
               DiscoveryWork& work) {
  work.file_reads += 2;
  BlockReader ra(a), rb(b);
  if (!ra.ok() || !rb.ok()) return false;
  for (;;) {
    ssize_t na = ra.Next(block_a), nb = rb.Next(block_b);
    if (na < 0 || na != nb || std::memcmp(block_a.data(), block_b.data(), static_cast<size_t>(na)) != 0) return false;
    if (na == 0) return true;
  }
}

// Drops the host files that are byte-identical copies of an earlier one.
// Only a file whose size another file shares can be a copy: those are read
// once each for a hash, and bytes are compared only where hashes agree, so
// the work is linear in the run's bytes. (Comparing every same-size pair
// took 68 s for 400 hosts before reading any.)
void DropDuplicateHosts(ProfileRun& run, DiscoveryWork& work) {
  std::vector<std::optional<uint64_t>> sizes;
  absl::flat_hash_map<uint64_t, size_t> files_of_size;
  for (const CaptureFile& f : run.files) {
    std::error_code ec;
    uint64_t size = fs::file_size(f.path, ec);
    sizes.push_back(ec ? std::nullopt : std::optional<uint64_t>(size));
    if (!ec) ++files_of_size[size];
  }
  std::vector<char> block_a, block_b;
  // (size, hash) -> the kept files with them: almost always one.
  absl::flat_hash_map<std::pair<uint64_t, size_t>, std::vector<size_t>> kept_by_content;
  std::vector<CaptureFile> kept;
  for (size_t i = 0; i < run.files.size(); ++i) {
    CaptureFile& f = run.files[i];
    std::optional<size_t> hash;
    if (sizes[i] && files_of_size[*sizes[i]] > 1) {
      block_a.resize(kBlockBytes);
      hash = ContentHash(f.path, block_a, work);
    }
    if (!hash) {
      kept.push_back(std::move(f));
      continue;
    }
    std::vector<size_t>& same_hash = kept_by_content[{*sizes[i], *hash}];
    if (!same_hash.empty()) block_b.resize(kBlockBytes);
    auto original = std::find_if(same_hash.begin(), same_hash.end(),
                                 [&](size_t k) { return SameBytes(kept[k].path, f.path, block_a, block_b, work); });
    if (original != same_hash.end()) {
      run.duplicates.push_back(f.host + " (a byte-identical copy of " + kept[*original].host + ")");
      continue;
    }
    same_hash.push_back(kept.size());
    kept.push_back(std::move(f));
  }
  run.files = std::move(kept);
}

// Every <...>/plugins/profile folder under `root`, up to 4 levels down
// (users point at logs/, logs/fit/ or logs/fit/<date>/train/ alike), or
// `root` itself when it is one (or its plugins/ folder).
// Breadth first, and each real folder (device and inode) once: a logdir
// holding k symlinks to itself used to cost k^4 listings and list each run
// k^4 times under as many names.
std::vector<fs::path> FindProfileFolders(const fs::path& root, DiscoveryWork& work) {
  // The folder of the runs itself, or the plugins/ folder above it, is as
  // natural a thing to point at as the logdir (tab completion stops there).
  std::error_code ec;
  fs::path named = fs::absolute(root, ec).lexically_normal();
  if (!named.has_filename()) named = named.parent_path();  // A trailing '/'.
  if (named.filename() == "profile" && named.parent_path().filename() == "plugins") return {root};
  if (named.filename() == "plugins" && IsDir(root / "profile")) return {root / "profile"};
  constexpr int kMaxDepth = 4;
  absl::flat_hash_set<std::pair<dev_t, ino_t>> seen;
  auto first_visit = [&seen](const fs::path& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && seen.emplace(st.st_dev, st.st_ino).second;
  };
  std::vector<fs::path> profiles, level{root}, next;
  first_visit(root);
  for (int depth = 0; !level.empty(); ++depth) {
    next.clear();
    for (const fs::path& dir : level) {
      fs::path profile = dir / "plugins" / "profile";
      if (IsDir(profile) && first_visit(profile)) profiles.push_back(profile);
      if (depth == kMaxDepth) continue;
      ++work.folders_listed;
      for (const fs::path& p : SortedEntries(dir))
        if (IsDir(p) && p.filename() != "plugins" && first_visit(p)) next.push_back(p);
    }
    level.swap(next);
  }
  return profiles;
}

// --- PyTorch profiling spans --------------------------------------------------
// torch.profiler.tensorboard_trace_handler names its files
// <worker>.<timestamp>.pt.trace.json[.gz] (ms since the epoch in 2021 builds,
// ns later): one file per worker and profiling span. Several files of one
// worker are several spans (profiles taken one after another), not several
// hosts: the i-th span of every worker is one run, as torch-tb-profiler pairs
// them. Files without a timestamp stay a run of their own.

// A folder a rank of a distributed run wrote into: rank0, rank_1, rank-2,
// worker_3 (any case).
bool IsRankFolderName(std::string name) {
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  size_t at = name.rfind("rank", 0) == 0 ? 4 : name.rfind("worker", 0) == 0 ? 6 : 0;
  if (at == 0) return false;
  if (at < name.size() && (name[at] == '_' || name[at] == '-')) ++at;
  return at < name.size() && name.find_first_not_of("0123456789", at) == std::string::npos;
}

// The captures of `dir`'s rank folders (IsRankFolderName), each host named
// "<folder>/<host>": ranks often name their files alike (trace.json, or a
// container's pid 1 in a worker's name).
std::vector<CaptureFile> CapturesInRankFolders(const fs::path& dir, std::vector<std::string>* skipped) {
  std::vector<CaptureFile> out;
  for (const fs::path& sub : SortedEntries(dir)) {
    if (!IsDir(sub) || !IsRankFolderName(sub.filename().string())) continue;
    std::vector<std::string> sub_skipped;
    for (CaptureFile& c : CapturesInFolder(sub, &sub_skipped)) {
      c.host = sub.filename().string() + "/" + c.host;
      out.push_back(std::move(c));
    }
    for (std::string& s : sub_skipped) skipped->push_back(sub.filename().string() + "/" + s);
  }
  return out;
}

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

// A run's hosts are in the order of their files' names, as a folder lists
// them: a run summary orders its hosts so (run_summary.h), whether one
// process read them or each was summarised apart.
void SortByFileName(std::vector<CaptureFile>& files) {
  std::sort(files.begin(), files.end(), [](const CaptureFile& a, const CaptureFile& b) {
    return CaptureSourceName(a.path) < CaptureSourceName(b.path);
  });
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
  // The files are all moved out: a span's run copies the rest of `run`,
  // not an emptied list of them all (copied once per span, that list made
  // the discovery quadratic in a worker's files: 12,000 one-step files,
  // 13.6 GB).
  std::vector<CaptureFile>().swap(run.files);
  std::vector<ProfileRun> out;
  if (most <= 1 && !worker_also_plain) {
    for (auto& [worker, spans] : spans_of) plain.push_back(std::move(spans.front().second));
    SortByFileName(plain);
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
    ProfileRun r = run;  // Its files were moved out above: a copy of the rest.
    r.skipped.clear();
    std::string first_span;
    for (auto& [worker, spans] : spans_of) {
      if (i >= spans.size()) continue;
      if (first_span.empty()) first_span = spans[i].first;
      r.files.push_back(std::move(spans[i].second));
    }
    r.name = run.name + "/" + first_span;
    SortByFileName(r.files);
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

// The run `run` names (see RunNamed); empty: the newest, the last.
ProfileRun PickRun(const std::vector<ProfileRun>& runs, const std::string& path, const std::string& run) {
  if (run.empty()) return runs.back();
  std::vector<const ProfileRun*> hits;
  for (const ProfileRun& r : runs)
    if (r.name == run) return r;  // A full name is never ambiguous.
  for (const ProfileRun& r : runs)
    if (RunNamed(r, run)) hits.push_back(&r);
  if (hits.empty()) throw InputError(path, "no run named '" + run + "'", kExitUsage, InputHint::kListRuns);
  if (hits.size() > 1)
    throw InputError(path, "run name '" + run + "' is ambiguous; use its full name", kExitUsage,
                     InputHint::kRunNamesListed);
  return *hits.front();
}

}  // namespace

std::string CaptureSourceName(const std::string& path) {
  const fs::path p(path);
  const std::string file = p.filename().string();
  const std::string folder = p.parent_path().filename().string();
  return IsRankFolderName(folder) ? folder + "/" + file : file;
}

CaptureFormat DetectFormat(const std::string& path) {
  const std::string file = fs::path(path).filename().string();
  if (const char* tool = ToolOutputName(file))
    throw InputError(path, std::string("is TensorFlow's precomputed '") + tool +
                               "' tool output, not a capture; pass the .xplane.pb beside it");
  bool gz = false;
  std::string head = PeekContent(path, kFormatSniffBytes, &gz);
  if (head.empty()) throw InputError(path, gz ? "gzip file inflates to nothing" : "file is empty (0 bytes)");
  if (const CaptureFormatRow* row = FormatFromContent(head)) return row->format;
  if (TextStart(head) == std::string::npos) throw InputError(path, "file holds only whitespace");
  std::string formats;
  for (const CaptureFormatRow& row : CaptureFormats())
    formats += (formats.empty() ? "neither " : " nor ") + std::string(row.description);
  throw InputError(path, "unknown format: " + formats);
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
  // Unknown-named Chrome traces were taken by content above
  // (CaptureFromContent); the profile folders of a logdir are looked for
  // once (each real folder listed once).
  std::vector<fs::path> profiles;
  if (here.empty() && skipped_here.empty()) profiles = FindProfileFolders(path, d.work);
  // Not a logdir either: a distributed run's rank folders (rank_0/, ...)
  // make one run folder of their captures.
  if (here.empty() && skipped_here.empty() && profiles.empty()) here = CapturesInRankFolders(path, &skipped_here);
  if (here.empty() && !skipped_here.empty())
    throw InputError(path,
                     "no readable capture: " + skipped_here.front() +
                         (skipped_here.size() > 1 ? " and " + std::to_string(skipped_here.size() - 1) + " more" : ""));
  if (!here.empty()) {
    d.kind = InputKind::kRunFolder;
    ProfileRun folder{fs::path(path).lexically_normal().filename().string(), path, here};
    folder.skipped = std::move(skipped_here);
    if (folder.name.empty()) folder.name = fs::path(path).lexically_normal().parent_path().filename().string();
    d.runs = SplitPyTorchSpans(std::move(folder));
    d.selected = d.runs.size() == 1 ? d.runs.front() : PickRun(d.runs, path, run);
    for (CaptureFile& c : d.selected.files) c.format = DetectFormat(c.path);
    if (!keep_duplicates) DropDuplicateHosts(d.selected, d.work);
    return d;
  }

  // Otherwise a logdir: its plugins/profile folders (found above) and their runs.
  if (profiles.empty()) {
    if (SortedEntries(path).empty()) throw InputError(path, "folder is empty");
    throw InputError(path, "no captures found: recognised are " + RecognisedNames());
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
  if (!keep_duplicates) DropDuplicateHosts(d.selected, d.work);
  return d;
}

}  // namespace tfprof
