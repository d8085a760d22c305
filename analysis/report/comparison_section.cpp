#include "analysis/report/comparison_section.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <tuple>

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

// A name per item of one chart: `prefix` ("B/A") and the params that tell the items apart; the
// params every item shares (backend, dtype, the GPU's name of a one-node burn-in) are said once
// by the table below, and made each legend line run off the page.
std::vector<std::string> distinguishing_names(const std::string &prefix,
                                              const std::vector<json> &params) {
  json common = params.empty() ? json::object() : params.front();
  for (const auto &p : params)
    for (auto it = common.begin(); it != common.end();)
      it = p.contains(it.key()) && p.at(it.key()) == it.value() ? std::next(it) : common.erase(it);
  std::vector<std::string> names;
  for (const auto &p : params) {
    std::string name = prefix;
    for (const auto &[k, v] : p.items())
      if (!common.contains(k))
        name += " " + k + "=" + text(v);
    names.push_back(name);
  }
  return names;
}

// The points of a key at one size or at none (a burn-in's GEMM and copy figures per GPU): a bar
// per point, its ratio against the baseline, those judged worse (or failed) in red. A line of
// one dot per series said nothing, and a point without a size was not drawn at all.
constexpr std::size_t kMostBarsDrawn = 16;

struct RatioBar {
  json params;
  double ratio = 1, speedup = 1;
  bool worse = false;
  bool higher_is_better = true;
};

// A bar's label: what tells it apart from the chart's other bars (the title names B/A).
std::vector<std::string> bar_labels(const std::string &prefix, const std::vector<json> &params) {
  auto names = distinguishing_names("", params);
  for (auto &name : names)
    name = name.empty() ? prefix : name.substr(1);
  return names;
}

void ratio_bars(Page &page, const std::string &title, const std::string &prefix,
                std::vector<RatioBar> bars) {
  const std::size_t all = bars.size();
  if (all > kMostBarsDrawn) { // the lowest speedups, as a fleet's slowest pairs
    std::sort(bars.begin(), bars.end(),
              [](const RatioBar &a, const RatioBar &b) { return a.speedup < b.speedup; });
    bars.resize(kMostBarsDrawn);
  }
  std::vector<json> params;
  std::vector<double> values;
  std::vector<bool> worse;
  for (const auto &b : bars) {
    params.push_back(b.params);
    values.push_back(b.ratio);
    worse.push_back(b.worse);
  }
  const bool higher_is_better = bars.empty() || bars.front().higher_is_better;
  const std::string shown = all > bars.size()
                                ? fmt::format(", the {} {} of {}", bars.size(),
                                              higher_is_better ? "lowest" : "highest", all)
                                : "";
  page.html += "<figure>" +
               // A time's ratio above 1 is the slower: "under it" once named red bars above it.
               bar_chart(title + shown, bar_labels(prefix, params), values, worse, "ratio", 1.0,
                         "1: as the baseline", 1.0,
                         fmt::format("judged worse ({} 1 for this metric), the ratio as a share "
                                     "of the baseline",
                                     higher_is_better ? "under" : "above")) +
               "</figure>\n";
}

struct KeySeries {
  std::vector<Series> series;
  std::vector<json> params; // per series, its naming params
  std::vector<bool> worse;  // per series: a point of it judged worse (or failed)
  bool higher_is_better = true;
};

// A key whose series are each one point, all at one size, is a set of bars as well.
void single_size_bars(std::map<std::string, KeySeries> &by_key,
                      std::map<std::string, std::vector<RatioBar>> &bars_of) {
  for (auto it = by_key.begin(); it != by_key.end();) {
    std::set<double> sizes;
    bool single = true;
    for (const auto &s : it->second.series) {
      single = single && s.points.size() == 1;
      for (const auto &pt : s.points)
        sizes.insert(pt.first);
    }
    if (!single || sizes.size() != 1) {
      ++it;
      continue;
    }
    auto &bars = bars_of[it->first];
    for (std::size_t k = 0; k < it->second.series.size(); ++k) {
      const double ratio = it->second.series[k].points.front().second;
      bars.push_back({it->second.params[k], ratio, it->second.higher_is_better ? ratio : 1 / ratio,
                      it->second.worse[k], it->second.higher_is_better});
    }
    it = by_key.erase(it);
  }
}

