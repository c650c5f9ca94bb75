// Reports as one self-contained HTML page: no script, style, font or image
// from anywhere else (it opens offline, attached to a CI run or mailed).
// Tables are HTML tables (sortable by a click with the page's own short
// script; readable without it); charts are inline SVG drawn here from the
// report's tables, with tooltips as SVG <title>s:
//   * table `steps` (columns `<category>_ms`): the step-time graph, stacked
//     bars per step; table `hosts`: the same, a bar per host's average step;
//   * table `step_time_breakdown` (`category`, `percent`): the breakdown as
//     one 100% bar;
//   * table `timeline` (`time_ms` and sizes): the memory timeline;
//   * a report's graph (tf.data): boxes in layers, edges as lines.
// Renderers know nothing about the analyses: the chart follows the table's
// name and columns (docs/report.md).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "lib/report/report.h"

namespace tfprof {

struct HtmlSection {
  std::string id, title;  // Anchor and heading.
  const Report* report = nullptr;
  std::string unavailable;  // Instead of a report: why the section is empty.
};

// One page of sections, with a table of contents.
void RenderHtmlPage(const std::string& title, const std::vector<HtmlSection>& sections, std::ostream& out);
// One report as a page (`--format html`).
void RenderHtml(const Report& report, std::ostream& out);

// `text` with & < > " ' escaped, for HTML text and attribute values.
std::string HtmlEscape(std::string_view text);

}  // namespace tfprof
