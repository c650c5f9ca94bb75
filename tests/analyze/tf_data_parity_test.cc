// Parity of `tf-data` with the TensorFlow Profiler's tf_data_bottleneck_analysis
// (tensorboard-plugin-profile 2.19.0) on every capture and corpus run with a
// reference in testdata/reference. Set TFPROF_PARITY_REPORT=1 to print the
// per-capture table.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "tests/support/corpus.h"
#include "tests/support/run_tool.h"
#include "tests/support/skip.h"

using json = nlohmann::json;
using tfprof::testing::RunTool;

namespace {

// What one comparison found; reusable by a parity report script.
struct TfDataParity {
  int matched = 0;
  int differed = 0;
  int not_compared = 0;
  double worst_latency_us = 0;  // Largest |ours - reference| over the compared latencies.
  std::vector<std::string> differences;

  void Check(bool same, const std::string& what) {
    if (same) ++matched;
    else ++differed, differences.push_back(what);
  }
  // The reference truncates to whole microseconds.
  bool SameUs(double ours_us, const json& ref) {
    double r = ref.get<double>();
    worst_latency_us = std::max(worst_latency_us, std::fabs(ours_us - r));
    return std::floor(ours_us) == r;
  }
};

std::string Between(const std::string& s, const std::string& a, const std::string& b) {
  size_t i = s.find(a);
  if (i == std::string::npos) return "";
  i += a.size();
  size_t j = s.find(b, i);
  return s.substr(i, j == std::string::npos ? std::string::npos : j - i);
}

struct RefPipeline {
  std::string host, label;
  std::string root_id;
  std::vector<std::vector<const json*>> blocks;  // Graph rows per rank.
};

// The reference's graph table lists each pipeline's calls (rank 0..n-1), each
// as its iterators by ascending id; its pipelines table lists the pipelines
// in the same order. Pipelines are told apart by their root iterator id (the
// labels of two pipelines can be equal or, for device pipelines, swap
// between runs).
std::vector<RefPipeline> SplitReferenceGraph(const json& graph, const json& ours_pipelines) {
  std::vector<RefPipeline> out;
  int64_t last_rank = -1;
  long double last_id = 0;
  for (const json& row : graph["rows"]) {
    const json& c = row["c"];
    std::string host = c[0]["v"], label = c[1]["v"], id = c[3]["v"];
    int64_t rank = c[2]["v"];
    long double idv = std::stold(id);
    bool new_pipeline = out.empty() || out.back().host != host || out.back().label != label || rank < last_rank ||
                        (rank == last_rank && idv <= last_id && rank == 0 && out.back().blocks.size() == 1);
    if (new_pipeline) out.push_back({host, label, "", {}});
    if (new_pipeline || rank != last_rank || idv <= last_id) out.back().blocks.emplace_back();
    out.back().blocks.back().push_back(&row);
    last_rank = rank;
    last_id = idv;
  }
  for (RefPipeline& p : out) {
    // The root: parentless in every call, and a root id of ours on that host.
    for (const json* row : p.blocks[0]) {
      if ((*row)["c"][4]["v"] != "") continue;
      std::string id = (*row)["c"][3]["v"];
      for (const json& o : ours_pipelines)
        if (o["host"] == p.host && o["root_id"] == id) p.root_id = id;
    }
  }
  return out;
}

TfDataParity CompareTfData(const json& ref, const json& ours, bool compare_graph) {
  TfDataParity r;
  const json& op = ours["tables"]["pipelines"];
  std::vector<RefPipeline> pipes = SplitReferenceGraph(ref[0], op);
  const json& rows = ref[1]["rows"];
  if (pipes.size() != rows.size()) r.differences.push_back("could not split the reference graph by pipeline");
  for (size_t i = 0; i < rows.size(); ++i) {
    const json& c = rows[i]["c"];
    std::string host = c[0]["v"];
    const json* mine = nullptr;
    if (i < pipes.size())
      for (const json& o : op)
        if (o["host"] == host && o["root_id"] == pipes[i].root_id) mine = &o;
    std::string what = host + "/" + std::string(c[1]["v"]);
    if (!mine) {
      r.Check(false, what + ": no pipeline with root id " + (i < pipes.size() ? pipes[i].root_id : "?"));
      continue;
    }
    bool same = (*mine)["calls"] == c[5]["v"] && (*mine)["slow_calls"] == c[6]["v"];
    same = r.SameUs((*mine)["min_us"], c[2]["v"]) && same;
    same = r.SameUs((*mine)["avg_us"], c[3]["v"]) && same;
    same = r.SameUs((*mine)["max_us"], c[4]["v"]) && same;
    same = same && ((*mine)["type"] == "device") == (std::string(c[1]["v"]).rfind("Device:", 0) == 0);
    r.Check(same, what + ": pipeline row " + mine->dump() + " vs " + c.dump());
  }
  // Bottleneck rows: match on host, label and slowest call, then compare
  // the iterator and its self time.
  std::vector<bool> used(ours["tables"]["summary"].size());
  for (const json& row : ref[2]["rows"]) {
    const json& c = row["c"];
    std::string html = c[3]["v"];
    std::string name = Between(html, "<b>", "</b>"), long_name = Between(html, "Long Name</u>: ", "<br/>");
    std::string latency = Between(html, "Latency</u>: ", " us");
    latency.erase(std::remove(latency.begin(), latency.end(), ','), latency.end());
    const json* mine = nullptr;
    size_t at = 0;
    for (size_t k = 0; k < used.size(); ++k) {
      const json& o = ours["tables"]["summary"][k];
      if (used[k] || o["host"] != c[0]["v"] || o["pipeline"] != c[1]["v"] ||
          std::floor(o["max_latency_us"].get<double>()) != c[2]["v"].get<double>())
        continue;
      if (!mine || std::floor(o["bottleneck_self_us"].get<double>()) == std::stod(latency)) mine = &o, at = k;
    }
    std::string what = std::string(c[0]["v"]) + "/" + std::string(c[1]["v"]);
    if (!mine) {
      r.Check(false, what + ": no bottleneck row");
      continue;
    }
    used[at] = true;
    r.Check((*mine)["bottleneck"] == name && (*mine)["long_name"] == long_name,
            what + ": bottleneck " + std::string((*mine)["bottleneck"]) + " vs " + name);
    r.Check(r.SameUs((*mine)["bottleneck_self_us"], json(std::stod(latency))),
            what + ": bottleneck self " + (*mine)["bottleneck_self_us"].dump() + " us vs " + latency);
  }
  bool ref_bound = ref[2]["p"]["is_input_bound"] == "true";
  const json& summary = ours["tables"]["summary"];
  bool our_bound = !summary.empty() && summary[0]["max_latency_us"].get<double>() > 50.0;
  r.Check(ref_bound == our_bound, "is_input_bound");
  if (!compare_graph) return r;
  // The drawn graph (slowest call of our first pipeline) against the
  // reference's rows for that call.
  const json& graph = ours["tables"]["graph"];
  if (graph.empty()) return r;
  for (const RefPipeline& p : pipes) {
    if (p.host != graph[0]["host"] || p.root_id != graph[0]["id"]) continue;
    for (const json* row : p.blocks[0]) {
      const json& c = (*row)["c"];
      const json* mine = nullptr;
      for (const json& g : graph)
        if (g["id"] == c[3]["v"]) mine = &g;
      if (!mine) {
        r.Check(false, "graph: iterator " + std::string(c[3]["v"]) + " missing");
        continue;
      }
      std::string f = c[3]["f"];
      int64_t type = c[5]["v"];
      bool same = r.SameUs((*mine)["duration_us"], json(std::stod(Between(f, "Total Duration: ", " us")))) &&
                  r.SameUs((*mine)["self_us"], json(std::stod(Between(f, "Self Duration: ", " us")))) &&
                  std::to_string((*mine)["calls"].get<int64_t>()) == Between(f, "# Calls: ", "<") &&
                  (*mine)["critical_path"] == (type >= 1) && (*mine)["bottleneck"] == (type == 2);
      r.Check(same, "graph: iterator " + mine->dump() + " vs " + f);
    }
  }
  return r;
}

struct Case {
  std::string name;       // Relative to testdata/reference.
  std::string reference;  // The JSON file.
  std::string capture;    // The run folder ("" when the corpus is absent).
};

std::vector<Case> Cases() {
  namespace fs = std::filesystem;
  std::vector<Case> out;
  fs::path root = tfprof::testing::SourcePath("testdata/reference");
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.path().filename() != "tf_data_bottleneck_analysis.json") continue;
    std::string rel = fs::relative(e.path().parent_path(), root).string();
    std::string capture;
    if (rel.rfind("captures/", 0) == 0) capture = tfprof::testing::SourcePath("testdata/" + rel);
    else capture = tfprof::testing::CorpusPath(rel.substr(std::string("corpus/").size()));
    out.push_back({rel, e.path().string(), capture});
  }
  std::sort(out.begin(), out.end(), [](const Case& a, const Case& b) { return a.name < b.name; });
  return out;
}

}  // namespace

