// The diagnostics catalogue (lib/model/diagnostic_kinds.h): its kinds are
// well formed and unique, every declared constant is listed, docs/info.md
// lists exactly its kinds with their severities, and Diagnostics reports a
// kind with the catalogue's severity and meaning.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "lib/model/diagnostic_kinds.h"
#include "lib/model/diagnostics.h"
#include "tests/support/corpus.h"

using namespace tfprof;

namespace {

std::string ReadSource(const std::string& relative) {
  std::ifstream in(tfprof::testing::SourcePath(relative));
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("Diagnostic kinds are unique, ordered and named layer.snake_case", "[diagnostics]") {
  const std::regex id_form("[a-z][a-z0-9]*(_[a-z0-9]+)*\\.[a-z0-9]+(_[a-z0-9]+)*");
  std::string previous;
  for (const DiagnosticKind* kind : DiagnosticCatalogue()) {
    const std::string id(kind->id);
    INFO(id);
    CHECK(std::regex_match(id, id_form));
    CHECK(previous < id);  // Ordered by id, hence unique.
    CHECK_FALSE(kind->meaning.empty());
    CHECK(FindDiagnosticKind(id) == kind);
    previous = id;
  }
  CHECK(FindDiagnosticKind("xplane.unsorted_line") == &diag_kind::kXplaneUnsortedLine);
  CHECK(FindDiagnosticKind("xplane.unsorted_lines") == nullptr);
}

// A constant declared in the header but left out of DiagnosticCatalogue()
// would be reported yet missing from the docs: the header's declarations
// and the list must agree.
TEST_CASE("Every declared diagnostic kind is in the catalogue", "[diagnostics]") {
  const std::string header = ReadSource("lib/model/diagnostic_kinds.h");
  const std::regex declaration("extern const DiagnosticKind k\\w+;\\s*// ([a-z0-9_.]+)");
  std::set<std::string> declared;
  for (auto it = std::sregex_iterator(header.begin(), header.end(), declaration); it != std::sregex_iterator(); ++it)
    declared.insert((*it)[1]);
  std::set<std::string> listed;
  for (const DiagnosticKind* kind : DiagnosticCatalogue()) listed.insert(std::string(kind->id));
  CHECK(declared == listed);
  CHECK(listed.size() == DiagnosticCatalogue().size());
}

TEST_CASE("docs/info.md lists exactly the diagnostic catalogue, with severities", "[diagnostics][docs]") {
  const std::string doc = ReadSource("docs/info.md");
  const size_t section = doc.find("\n## Diagnostics\n");
  REQUIRE(section != std::string::npos);
  // Rows "| `kind` | severity | meaning |" of the section's table.
  const std::regex row("\n\\| `([a-z0-9_.]+)` \\| (info|warning|error) \\|");
  std::map<std::string, std::string> documented;
  const std::string text = doc.substr(section);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), row); it != std::sregex_iterator(); ++it) {
    INFO((*it)[1]);
    CHECK(documented.emplace((*it)[1], (*it)[2]).second);  // Each kind once.
  }
  std::map<std::string, std::string> declared;
  for (const DiagnosticKind* kind : DiagnosticCatalogue())
    declared.emplace(std::string(kind->id), std::string(SeverityName(kind->severity)));
  CHECK(documented == declared);
}

TEST_CASE("A diagnostic takes its kind's severity and meaning", "[diagnostics]") {
  Diagnostics d;
  d.Add(diag_kind::kXplaneNegativeDuration, "first example");
  d.Add(diag_kind::kXplaneNegativeDuration, "second example", 2);
  d.Add(diag_kind::kXplaneUnsortedLine, "never counted", 0);
  d.AddWithMessage(diag_kind::kMemoryMissingStats, "worded for PyTorch", "", 4);
  d.AddWithMessage(diag_kind::kMemoryMissingStats, "worded for TensorFlow", "", 1);
  std::vector<DiagnosticEntry> entries = d.Entries();
  REQUIRE(entries.size() == 2);
  for (const DiagnosticEntry& e : entries) CHECK(e.severity == Severity::kWarning);
  CHECK(entries[0].kind == "memory.missing_stats");
  CHECK(entries[0].message == "worded for PyTorch");  // The first wording stays.
  CHECK(entries[0].count == 5);
  CHECK(entries[1].kind == "xplane.negative_duration");
  CHECK(entries[1].message == "events with a negative duration were clamped to 0");
  CHECK(entries[1].example == "first example");
  CHECK(entries[1].count == 3);
  CHECK(d.Count("xplane.unsorted_line") == 0);

  // Entries read back from elsewhere merge by kind, whatever their kind.
  Diagnostics stored;
  stored.AddEntry(DiagnosticEntry{Severity::kError, "future.kind", "from a newer build", 7, "x"});
  stored.Merge(d);
  CHECK(stored.Count("future.kind") == 7);
  CHECK(stored.Count("xplane.negative_duration") == 3);
  CHECK(stored.Entries().front().kind == "future.kind");  // Most severe first.
}
