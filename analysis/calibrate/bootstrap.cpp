#include "analysis/calibrate/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <stdexcept>

namespace railgauge::calibrate {
namespace {

// Percentiles of each coefficient over the refits that succeeded.
std::vector<std::optional<Interval>> percentiles(std::vector<std::vector<double>> by_coef,
                                                 int attempted) {
  std::vector<std::optional<Interval>> out(by_coef.size());
  for (std::size_t j = 0; j < by_coef.size(); ++j) {
    auto &v = by_coef[j];
    if (v.size() < static_cast<std::size_t>(0.8 * attempted) || v.empty())
      continue;
    std::sort(v.begin(), v.end());
    const auto at = [&](double q) {
      const double pos = q * static_cast<double>(v.size() - 1);
      const auto lo = static_cast<std::size_t>(std::floor(pos));
      const auto hi = std::min(lo + 1, v.size() - 1);
      return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
    };
    const double tail = (1 - kIntervalLevel) / 2;
    out[j] = Interval{at(tail), at(1 - tail), static_cast<int>(v.size())};
  }
  return out;
}

// Indices drawn with replacement within each stratum, each stratum keeping its count.
std::vector<std::size_t> resample(const std::vector<std::vector<std::size_t>> &strata,
                                  std::mt19937_64 &rng) {
  std::vector<std::size_t> out;
  for (const auto &s : strata) {
    std::uniform_int_distribution<std::size_t> pick(0, s.size() - 1);
    for (std::size_t i = 0; i < s.size(); ++i)
      out.push_back(s[pick(rng)]);
  }
  return out;
}

} // namespace

std::vector<std::optional<Interval>> linear_fit_intervals(const std::vector<LinearSample> &samples,
                                                          std::uint64_t seed) {
  const std::size_t p = samples.empty() ? 0 : samples.front().x.size();
  if (samples.size() < 3)
    return std::vector<std::optional<Interval>>(p);
  std::map<std::vector<bool>, std::vector<std::size_t>> by_pattern;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    std::vector<bool> nonzero;
    for (double x : samples[i].x)
      nonzero.push_back(x != 0);
    by_pattern[nonzero].push_back(i);
  }
  std::vector<std::vector<std::size_t>> strata;
  for (auto &[pattern, idx] : by_pattern)
    strata.push_back(std::move(idx));
  std::mt19937_64 rng(seed);
  std::vector<std::vector<double>> by_coef(p);
  std::vector<LinearSample> drawn(samples.size());
  for (int r = 0; r < kBootstrapResamples; ++r) {
    const auto idx = resample(strata, rng);
    for (std::size_t i = 0; i < idx.size(); ++i)
      drawn[i] = samples[idx[i]];
    try {
      const auto fit = robust_linear_fit(drawn);
      for (std::size_t j = 0; j < p; ++j)
        by_coef[j].push_back(fit.coef[j]);
    } catch (const std::invalid_argument &) {
      // A draw the fit cannot solve counts against the 80 % below.
    }
  }
  return percentiles(std::move(by_coef), kBootstrapResamples);
}

std::vector<std::optional<Interval>> step_row_intervals(const StepTable &table,
                                                        const std::vector<StepPoint> &points,
                                                        double max_efficiency, std::uint64_t seed) {
  std::vector<std::vector<StepPoint>> by_row(table.rows.size());
  for (const auto &pt : points)
    for (std::size_t r = 0; r < table.rows.size(); ++r)
      if (pt.x >= table.rows[r].first) {
        by_row[r].push_back(pt);
        break;
      }
  std::vector<std::optional<Interval>> out(table.rows.size());
  std::mt19937_64 rng(seed);
  // A ceiling below 1 is the best point's efficiency (gemm_fit.cpp): a statistic of the points,
  // drawn again with them. Held fixed, a row the ceiling capped had an interval of zero width
  // (0.8253 to 0.8253 over 156 points whose median was 0.691).
  const bool ceiling_from_points = max_efficiency < 1.0;
  std::vector<std::size_t> every(points.size());
  for (std::size_t i = 0; i < points.size(); ++i)
    every[i] = i;
  for (std::size_t r = 0; r < by_row.size(); ++r) {
    const auto &row = by_row[r];
    if (row.size() < 2)
      continue;
    std::vector<std::size_t> all(row.size());
    for (std::size_t i = 0; i < row.size(); ++i)
      all[i] = i;
    std::vector<std::vector<double>> efficiency(1);
    std::vector<StepPoint> drawn(row.size());
    for (int k = 0; k < kBootstrapResamples; ++k) {
      double ceiling = max_efficiency;
      if (ceiling_from_points) {
        ceiling = kMinEfficiency;
        for (const auto i : resample({every}, rng))
          if (points[i].measured_s > 0)
            ceiling = std::max(ceiling, points[i].ideal_s / points[i].measured_s);
        ceiling = std::min(ceiling, 1.0);
      }
      const auto idx = resample({all}, rng);
      for (std::size_t i = 0; i < idx.size(); ++i)
        drawn[i] = row[idx[i]];
      efficiency[0].push_back(step_efficiency(drawn, ceiling));
    }
    out[r] = percentiles(std::move(efficiency), kBootstrapResamples)[0];
  }
  return out;
}

nlohmann::json to_json(const std::optional<Interval> &interval) {
  if (!interval)
    return nullptr;
  return {{"low", interval->low},
          {"high", interval->high},
          {"level", kIntervalLevel},
          {"resamples", interval->resamples},
          {"method", "percentile bootstrap over points"}};
}

} // namespace railgauge::calibrate