TEST_CASE("tf-data parity with the TensorFlow Profiler", "[tfdata][parity]") {
  const bool print = std::getenv("TFPROF_PARITY_REPORT") != nullptr;
  int compared = 0, absent = 0;
  for (const Case& c : Cases()) {
    if (c.capture.empty()) {
      ++absent;
      continue;
    }
    std::ifstream in(c.reference);
    json ref = json::parse(in);
    bool has_tf_data = !ref[1]["rows"].empty();
    for (bool xprof_ids : {false, true}) {
      auto run =
          RunTool(std::string("tf-data -f json ") + (xprof_ids ? "--compat xprof " : "") + "'" + c.capture + "'");
      INFO(c.name << (xprof_ids ? " --compat xprof" : "") << "\n" << run.err);
      if (!has_tf_data) {
        // The reference's three empty tables: we say so and exit 4.
        CHECK(run.exit_code == 4);
        if (print && !xprof_ids) std::cout << "PARITY " << c.name << " | no tf.data | exit 4\n";
        continue;
      }
      REQUIRE(run.exit_code == 0);
      json ours = json::parse(run.out);
      TfDataParity p = CompareTfData(ref, ours, xprof_ids);
      std::string diffs;
      for (const std::string& d : p.differences) diffs += "\n  " + d;
      INFO("differences:" << diffs);
      if (xprof_ids) {
        // Reading ids as the Profiler does reproduces everything it shows.
        CHECK(p.differed == 0);
      } else if (c.name.find("tfprofiler_demo") == std::string::npos) {
        // Our default keeps iterators with ids >= 2^63 apart; only the
        // bottleneck's self time may then differ (docs/tf-data.md). (The
        // demo run's two host files are byte-identical: by default we read
        // it once, xprof twice, so its call counts halve by design.)
        for (const std::string& d : p.differences) CHECK(d.find("bottleneck self") != std::string::npos);
      }
      if (xprof_ids) CHECK(p.worst_latency_us < 1.0);
      if (print)
        std::cout << "PARITY " << c.name << (xprof_ids ? " | xprof-ids" : " | default") << " | matched " << p.matched
                  << " | differed " << p.differed << " | worst " << p.worst_latency_us << " us" << diffs << "\n";
    }
    ++compared;
  }
  CHECK(compared >= 8);  // Our own captures are always there.
  if (absent) std::cout << "tf-data parity: " << absent << " corpus runs absent (set TFPROF_CORPUS)\n";
}
