// Every column key the report tables emit is documented in docs/*.md.
//
// The keys are collected from what the commands really write: each report
// command is run with --format json on small captures of every kind in
// testdata/captures (TensorFlow with tf.data and memory, PyTorch on GPU,
// JAX on GPU, a TF1 timeline) and the keys of every table row are taken.
// Running the commands, rather than reading a declared list, checks the
// keys users see (including those a table adds only for some captures);
// a table empty on all of these captures is not covered.
//
// A key is documented when docs/ has it in backticks, or a backticked
// pattern the docs use for a family of keys: `peak_usage_<unit>` (the size
// unit: mib, gib or bytes), `<category>_ms` (one per step-time category).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "tests/support/corpus.h"
#include "tests/support/run_tool.h"

namespace fs = std::filesystem;
using tfprof::testing::RunTool;
using tfprof::testing::SourcePath;

namespace {

// All of docs/, formats/ included.
std::string AllDocs() {
  std::string text;
  for (const auto& entry : fs::recursive_directory_iterator(SourcePath("docs"))) {
    if (entry.path().extension() != ".md") continue;
    std::ifstream in(entry.path());
    std::stringstream s;
    s << in.rdbuf();
    text += s.str();
  }
  return text;
}

// What the docs put in backticks: names as they are, and patterns for
// families of names (a placeholder beside a literal part: `heap_<unit>`).
struct DocumentedNames {
  std::set<std::string> names;
  std::vector<std::regex> patterns;
  bool Has(const std::string& key) const {
    if (names.count(key)) return true;
    for (const std::regex& p : patterns)
      if (std::regex_match(key, p)) return true;
    return false;
  }
};

DocumentedNames ReadDocumentedNames(const std::string& docs) {
  DocumentedNames out;
  const std::regex quoted("`([^`\n]+)`"), placeholder("<[^>]+>"), key_form("[a-z0-9_<>]+");
  for (auto it = std::sregex_iterator(docs.begin(), docs.end(), quoted); it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[1];
    out.names.insert(name);
    if (name.find('<') == std::string::npos || !std::regex_match(name, key_form)) continue;
    // A lone placeholder (`<run>`) or one with only '_' beside it says nothing.
    const std::string literal = std::regex_replace(name, placeholder, "");
    if (literal.find_first_not_of('_') == std::string::npos) continue;
    std::string pattern = std::regex_replace(name, std::regex("<unit>"), "(mib|gib|bytes)");
    out.patterns.emplace_back(std::regex_replace(pattern, placeholder, "[a-z0-9_]+"));
  }
  return out;
}

}  // namespace

TEST_CASE("docs/*.md document every column key the report tables emit", "[docs][cli]") {
  const std::vector<std::string> commands = {"info",           "overview", "op-stats",        "kernel-stats",
                                             "advise",         "steps",    "placement",       "memory",
                                             "input-pipeline", "tf-data",  "hosts --per-step"};
  const std::vector<std::string> captures = {"tf_input_bound", "tf_memory",    "torch_gpu_amp",
                                             "jax_gpu",        "tf1_timeline", "torch_gpu_ddp"};
  // key -> one "command capture table" that emits it, for the failure message.
  std::map<std::string, std::string> keys;
  size_t tables_seen = 0;
  for (const std::string& command : commands)
    for (const std::string& capture : captures) {
      const std::string path = SourcePath("testdata/captures/" + capture);
      tfprof::testing::ToolResult r = RunTool(command + " -f json '" + path + "'");
      if (r.exit_code != 0) continue;  // Analysis unavailable for this capture (exit 4): nothing emitted.
      nlohmann::json report = nlohmann::json::parse(r.out);
      for (const auto& [table, rows] : report.at("tables").items()) {
        if (!rows.is_array()) continue;
        ++tables_seen;
        for (const auto& row : rows)
          if (row.is_object())
            for (const auto& [key, value] : row.items()) keys.emplace(key, command + " " + capture + " " + table);
      }
    }
  REQUIRE(tables_seen > 20);  // The commands ran and wrote their tables.
  REQUIRE(keys.size() > 100);
  const DocumentedNames documented = ReadDocumentedNames(AllDocs());
  CHECK_FALSE(documented.Has("no_such_column_ms_x"));  // The patterns are not catch-alls.
  for (const auto& [key, where] : keys) {
    INFO(key << " (from " << where << ")");
    CHECK(documented.Has(key));
  }
}
