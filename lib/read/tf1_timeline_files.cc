#include "lib/read/tf1_timeline_files.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>

#include "lib/model/errors.h"
#include "lib/model/tf1_timeline.h"
#include "lib/read/event_copy.h"
#include "lib/read/stat_edit.h"

namespace tfprof {
namespace {

std::string FileName(const std::string& path) { return std::filesystem::path(path).filename().string(); }

// "timeline_01.json" -> ("timeline_", "01", ".json"); nullopt without a
// number right before the extensions.
struct Numbered {
  std::string base, number, tail;
};
std::optional<Numbered> SplitNumber(const std::string& file) {
  // The number ends at the first '.' after "timeline": extensions such as
  // ".ctf.json" follow it.
  size_t dot = file.find('.', 8);
  if (dot == std::string::npos) return std::nullopt;
  size_t begin = dot;
  while (begin > 8 && std::isdigit(static_cast<unsigned char>(file[begin - 1]))) --begin;
  if (begin == dot) return std::nullopt;
  return Numbered{file.substr(0, begin), file.substr(begin, dot - begin), file.substr(dot)};
}

}  // namespace

bool IsTf1TimelineName(const std::string& file) {
  if (file.rfind("timeline", 0) != 0) return false;
  for (const char* ext : {".json", ".json.gz"}) {
    const size_t n = std::char_traits<char>::length(ext);
    if (file.size() > n && file.compare(file.size() - n, n, ext) == 0) return true;
  }
  return false;
}

std::vector<CaptureFile> GatherTf1TimelineSeries(std::vector<CaptureFile> files) {
  // (base, tail) -> the files numbered between them, by number.
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<unsigned long long, size_t>>> series;
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string name = FileName(files[i].path);
    if (!IsTf1TimelineName(name)) continue;
    if (auto n = SplitNumber(name))
      series[{n->base, n->tail}].emplace_back(std::strtoull(n->number.c_str(), nullptr, 10), i);
  }
  std::vector<bool> absorbed(files.size());
  std::vector<CaptureFile> gathered;
  for (auto& [key, members] : series) {
    if (members.size() < 2) continue;
    std::stable_sort(members.begin(), members.end());
    CaptureFile c = files[members.front().second];
    std::string host = key.first;
    while (!host.empty() && (host.back() == '_' || host.back() == '-' || host.back() == '.')) host.pop_back();
    c.host = host;
    for (size_t k = 1; k < members.size(); ++k) c.more_steps.push_back(files[members[k].second].path);
    for (const auto& [number, index] : members) absorbed[index] = true;
    gathered.push_back(std::move(c));
  }
  std::vector<CaptureFile> out;
  for (size_t i = 0; i < files.size(); ++i)
    if (!absorbed[i]) out.push_back(std::move(files[i]));
  for (CaptureFile& c : gathered) {
    // A series must not take the name of a lone file ("timeline.json" beside
    // "timeline_1.json", ...): then it is named by its first and last files.
    bool taken = std::any_of(out.begin(), out.end(), [&](const CaptureFile& o) { return o.host == c.host; });
    if (taken)
      c.host = FileName(c.path).substr(0, FileName(c.path).find('.', 8)) + ".." +
               FileName(c.more_steps.back()).substr(0, FileName(c.more_steps.back()).find('.', 8));
    out.push_back(std::move(c));
  }
  std::sort(out.begin(), out.end(), [](const CaptureFile& a, const CaptureFile& b) { return a.host < b.host; });
  return out;
}

void AppendTf1TimelineStep(Host& into, const Host& step) {
  if (!Tf1SessionRunLine(step))
    throw InputError(step.source_path, "is numbered as a step of a TensorFlow 1 timeline series (" +
                                           FileName(into.source_path) + ", ...) but is not a TF1 timeline");
  if (!Tf1SessionRunLine(into))
    throw InputError(into.source_path,
                     "is numbered as the first step of a TensorFlow 1 timeline series but is not "
                     "a TF1 timeline");
  // Every time of a host stays within 50 days of its origin (as the Chrome
  // trace reader keeps them), so that differences fit in int64 picoseconds.
  constexpr int64_t kMaxOffsetNs = int64_t{50} * 86'400 * 1'000'000'000;
  const int64_t offset_ns = step.time_origin_ns - into.time_origin_ns;
  if (offset_ns > kMaxOffsetNs || offset_ns < -kMaxOffsetNs)
    throw InputError(step.source_path, "is more than 50 days apart from " + FileName(into.source_path) +
                                           ", the first timeline of its series: not steps of one run");
  const int64_t shift_ps = offset_ns * 1000;
  for (const Plane& from : step.planes) {
    auto it = std::find_if(into.planes.begin(), into.planes.end(),
                           [&](const Plane& p) { return into.PlaneName(p) == step.PlaneName(from); });
    if (it == into.planes.end()) {
      Plane fresh;
      fresh.id = from.id;
      fresh.name = into.strings.Intern(step.PlaneName(from));
      fresh.device = from.device;
      into.planes.push_back(std::move(fresh));
      it = into.planes.end() - 1;
    }
    Plane& to = *it;
    EventCopier copy(step, from, into, to);
    if (to.plane_stats.empty())
      for (const Stat& s : from.plane_stats)
        to.plane_stats.push_back(Stat::Make(StatKeyFor(into, to, step.Str(from.stat_metadata[s.key()].name)), s.type(),
                                            s.type() == StatType::kString ? copy.ToDest(s.AsString()) : s.bits));
    for (const Line& line : from.lines) {
      auto l = std::find_if(to.lines.begin(), to.lines.end(),
                            [&](const Line& x) { return into.Str(x.name) == step.Str(line.name); });
      if (l == to.lines.end()) {
        int64_t id = line.id;
        while (std::any_of(to.lines.begin(), to.lines.end(), [&](const Line& x) { return x.id == id; })) ++id;
        Line& fresh = to.lines.emplace_back();
        fresh.id = id;
        fresh.name = into.strings.Intern(step.Str(line.name));
        fresh.display_name = copy.ToDest(line.display_name);
        l = to.lines.end() - 1;
      }
      for (size_t i = 0; i < line.events.size(); ++i) copy.Copy(line, i, *l, shift_ps);
      l->SortEvents();
    }
    SetLineSpans(into, to, schema::IsGpuPlane(into.PlaneName(to)));
  }
  into.file_bytes += step.file_bytes;
  into.gzipped = into.gzipped || step.gzipped;
  for (const std::string& h : step.hostnames)
    if (std::find(into.hostnames.begin(), into.hostnames.end(), h) == into.hostnames.end()) into.hostnames.push_back(h);
  into.errors.insert(into.errors.end(), step.errors.begin(), step.errors.end());
  into.warnings.insert(into.warnings.end(), step.warnings.begin(), step.warnings.end());
}

}  // namespace tfprof
