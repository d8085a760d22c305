#include "analysis/report/comparison_section.h"

#include <algorithm>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "analysis/report/report_page.h"
#include "analysis/report/series_names.h"
#include "analysis/report/svg.h"
#include "harness/metric_names.h"

namespace railgauge::report {

using json = nlohmann::json;

// ---------------------------------------------------------------- comparison
namespace {

// A key compared over more series or points than a reader can take in (a fleet's node pairs:
// 2,000 nodes measure millions) is drawn and listed as its distribution and its worst: the
// page of 2,000 + 2,000 nodes was 162 MB of one line and one row per pair. Every point stays
// in the comparison JSON the page is made from.
constexpr std::size_t kMostSeriesDrawn = 12; // line_style's colours, each solid
constexpr std::size_t kWorstSeriesDrawn = 5;
constexpr std::size_t kMostRowsPerKey = 40;

double speedup_of(const compare::PointComparison &p, double ratio) {
  return p.higher_is_better ? ratio : 1 / ratio;
}

// How bad a point is against input 0, for ordering a key's rows worst first: a point that
// failed in an input before one only one input holds, then the lowest speedup.
double badness(const compare::PointComparison &p) {
  double worst = 0;
  for (std::size_t i = 0; i < p.ratio.size(); ++i) {
    if (p.verdict[i].starts_with("failed") || p.verdict[i].find(" in ") != std::string::npos)
      worst = std::max(worst, p.verdict[i].starts_with("only") ? 1e6 : 1e9);
    else if (p.ratio[i] && *p.ratio[i] > 0)
      worst = std::max(worst, 1 / speedup_of(p, *p.ratio[i]));
  }
  return worst;
}

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
      if (y > 0)
        low = std::min(low, higher_is_better ? y : 1 / y);
    }
    if (worse[k])
      lowest.emplace_back(low, k);
  }
  Series band;
  band.name = fmt::format("median of {} series, band lowest to highest", all.size());
  for (auto &[x, ys] : at_size) {
    std::sort(ys.begin(), ys.end());
    const std::size_t n = ys.size();
    band.points.emplace_back(x, n % 2 ? ys[n / 2] : (ys[n / 2 - 1] + ys[n / 2]) / 2);
    band.spread.emplace_back(ys.front(), ys.back());
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
  std::map<std::string, KeySeries> by_key;
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
      by_key[p.key].higher_is_better = p.higher_is_better;
    }
    for (auto &[k, s] : series) {
      std::sort(s.first.points.begin(), s.first.points.end());
      auto &of_key = by_key[k.substr(0, k.find('\n'))];
      of_key.series.push_back(std::move(s.first));
      of_key.worse.push_back(s.second);
    }
  }
  if (!by_key.empty())
    page.heading("Ratio versus size");
  for (auto &[key, of_key] : by_key) {
    std::string title = key + ": ratio of the metric";
    if (of_key.series.size() > kMostSeriesDrawn) {
      title += fmt::format(", {} series", of_key.series.size());
      of_key.series = summarized(of_key.series, of_key.worse, of_key.higher_is_better);
    }
    page.html +=
        "<figure>" + line_chart(title, "size", "ratio", of_key.series, true, true) + "</figure>\n";
  }
}

// The points of a key with more than kMostRowsPerKey: the worst of them, and a line that says
// how many are not listed and what they read.
std::vector<const compare::PointComparison *> listed_points(const compare::Comparison &c,
                                                            std::vector<std::string> &notes) {
  std::map<std::string, std::vector<const compare::PointComparison *>> by_key;
  std::vector<std::string> order;
  for (const auto &p : c.points) {
    auto &of_key = by_key[p.key];
    if (of_key.empty())
      order.push_back(p.key);
    of_key.push_back(&p);
  }
  std::vector<const compare::PointComparison *> out;
  for (const auto &key : order) {
    auto &points = by_key[key];
    if (points.size() <= kMostRowsPerKey) {
      out.insert(out.end(), points.begin(), points.end());
      continue;
    }
    std::stable_sort(points.begin(), points.end(),
                     [](const auto *a, const auto *b) { return badness(*a) > badness(*b); });
    std::map<std::string, int> verdicts; // of the points left out
    for (std::size_t k = kMostRowsPerKey; k < points.size(); ++k)
      for (const auto &v : points[k]->verdict)
        ++verdicts[v.substr(0, v.find(" ("))];
    std::string read;
    for (const auto &[v, n] : verdicts)
      read += fmt::format("{}{} {}", read.empty() ? "" : ", ", n, v);
    notes.push_back(fmt::format("{}: the {} worst of {} points are listed; the other {} read {} "
                                "(every point is in the comparison JSON).",
                                key, kMostRowsPerKey, points.size(),
                                points.size() - kMostRowsPerKey, read));
    out.insert(out.end(), points.begin(),
               points.begin() + static_cast<std::ptrdiff_t>(kMostRowsPerKey));
  }
  return out;
}

} // namespace

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
  ratio_charts(page, c);
  page.heading("Per point");
  std::vector<std::vector<std::string>> pts = {{"key", "params", "metric"}};
  for (const auto &l : c.labels)
    pts[0].push_back(l);
  for (std::size_t i = 1; i < c.labels.size(); ++i) {
    pts[0].push_back(c.labels[i] + "/" + c.labels[0]);
    pts[0].push_back("verdict");
  }
  std::vector<std::string> cls = {""};
  std::vector<std::string> notes;
  for (const auto *point : listed_points(c, notes)) {
    const auto &p = *point;
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
  for (const auto &note : notes)
    page.para(note);
  page.table(pts, cls);
}

} // namespace railgauge::report
