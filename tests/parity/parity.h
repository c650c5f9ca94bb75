// Parity with the reference: our analyses against what TensorFlow wrote
// beside its captures (legacy per-tool .pb files) and what current xprof
// computes (testdata/reference/**.json). Shared by the parity tests and by
// the parity_report program (scripts/parity_report).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tests/support/files.h"

namespace tfprof::parity {

// Tolerances (docs/parity.md): counts and names exact; times and
// percentages within 0.1% relative or 1 unit in the last printed digit.
struct Tally {
  uint64_t matched = 0;
  uint64_t differed = 0;
  uint64_t not_compared = 0;
  double worst_relative = 0;                   // Of the values that differed.
  std::vector<std::string> first_differences;  // Up to 10, for messages.

  void Text(const std::string& what, const std::string& ours, const std::string& theirs);
  void Count(const std::string& what, int64_t ours, int64_t theirs);
  void Flag(const std::string& what, bool ours, bool theirs);
  // `printed_unit` is one unit in the reference's last printed digit (e.g.
  // 0.001 for microseconds printed with 3 decimals).
  void Number(const std::string& what, double ours, double theirs, double printed_unit);
  void Skip(uint64_t n = 1) { not_compared += n; }
  void Merge(const Tally& other);
  bool ok() const { return differed == 0; }
  std::string Summary() const;
};

// One capture × analysis × reference comparison.
struct Case {
  std::string capture;    // A short name: the run folder relative to its root.
  std::string analysis;   // e.g. "op-stats".
  std::string reference;  // e.g. "TF legacy .pb", "xprof 2.24.2".
  std::function<Tally()> run;
};

// Parses the reference protobuf file `path` into `ref`; false, with a failed
// "parse <path>" entry in `t`, when it does not parse.
template <typename Message>
bool ParseReference(Tally& t, const std::string& path, Message& ref) {
  if (ref.ParseFromString(testing::Slurp(path))) return true;
  t.Text("parse " + path, "ok", "failed");
  return false;
}

// Parses the reference JSON file `path` into `doc` (a nlohmann::json);
// false, with a failed "parse <path>" entry in `t`, when it does not parse or
// `valid(doc)` rejects its shape.
template <typename Json, typename Valid>
bool ParseJsonReference(Tally& t, const std::string& path, Json& doc, Valid valid) {
  doc = Json::parse(testing::Slurp(path), nullptr, false);
  if (valid(doc)) return true;
  t.Text("parse " + path, "ok", "failed");
  return false;
}

// Every case whose inputs exist (corpus cases vanish when the corpus is absent).
std::vector<Case> AllCases(const std::string& source_dir, const std::string& corpus_dir);

}  // namespace tfprof::parity
