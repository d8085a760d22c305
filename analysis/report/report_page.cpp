#include "analysis/report/report_page.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "analysis/report/svg.h"

namespace railgauge::report {

std::string text(const nlohmann::json &v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

std::string md_escape(const std::string &s) {
  std::string out;
  for (char c : s)
    out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

void Page::heading(const std::string &h) {
  std::string id;
  for (char c : h)
    id += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '-';
  html += "<h2 id=\"" + id + "\">" + xml_escape(h) + "</h2>\n";
  md += "\n## " + h + "\n\n";
}

void Page::para(const std::string &p) {
  html += "<p>" + xml_escape(p) + "</p>\n";
  md += p + "\n\n";
}

void Page::table(const std::vector<std::vector<std::string>> &rows,
                 const std::vector<std::string> &row_class) {
  if (rows.empty())
    return;
  html += "<table>";
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const auto cls = r < row_class.size() && !row_class[r].empty()
                         ? " class=\"" + row_class[r] + "\""
                         : std::string();
    html += "<tr" + cls + ">";
    for (const auto &c : rows[r])
      html += (r == 0 ? "<th>" : "<td>") + xml_escape(c) + (r == 0 ? "</th>" : "</td>");
    html += "</tr>";
    md += "|";
    for (const auto &c : rows[r])
      md += " " + md_escape(c) + " |";
    md += "\n";
    if (r == 0) {
      md += "|";
      for (std::size_t i = 0; i < rows[0].size(); ++i)
        md += "---|";
      md += "\n";
    }
  }
  html += "</table>\n";
  md += "\n";
}

void Page::markdown_table(const std::vector<std::vector<std::string>> &rows) {
  const auto kept = html;
  table(rows);
  html = kept;
}

// The run ids of a set, in load order, each once: "run N" in a legend is the N-th (1-based),
// and the page lists them (runs_table), so that legends stay short.
std::vector<std::string> run_ids(const analysis::RunSet &runs) {
  std::vector<std::string> ids;
  for (const auto &r : runs.runs)
    if (!r.records.empty() && std::find(ids.begin(), ids.end(), r.records.front().run) == ids.end())
      ids.push_back(r.records.front().run);
  return ids;
}

// A run's short name for a legend: "run N", or "" when the set holds one run.
std::string run_label(const analysis::RunSet &runs, const analysis::LoadedRun &run) {
  const auto ids = run_ids(runs);
  if (ids.size() < 2 || run.records.empty())
    return "";
  const auto at = std::find(ids.begin(), ids.end(), run.records.front().run);
  return fmt::format("run {}", at - ids.begin() + 1);
}

} // namespace railgauge::report
