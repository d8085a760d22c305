#include "analysis/report/comparison_section.h"

#include <algorithm>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "analysis/compare/listed_points.h"
#include "analysis/report/report_page.h"
#include "analysis/report/series_names.h"
#include "analysis/report/svg.h"
#include "harness/metric_names.h"
#include "harness/stats.h"

namespace railgauge::report {

using json = nlohmann::json;

// ---------------------------------------------------------------- comparison
namespace {

// A key compared over more series or points than a reader can take in (a fleet's node pairs:
// 2,000 nodes measure millions) is drawn and listed as its distribution and its worst: two
// fleets of 200 nodes, every pair, made a page of 24.6 MB of a line and a row per pair. Every
// point stays in the comparison JSON the page is made from.
constexpr std::size_t kMostSeriesDrawn = 12; // line_style's colours, each solid
constexpr std::size_t kWorstSeriesDrawn = 5;

// The many series of one key as one: the median at each size with the lowest and highest
// around it as a band; by name, only the series judged worse somewhere (`worse`), the
// kWorstSeriesDrawn lowest of them.
std::vector<Series> summarized(const std::vector<Series> &all, const std::vector<bool> &worse,
                               bool higher_is_better) {
  std::map<double, std::vector<double>> at_size;
  std::vector<std::pair<double, std::size_t>> lowest; // lowest speedup, series judged worse
  for (std::size_t k = 0; k < all.size(); ++k) {
    double low = std::numeric_limits<double>::infinity();
    for (const auto &[x, y] : all[k].points) {
      at_size[x].push_back(y);
      // a rate of 0 is the lowest speedup there is; a time of 0 the highest
      low = std::min(low, higher_is_better ? y
                          : y > 0          ? 1 / y
                                           : std::numeric_limits<double>::infinity());
    }
    if (worse[k])
      lowest.emplace_back(low, k);
  }
  Series band;
  band.name = fmt::format("median of {} series, band lowest to highest", all.size());
  for (const auto &[x, ys] : at_size) {
    band.points.emplace_back(x, railgauge::median(ys));
    band.spread.push_back(lowest_highest(ys));
  }
  std::sort(lowest.begin(), lowest.end());
  std::vector<Series> out = {band};
  for (std::size_t k = 0; k < lowest.size() && k < kWorstSeriesDrawn; ++k) {
    out.push_back(all[lowest[k].second]);
    out.back().name = fmt::format("worse {}: {}", k + 1, out.back().name);
  }
  return out;
}

void ratio_charts(Page &page, const compare::Comparison &c) {
  struct KeySeries {
    std::vector<Series> series;
    std::vector<bool> worse; // per series: a point of it judged worse (or failed)
    bool higher_is_better = true;
  };
  std::map<std::string, KeySeries> by_key; // "key\nB/A"
  std::map<std::string, bool> higher_is_better;
  for (std::size_t i = 1; i < c.labels.size(); ++i) {
    std::map<std::string, std::pair<Series, bool>> series;
    for (const auto &p : c.points) {
      if (!p.params.contains(metric::kSizeBytes) || !p.ratio[i - 1])
        continue;
      std::string name = c.labels[i] + "/" + c.labels[0];
      for (const auto &[k, v] : p.params.items())
        if (!kNotSeries.count(k))
          name += " " + k + "=" + text(v);
      auto &[s, worse] = series[p.key + "\n" + name];
      s.name = name;
      s.points.emplace_back(p.params[metric::kSizeBytes].get<double>(), *p.ratio[i - 1]);
      worse = worse || p.verdict[i - 1].starts_with("worse");
      higher_is_better[p.key] = p.higher_is_better;
    }
    for (auto &[k, s] : series) {
      std::sort(s.first.points.begin(), s.first.points.end());
      const std::string key = k.substr(0, k.find('\n'));
      // per key and compared input: a band over B/A and C/A together would be neither's
      auto &of_key = by_key[fmt::format("{}\n{}/{}", key, c.labels[i], c.labels[0])];
      of_key.higher_is_better = higher_is_better[key];
      of_key.series.push_back(std::move(s.first));
      of_key.worse.push_back(s.second);
    }
  }
  if (!by_key.empty())
    page.heading("Ratio versus size");
  // One chart per key, or per key and compared input where several inputs draw many series.
  std::map<std::string, std::size_t> series_of_key;
  for (const auto &[id, of_key] : by_key)
    series_of_key[id.substr(0, id.find('\n'))] += of_key.series.size();
  std::map<std::string, std::vector<Series>> charts;
  for (auto &[id, of_key] : by_key) {
    const std::string key = id.substr(0, id.find('\n'));
    if (series_of_key[key] <= kMostSeriesDrawn) {
      auto &chart = charts[key + ": ratio of the metric"];
      chart.insert(chart.end(), of_key.series.begin(), of_key.series.end());
      continue;
    }
    const std::string title = fmt::format("{}: ratio {}, {} series", key,
                                          id.substr(id.find('\n') + 1), of_key.series.size());
    charts[title] = summarized(of_key.series, of_key.worse, of_key.higher_is_better);
  }
  for (auto &[title, series] : charts) {
    page.html +=
        "<figure>" + line_chart(title, "size", "ratio", series, true, true) + "</figure>\n";
  }
}

} // namespace

void comparison_section(Page &page, const compare::Comparison &c) {
  for (const auto &line : compare::preamble(c))
    page.para(line);
  page.heading("Summary per family");
  page.para("Geometric mean over the points compared of the speedup against " + c.labels[0] +
            " (> 1: better; time and latency inverted)." + compare::uncounted_note(c));
  std::vector<std::vector<std::string>> rows = {
      {"family", "compared", "speedup", "points", "better", "worse", "within noise",
       fmt::format("single sample within {:g} %", 100 * c.single_sample_tolerance),
       "read off a curve (≈)", "failed (no ratio)", "only in " + c.labels[0]}};
  for (const auto &s : c.families)
    rows.push_back({s.group, c.labels[s.input] + " vs " + c.labels[0], compare::speedup_text(s),
                    std::to_string(s.points), std::to_string(s.better),
                    std::to_string(s.worse - s.failed), std::to_string(s.within_noise),
                    std::to_string(s.single_sample), std::to_string(s.read_off_curve),
                    std::to_string(s.failed), std::to_string(s.missing)});
  page.table(rows);
  ratio_charts(page, c);
  page.heading("Per point");
  // compare's own rows, noise included: a verdict the page cannot be checked against is no
  // verdict. A point that failed in a candidate is marked as a failure, worse as a warning.
  const auto listed = compare::listed_points(c, compare::kMostRowsPerKey);
  const auto pts = compare::point_rows(c, listed.points, true);
  std::vector<std::string> cls = {""};
  for (const auto *point : listed.points) {
    std::string worst;
    for (std::size_t i = 1; i < point->sides.size(); ++i) {
      const auto &verdict = point->verdict[i - 1];
      if (verdict == "failed in " + c.labels[i] || verdict == "error in " + c.labels[i])
        worst = "fail";
      else if (verdict.starts_with("worse") && worst.empty())
        worst = "warn";
    }
    cls.push_back(worst);
  }
  for (const auto &note : listed.notes)
    page.para(note + " (every point is in the comparison JSON).");
  page.table(pts, cls);
}

} // namespace railgauge::report
