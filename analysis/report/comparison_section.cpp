#include "analysis/report/comparison_section.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "analysis/report/report_page.h"
#include "analysis/report/series_names.h"
#include "analysis/report/svg.h"
#include "harness/metric_names.h"

namespace railgauge::report {

using json = nlohmann::json;

// ---------------------------------------------------------------- comparison
void comparison_section(Page &page, const compare::Comparison &c) {
  for (const auto &line : compare::preamble(c))
    page.para(line);
  page.heading("Summary per family");
  page.para("Geometric mean over the points compared of the speedup against " + c.labels[0] +
            " (> 1: better; time and latency inverted).");
  std::vector<std::vector<std::string>> rows = {
      {"family", "compared", "speedup", "points", "better", "worse", "within noise"}};
  for (const auto &s : c.families)
    rows.push_back({s.group, c.labels[s.input] + " vs " + c.labels[0],
                    fmt::format("{:.3f}", s.geomean_speedup), std::to_string(s.points),
                    std::to_string(s.better), std::to_string(s.worse),
                    std::to_string(s.within_noise)});
  page.table(rows);
  // Ratio versus size per key and input.
  std::map<std::string, std::vector<Series>> by_key;
  for (std::size_t i = 1; i < c.labels.size(); ++i) {
    std::map<std::string, Series> series;
    for (const auto &p : c.points) {
      if (!p.params.contains(metric::kSizeBytes) || !p.ratio[i - 1])
        continue;
      std::string name = c.labels[i] + "/" + c.labels[0];
      for (const auto &[k, v] : p.params.items())
        if (!kNotSeries.count(k))
          name += " " + k + "=" + text(v);
      auto &s = series[p.key + "\n" + name];
      s.name = name;
      s.points.emplace_back(p.params[metric::kSizeBytes].get<double>(), *p.ratio[i - 1]);
    }
    for (auto &[k, s] : series) {
      std::sort(s.points.begin(), s.points.end());
      by_key[k.substr(0, k.find('\n'))].push_back(s);
    }
  }
  if (!by_key.empty())
    page.heading("Ratio versus size");
  for (const auto &[key, series] : by_key)
    page.html += "<figure>" +
                 line_chart(key + ": ratio of the metric", "size", "ratio", series, true, true) +
                 "</figure>\n";
  page.heading("Per point");
  std::vector<std::vector<std::string>> pts = {{"key", "params", "metric"}};
  for (const auto &l : c.labels)
    pts[0].push_back(l);
  for (std::size_t i = 1; i < c.labels.size(); ++i) {
    pts[0].push_back(c.labels[i] + "/" + c.labels[0]);
    pts[0].push_back("verdict");
  }
  std::vector<std::string> cls = {""};
  for (const auto &p : c.points) {
    std::string params;
    for (const auto &[k, v] : p.params.items())
      params += (params.empty() ? "" : " ") + k + "=" + text(v);
    std::vector<std::string> row = {p.key, params, p.metric};
    for (std::size_t i = 0; i < p.sides.size(); ++i)
      row.push_back(compare::value_text(p, i));
    std::string worst;
    for (std::size_t i = 1; i < p.sides.size(); ++i) {
      row.push_back(p.ratio[i - 1] ? fmt::format("{:.3f}", *p.ratio[i - 1]) : "-");
      row.push_back(p.verdict[i - 1]);
      if (p.verdict[i - 1].starts_with("worse"))
        worst = "warn";
    }
    pts.push_back(row);
    cls.push_back(worst);
  }
  page.table(pts, cls);
}

} // namespace railgauge::report
