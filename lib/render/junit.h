// JUnit XML, the test-report format CI systems (GitHub Actions reporters,
// GitLab's `artifacts:reports:junit`, Jenkins) display: one <testsuite>,
// one <testcase> per check, <failure> or <skipped> inside.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "lib/report/report.h"

namespace tfprof {

struct JUnitCase {
  enum class Status { kPass, kFail, kSkip };
  std::string classname;  // Groups cases in CI views, e.g. "tfprof.check".
  std::string name;       // The rule, e.g. "overview.input_percent <= 20".
  Status status = Status::kPass;
  std::string message;  // Short: the failure/skip attribute.
  std::string detail;   // Longer text inside the element (or system-out for passes).
};

struct JUnitSuite {
  std::string name;                                             // e.g. "tfprof-analyze check".
  std::vector<std::pair<std::string, std::string>> properties;  // e.g. {"input", path}.
  std::vector<JUnitCase> cases;
};

// XML 1.0 text: & < > " ' escaped; control characters XML cannot carry
// (everything below 0x20 but tab, newline and carriage return) become
// U+FFFD, so a stray byte in an op name cannot make the report unreadable.
std::string XmlEscape(std::string_view text);

void WriteJUnit(const JUnitSuite& suite, std::ostream& out);

// A report of check outcomes as JUnit: suite "tfprof-analyze <command>";
// one test case of class "tfprof.<command>" per row of its table
// `outcomes` (columns `name`; `status`: pass, fail or skip in any case;
// `message`; `origin`, where the rule came from, added to the case's text);
// the rows of its table `properties` (`name`, `value`) as the suite's
// properties. Throws std::invalid_argument when the report is not one.
void RenderJUnit(const Report& report, std::ostream& out);

}  // namespace tfprof
