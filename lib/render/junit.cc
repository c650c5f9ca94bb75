#include "lib/render/junit.h"

namespace tfprof {

std::string XmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (c < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') out += "\xEF\xBF\xBD";  // U+FFFD
        else out += ch;
    }
  }
  return out;
}

void WriteJUnit(const JUnitSuite& suite, std::ostream& out) {
  size_t failures = 0, skipped = 0;
  for (const JUnitCase& c : suite.cases) {
    failures += c.status == JUnitCase::Status::kFail;
    skipped += c.status == JUnitCase::Status::kSkip;
  }
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  // Both <testsuites> and its counts: some readers (GitLab) sum the outer
  // element, others (older Jenkins plugins) only read <testsuite>.
  out << "<testsuites name=\"" << XmlEscape(suite.name) << "\" tests=\"" << suite.cases.size() << "\" failures=\""
      << failures << "\" errors=\"0\" skipped=\"" << skipped << "\">\n";
  out << "  <testsuite name=\"" << XmlEscape(suite.name) << "\" tests=\"" << suite.cases.size() << "\" failures=\""
      << failures << "\" errors=\"0\" skipped=\"" << skipped << "\" time=\"0\">\n";
  if (!suite.properties.empty()) {
    out << "    <properties>\n";
    for (const auto& [k, v] : suite.properties)
      out << "      <property name=\"" << XmlEscape(k) << "\" value=\"" << XmlEscape(v) << "\"/>\n";
    out << "    </properties>\n";
  }
  for (const JUnitCase& c : suite.cases) {
    out << "    <testcase classname=\"" << XmlEscape(c.classname) << "\" name=\"" << XmlEscape(c.name) << "\" time=\"0\"";
    switch (c.status) {
      case JUnitCase::Status::kPass:
        if (c.detail.empty()) {
          out << "/>\n";
          continue;
        }
        out << ">\n      <system-out>" << XmlEscape(c.detail) << "</system-out>\n";
        break;
      case JUnitCase::Status::kFail:
        out << ">\n      <failure message=\"" << XmlEscape(c.message) << "\" type=\"threshold\">" << XmlEscape(c.detail)
            << "</failure>\n";
        break;
      case JUnitCase::Status::kSkip:
        out << ">\n      <skipped message=\"" << XmlEscape(c.message) << "\"/>\n";
        break;
    }
    out << "    </testcase>\n";
  }
  out << "  </testsuite>\n</testsuites>\n";
}

}  // namespace tfprof
