#include "lib/render/junit.h"

#include <stdexcept>

namespace tfprof {
namespace {

const std::string& TextAt(const Table& t, const std::vector<Cell>& row, const std::string& key) {
  static const std::string kEmpty;
  const int i = t.ColumnIndex(key);
  if (i < 0) throw std::invalid_argument("JUnit: table '" + t.name + "' has no column '" + key + "'");
  const std::string* text = std::get_if<std::string>(&row[i]);
  return text ? *text : kEmpty;
}

JUnitCase::Status StatusOf(const std::string& status) {
  std::string lower;
  for (char c : status) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (lower == "pass") return JUnitCase::Status::kPass;
  if (lower == "fail") return JUnitCase::Status::kFail;
  if (lower == "skip") return JUnitCase::Status::kSkip;
  throw std::invalid_argument("JUnit: unknown outcome status '" + status + "'");
}

}  // namespace

void RenderJUnit(const Report& report, std::ostream& out) {
  const Table* outcomes = report.FindTable("outcomes");
  if (!outcomes) throw std::invalid_argument("JUnit: the " + report.command + " report has no table 'outcomes'");
  JUnitSuite suite;
  suite.name = "tfprof-analyze " + report.command;
  if (const Table* properties = report.FindTable("properties"))
    for (const auto& row : properties->rows)
      suite.properties.emplace_back(TextAt(*properties, row, "name"), TextAt(*properties, row, "value"));
  for (const auto& row : outcomes->rows) {
    JUnitCase c;
    c.classname = "tfprof." + report.command;
    c.name = TextAt(*outcomes, row, "name");
    c.status = StatusOf(TextAt(*outcomes, row, "status"));
    c.message = TextAt(*outcomes, row, "message");
    const std::string& origin = TextAt(*outcomes, row, "origin");
    c.detail = c.message + (origin.empty() ? "" : "\n(rule from " + origin + ")");
    suite.cases.push_back(std::move(c));
  }
  WriteJUnit(suite, out);
}

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
    out << "    <testcase classname=\"" << XmlEscape(c.classname) << "\" name=\"" << XmlEscape(c.name)
        << "\" time=\"0\"";
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
      case JUnitCase::Status::kSkip: out << ">\n      <skipped message=\"" << XmlEscape(c.message) << "\"/>\n"; break;
    }
    out << "    </testcase>\n";
  }
  out << "  </testsuite>\n</testsuites>\n";
}

}  // namespace tfprof