void ratio_charts(Page &page, const compare::Comparison &c) {
  std::map<std::string, KeySeries> by_key;              // "key\nB/A"
  std::map<std::string, std::vector<RatioBar>> bars_of; // "key\nB/A": points without a size
  std::map<std::string, bool> higher_is_better;
  for (std::size_t i = 1; i < c.labels.size(); ++i) {
    const std::string prefix = c.labels[i] + "/" + c.labels[0];
    std::map<std::string, std::tuple<Series, json, bool>> series;
    for (const auto &p : c.points) {
      if (!p.ratio[i - 1])
        continue;
      json naming = json::object();
      for (const auto &[k, v] : p.params.items())
        if (!kNotSeries.count(k))
          naming[k] = v;
      if (!p.device.empty()) // --match-device: the machine tells two GPUs of one slot apart
        naming["on"] = p.device;
      const bool worse = p.verdict[i - 1].starts_with("worse");
      const double speedup = p.higher_is_better ? *p.ratio[i - 1] : 1 / *p.ratio[i - 1];
      const std::string id = p.key + "\n" + prefix;
      higher_is_better[p.key] = p.higher_is_better;
      if (!p.params.contains(metric::kSizeBytes)) {
        bars_of[id].push_back({naming, *p.ratio[i - 1], speedup, worse, p.higher_is_better});
        continue;
      }
      std::string name = prefix;
      for (const auto &[k, v] : naming.items())
        name += " " + k + "=" + text(v);
      auto &[s, params, any_worse] = series[p.key + "\n" + name];
      s.name = name;
      params = naming;
      s.points.emplace_back(p.params[metric::kSizeBytes].get<double>(), *p.ratio[i - 1]);
      any_worse = any_worse || worse;
    }
    for (auto &[k, entry] : series) {
      auto &[s, params, worse] = entry;
      std::sort(s.points.begin(), s.points.end());
      const std::string key = k.substr(0, k.find('\n'));
      // per key and compared input: a band over B/A and C/A together would be neither's
      auto &of_key = by_key[key + "\n" + prefix];
      of_key.series.push_back(std::move(s));
      of_key.params.push_back(params);
      of_key.worse.push_back(worse);
    }
  }
  for (auto &[id, of_key] : by_key)
    of_key.higher_is_better = higher_is_better[id.substr(0, id.find('\n'))];
  single_size_bars(by_key, bars_of);
  if (!by_key.empty() || !bars_of.empty()) {
    page.heading("Ratio versus size");
    // The charts are SVG in the HTML only: the markdown's heading stood over nothing.
    page.md += "The charts of this section are in the HTML page (`--html`); the comparison "
               "table above holds their figures.\n\n";
  }
  for (auto &[id, bars] : bars_of)
    ratio_bars(page, id.substr(0, id.find('\n')) + ": ratio " + id.substr(id.find('\n') + 1),
               id.substr(id.find('\n') + 1), std::move(bars));
  // One chart per key, or per key and compared input where several inputs draw many series.
  std::map<std::string, std::size_t> series_of_key;
  for (const auto &[id, of_key] : by_key)
    series_of_key[id.substr(0, id.find('\n'))] += of_key.series.size();
  std::map<std::string, std::pair<std::vector<Series>, std::vector<json>>> charts;
  for (auto &[id, of_key] : by_key) {
    const std::string key = id.substr(0, id.find('\n'));
    if (series_of_key[key] <= kMostSeriesDrawn) {
      auto &[chart, params] = charts[key + ": ratio of the metric"];
      const std::string prefix = id.substr(id.find('\n') + 1);
      for (std::size_t k = 0; k < of_key.series.size(); ++k) {
        chart.push_back(of_key.series[k]);
        params.push_back(of_key.params[k]);
        chart.back().name = prefix; // named below, by what tells the chart's series apart
      }
      continue;
    }
    const std::string title = fmt::format("{}: ratio {}, {} series", key,
                                          id.substr(id.find('\n') + 1), of_key.series.size());
    charts[title].first = summarized(of_key.series, of_key.worse, of_key.higher_is_better);
  }
  for (auto &[title, chart] : charts) {
    auto &[series, params] = chart;
    if (!params.empty()) {
      std::map<std::string, std::vector<std::size_t>> by_prefix;
      for (std::size_t k = 0; k < series.size(); ++k)
        by_prefix[series[k].name].push_back(k);
      for (const auto &[prefix, members] : by_prefix) {
        std::vector<json> of_prefix;
        for (const auto k : members)
          of_prefix.push_back(params[k]);
        const auto names = distinguishing_names(prefix, of_prefix);
        for (std::size_t m = 0; m < members.size(); ++m)
          series[members[m]].name = names[m];
      }
    }
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
       "read off a curve (≈)", "failed (no ratio)", "only in " + c.labels[0],
       compare::only_in_compared_heading(c), "no ratio (zero baseline, no data moved)"}};
  for (const auto &s : c.families)
    rows.push_back({s.group, c.labels[s.input] + " vs " + c.labels[0], compare::speedup_text(s),
                    std::to_string(s.points), std::to_string(s.better),
                    std::to_string(s.worse - s.failed), std::to_string(s.within_noise),
                    std::to_string(s.single_sample), std::to_string(s.read_off_curve),
                    std::to_string(s.failed), std::to_string(s.missing), std::to_string(s.added),
                    std::to_string(s.unrated)});
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
