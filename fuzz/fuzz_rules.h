// The text options a user (or a CI script) writes: a `check` rules file,
// `--max`/`--min NAME=VALUE`, diff's `--fail-if` conditions, and the name
// regular expressions (--step-marker, kernel-stats --kernel/--op) matched
// against an event name. Their only way to refuse input is
// std::invalid_argument (a usage error, exit 2, one line); anything else
// escaping, a crash or a hang is a bug. Shared by fuzz/rules_fuzzer.cc and
// the regression test that replays the findings
// (tests/read/bad_inputs_test.cc).
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_inputs.h"
#include "lib/analyze/metric_rules.h"
#include "lib/analyze/run_diff.h"
#include "lib/summary/name_regex.h"

namespace tfprof::fuzz {

template <class F>
void ExpectOnlyUsageErrors(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument&) {
    // Expected: a malformed rule or pattern is a usage error.
  } catch (const std::exception& e) {
    std::fprintf(stderr, "unexpected exception (not std::invalid_argument): %s\n", e.what());
    std::abort();
  }
}

inline void Require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "invariant broken: %s\n", what);
  std::abort();
}

// A parsed rule's normalised text parses back to the same rule.
inline void CheckRuleRoundTrip(const MetricRule& r) {
  Require(!r.metric.empty() && !r.text.empty(), "a rule has a metric and a text");
  Require(std::isfinite(r.threshold), "a rule's threshold is a finite number");
  std::vector<MetricRule> again = ParseRules(r.text, "round-trip");
  Require(again.size() == 1, "a rule's text is one rule");
  const MetricRule& a = again[0];
  Require(a.metric == r.metric && a.op == r.op && a.optional == r.optional, "a rule's text keeps metric, op, optional");
  Require(a.threshold == r.threshold, "a rule's text keeps the threshold");
}

// The first byte picks what the rest is:
//   0: a rules file, evaluated against a run without metrics
//   1: a --max argument, 2: a --min argument
//   3: a --fail-if condition
//   4: a name regex then an event name (each a 2-byte length and bytes);
//      RE2 is the system library, not built with coverage, so libFuzzer
//      is guided by our wrapper only there (the length cap, the errors).
inline void FuzzRules(std::string_view bytes) {
  if (bytes.empty()) return;
  const unsigned char mode = static_cast<unsigned char>(bytes.front()) % 5;
  bytes.remove_prefix(1);
  ExpectOnlyUsageErrors([&] {
    switch (mode) {
      case 0: {
        std::vector<MetricRule> rules = ParseRules(bytes, "fuzz.rules");
        for (const MetricRule& r : rules) CheckRuleRoundTrip(r);
        RunAnalysis empty;
        for (MissingPolicy p : {MissingPolicy::kFail, MissingPolicy::kSkip}) {
          std::vector<CheckOutcome> out = EvaluateRules(rules, empty, p);
          Require(out.size() == rules.size(), "one outcome per rule");
          for (size_t i = 0; i < out.size(); ++i)
            Require(out[i].missing &&
                        (out[i].status == OutcomeStatus::kSkip) == (rules[i].optional || p == MissingPolicy::kSkip),
                    "a rule on a missing metric fails unless optional or --missing skip");
        }
        break;
      }
      case 1:
      case 2: CheckRuleRoundTrip(ParseBoundFlag(bytes, mode == 1)); break;
      case 3: {
        DeltaCondition c = ParseDeltaCondition(bytes);
        Require(!c.metric.empty() && std::isfinite(c.amount), "a condition has a metric and a finite change");
        DeltaCondition again = ParseDeltaCondition(c.text);
        Require(again.metric == c.metric && again.op == c.op && again.relative == c.relative,
                "a condition's text keeps metric, op and relativity");
        break;
      }
      case 4: {
        ByteTaker in(bytes);
        std::string_view pattern = in.Take(kMaxNameRegexBytes + 64);
        std::string_view name = in.Take(1 << 20);
        NameRegex re(pattern, "--step-marker");
        const bool matched = re.Matches(name);
        // Search semantics: a match in the name is a match with text around it.
        const std::string padded = "\n" + std::string(name);
        if (matched && pattern.find_first_of("^\\(") == std::string_view::npos)
          Require(re.Matches(padded), "a pattern without anchors that matches a name matches it after a newline");
        break;
      }
    }
  });
}

}  // namespace tfprof::fuzz
