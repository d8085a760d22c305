#include "analysis/report/report_page.h"

#include <algorithm>
#include <cctype>
#include <unordered_set>

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
// Linear in the runs: a legend asks it once per run, and a find in the list for each made a
// report of 2,000 nodes' runs cubic (85 s).
std::vector<std::string> run_ids(const analysis::RunSet &runs) {
  std::vector<std::string> ids;
  std::unordered_set<std::string> seen;
  for (const auto &r : runs.runs)
    if (!r.records.empty() && seen.insert(r.records.front().run).second)
      ids.push_back(r.records.front().run);
  return ids;
}

// A run's short name for a legend: "run N", or "" when the set holds one run.
std::string run_label(const analysis::RunSet &runs, const analysis::LoadedRun &run) {
  if (run.records.empty())
    return "";
  // The N-th distinct run id in load order, counted up to this run's own.
  const auto &id = run.records.front().run;
  std::unordered_set<std::string> seen;
  std::size_t at = 0;
  bool two = false;
  for (const auto &r : runs.runs) {
    if (r.records.empty() || !seen.insert(r.records.front().run).second)
      continue;
    if (r.records.front().run == id)
      at = seen.size();
    two = two || seen.size() > 1;
    if (at && two)
      break;
  }
  return two && at ? fmt::format("run {}", at) : "";
}

} // namespace railgauge::report
