#include "analysis/compare/listed_points.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace railgauge::compare {

double badness(const PointComparison &p, const std::vector<std::string> &labels) {
  constexpr double kFailed = 1e9, kZero = 1e8, kMissing = 1e7, kBaselineOnly = 1e-3;
  double worst = 0;
  for (std::size_t i = 0; i < p.ratio.size() && i < p.verdict.size(); ++i) {
    const std::string &v = p.verdict[i];
    const std::string &candidate = labels.at(i + 1);
    if (p.ratio[i] && *p.ratio[i] > 0)
      worst = std::max(worst, p.higher_is_better ? 1 / *p.ratio[i] : *p.ratio[i]);
    else if (p.ratio[i]) // a rate of 0 against the baseline is a total loss; a time of 0 is not
      worst = std::max(worst, p.higher_is_better ? kZero : 0.0);
    else if (v == "failed in " + candidate || v == "error in " + candidate)
      worst = std::max(worst, kFailed);
    else if (v == "only in " + labels.front())
      worst = std::max(worst, kMissing); // the candidate lacks what the baseline measured
    else
      worst = std::max(worst, kBaselineOnly); // only in the candidate, failed in the baseline
  }
  return worst;
}

ListedPoints listed_points(const Comparison &c, std::size_t most_per_key) {
  ListedPoints out;
  std::map<std::string, std::vector<const PointComparison *>> by_key;
  std::vector<std::string> order;
  for (const auto &p : c.points) {
    auto &of_key = by_key[p.key];
    if (of_key.empty())
      order.push_back(p.key);
    of_key.push_back(&p);
  }
  for (const auto &key : order) {
    auto &points = by_key[key];
    if (most_per_key == 0 || points.size() <= most_per_key) {
      out.points.insert(out.points.end(), points.begin(), points.end());
      continue;
    }
    std::vector<std::pair<double, const PointComparison *>> ranked;
    for (const auto *p : points)
      ranked.emplace_back(badness(*p, c.labels), p);
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto &a, const auto &b) { return a.first > b.first; });
    for (std::size_t k = 0; k < points.size(); ++k)
      points[k] = ranked[k].second;
    // Of the points left out, per input after the first: its verdicts counted.
    std::string read;
    for (std::size_t i = 1; i < c.labels.size(); ++i) {
      std::map<std::string, int> verdicts;
      for (std::size_t k = most_per_key; k < points.size(); ++k)
        if (i - 1 < points[k]->verdict.size()) {
          const auto &v = points[k]->verdict[i - 1];
          ++verdicts[v.substr(0, v.find(" (single sample"))]; // "worse (single sample, ...)"
        }
      std::string counts;
      for (const auto &[v, n] : verdicts)
        counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", n, v);
      read += c.labels.size() > 2 ? fmt::format("{}{} against {}: {}", read.empty() ? "" : "; ",
                                                c.labels[i], c.labels[0], counts)
                                  : counts;
    }
    out.notes.push_back(
        fmt::format("{}: the {} worst of {} points are listed; the other {} read {}", key,
                    most_per_key, points.size(), points.size() - most_per_key, read));
    out.points.insert(out.points.end(), points.begin(),
                      points.begin() + static_cast<std::ptrdiff_t>(most_per_key));
  }
  return out;
}

} // namespace railgauge::compare
