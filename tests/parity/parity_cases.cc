// The parity cases: every run with reference answers, for every analysis
// that has a comparison. Analyses register their comparisons here.
#include <algorithm>
#include <filesystem>

#include "tests/parity/kernel_stats_parity.h"
#include "tests/parity/memory_parity.h"
#include "tests/parity/op_stats_parity.h"
#include "tests/parity/overview_parity.h"
#include "tests/parity/parity.h"
#include "tests/parity/steps_parity.h"

namespace tfprof::parity {
namespace fs = std::filesystem;
namespace {

std::string FileWithSuffix(const fs::path& dir, const std::string& suffix) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      return e.path().string();
  }
  return "";
}

// "e4040-2023fall-assign2-hd2551/…/2023_11_07_18_18_59" -> "hd2551 2023_11_07_18_18_59".
std::string ShortName(const std::string& relative) {
  fs::path p(relative);
  std::string first = p.begin()->string();
  size_t dash = first.rfind('-');
  if (dash != std::string::npos && first.rfind("e4040", 0) == 0) first = first.substr(dash + 1);
  return first + " " + p.filename().string();
}

struct Run {
  std::string name;
  fs::path folder;     // The capture's run folder.
  fs::path reference;  // testdata/reference/... (may not exist).
};

// Memory profiles are per host: TensorFlow wrote `<host>.memory_profile.json.gz`
// beside each capture; xprof's answer is memory_profile.json (one host) or
// memory_profile.<host>.json per host.
void AddMemoryCases(const Run& run, std::vector<Case>& out) {
  const std::string folder = run.folder.string();
  const std::string legacy_suffix = ".memory_profile.json.gz";
  std::error_code ec;
  std::vector<fs::path> legacy, xprof;
  for (const auto& e : fs::directory_iterator(run.folder, ec))
    if (std::string n = e.path().filename().string();
        n.size() > legacy_suffix.size() &&
        n.compare(n.size() - legacy_suffix.size(), legacy_suffix.size(), legacy_suffix) == 0)
      legacy.push_back(e.path());
  for (const auto& e : fs::directory_iterator(run.reference, ec))
    if (std::string n = e.path().filename().string();
        n.rfind("memory_profile.", 0) == 0 && e.path().extension() == ".json")
      xprof.push_back(e.path());
  std::sort(legacy.begin(), legacy.end());
  std::sort(xprof.begin(), xprof.end());
  for (const fs::path& gz : legacy) {
    std::string n = gz.filename().string();
    std::string host = n.substr(0, n.size() - legacy_suffix.size());
    out.push_back({run.name + (legacy.size() > 1 ? " " + host : ""), "memory", "TF legacy .json.gz",
                   [folder, host, p = gz.string()] { return CompareMemoryWithLegacy(folder, host, p); }});
  }
  for (const fs::path& json : xprof) {
    std::string n = json.filename().string();  // memory_profile[.<host>].json
    std::string host = n == "memory_profile.json" ? "" : n.substr(15, n.size() - 15 - 5);
    out.push_back({run.name + (host.empty() ? "" : " " + host), "memory", "xprof 2.24.2",
                   [folder, host, p = json.string()] { return CompareMemoryWithXprof(folder, host, p); }});
  }
}

// Per analysis of a whole run: the file TensorFlow wrote beside the capture
// (by suffix) and xprof's answer (in the run's reference folder), each with
// its comparison. Cases are made in this order, TensorFlow's first.
struct RunReferences {
  const char* analysis;
  const char* legacy_suffix;
  Tally (*compare_with_legacy)(const std::string& run_folder, const std::string& pb_path);
  const char* xprof_json;
  Tally (*compare_with_xprof)(const std::string& run_folder, const std::string& json_path);
};
constexpr RunReferences kRunReferences[] = {
    {"op-stats", ".tensorflow_stats.pb", CompareOpStatsWithLegacy, "framework_op_stats.json", CompareOpStatsWithXprof},
    {"overview", ".overview_page.pb", CompareOverviewWithLegacy, "overview_page.json", CompareOverviewWithXprof},
    {"steps", ".input_pipeline.pb", CompareStepsWithLegacy, "input_pipeline_analyzer.json", CompareStepsWithXprof},
    {"kernel-stats", ".kernel_stats.pb", CompareKernelStatsWithLegacy, "kernel_stats.json",
     CompareKernelStatsWithXprof},
};

void AddRunCases(const Run& run, std::vector<Case>& out) {
  const std::string folder = run.folder.string();
  for (const RunReferences& r : kRunReferences) {
    if (std::string pb = FileWithSuffix(run.folder, r.legacy_suffix); !pb.empty())
      out.push_back(
          {run.name, r.analysis, "TF legacy .pb", [folder, pb, f = r.compare_with_legacy] { return f(folder, pb); }});
    if (std::string json = (run.reference / r.xprof_json).string(); fs::exists(json))
      out.push_back(
          {run.name, r.analysis, "xprof 2.24.2", [folder, json, f = r.compare_with_xprof] { return f(folder, json); }});
  }
  AddMemoryCases(run, out);
}

}  // namespace

std::vector<Case> AllCases(const std::string& source_dir, const std::string& corpus_dir) {
  std::vector<Run> runs;
  // Every run folder with reference answers: under testdata/reference/{captures,corpus}/.
  const fs::path ref_root = fs::path(source_dir) / "testdata/reference";
  for (const auto& [kind, root] :
       {std::pair<std::string, fs::path>{"captures", fs::path(source_dir) / "testdata/captures"},
        std::pair<std::string, fs::path>{"corpus", fs::path(corpus_dir)}}) {
    std::error_code ec;
    const fs::path refs = ref_root / kind;
    for (auto it = fs::recursive_directory_iterator(refs, ec); it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      if (it->path().filename() != "versions.json") continue;
      const fs::path rel = it->path().parent_path().lexically_relative(refs);
      const fs::path folder = root / rel;
      if (!fs::is_directory(folder)) continue;  // The corpus is absent.
      runs.push_back(
          {(kind == "captures" ? rel.begin()->string() : ShortName(rel.string())), folder, it->path().parent_path()});
    }
  }
  std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.name < b.name; });
  std::vector<Case> out;
  for (const Run& r : runs) AddRunCases(r, out);
  return out;
}

}  // namespace tfprof::parity
