#include "analysis/calibrate/linear_quality.h"

#include <algorithm>
#include <cmath>

namespace railgauge::calibrate {

HeldOutError linear_error(const LinearFit &f, const std::vector<LinearSample> &s) {
  HeldOutError e;
  for (const auto &x : s) {
    const double r = std::abs(f.predict(x.x) - x.t) / x.t;
    e.mean_rel += r;
    e.max_rel = std::max(e.max_rel, r);
  }
  e.points = s.size();
  if (!s.empty())
    e.mean_rel /= static_cast<double>(s.size());
  return e;
}

FitQuality linear_quality(const std::vector<LinearSample> &s, const LinearFit &all, int folds,
                          std::uint64_t seed, const std::vector<double> *size_of,
                          const std::vector<std::string> *tag_of) {
  FitQuality q;
  q.points = s.size();
  q.in_sample = linear_error(all, s);
  // Samples with the same regressors (one size measured again) share a fold.
  std::vector<std::vector<double>> keys;
  keys.reserve(s.size());
  for (const auto &x : s)
    keys.push_back(x.x);
  const auto [group, groups] = groups_of(keys);
  if (groups < 4)
    return q;
  const int k = std::min<int>(folds, static_cast<int>(groups));
  const auto fold = fold_assignment(group, groups, k, seed);
  HeldOutError e;
  e.folds = k;
  for (int f = 0; f < k; ++f) {
    std::vector<LinearSample> train, test;
    for (std::size_t i = 0; i < s.size(); ++i)
      (fold[i] == f ? test : train).push_back(s[i]);
    if (test.empty() || train.empty())
      continue;
    const auto fit = robust_linear_fit(train);
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (fold[i] != f)
        continue;
      const auto &x = s[i];
      const double r = std::abs(fit.predict(x.x) - x.t) / x.t;
      e.mean_rel += r;
      e.max_rel = std::max(e.max_rel, r);
      e.per_point.push_back(
          {size_of ? size_of->at(i) : x.x.back(), r, tag_of ? tag_of->at(i) : std::string()});
      ++e.points;
    }
  }
  if (e.points > 0)
    e.mean_rel /= static_cast<double>(e.points);
  q.held_out = e;
  return q;
}

} // namespace railgauge::calibrate
