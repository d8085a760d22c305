#include "analysis/calibrate/robust_fit.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "harness/stats.h"

namespace railgauge::calibrate {
namespace {

constexpr double kHuberC = 1.345;
constexpr int kMaxIterations = 50;

// Weighted least squares on the active columns (the others stay 0).
std::optional<std::vector<double>> weighted_fit(const std::vector<LinearSample> &s,
                                                const std::vector<double> &w,
                                                const std::vector<bool> &active) {
  const std::size_t p = active.size();
  std::vector<std::size_t> cols;
  for (std::size_t j = 0; j < p; ++j)
    if (active[j])
      cols.push_back(j);
  const std::size_t q = cols.size();
  std::vector<double> coef(p, 0.0);
  if (q == 0)
    return coef;
  // Relative residual: (x·c - t)/t, so each row is scaled by 1/t.
  std::vector<double> ata(q * q, 0.0), atb(q, 0.0);
  for (std::size_t i = 0; i < s.size(); ++i) {
    const double scale = 1.0 / s[i].t;
    for (std::size_t a = 0; a < q; ++a) {
      const double xa = s[i].x[cols[a]] * scale;
      atb[a] += w[i] * xa * 1.0;
      for (std::size_t b = 0; b < q; ++b)
        ata[a * q + b] += w[i] * xa * s[i].x[cols[b]] * scale;
    }
  }
  const auto sol = solve_linear(ata, atb);
  if (!sol)
    return std::nullopt;
  for (std::size_t a = 0; a < q; ++a)
    coef[cols[a]] = (*sol)[a];
  return coef;
}

// Non-negative weighted fit: drop the most negative coefficient until none is negative.
std::vector<double> nonnegative_fit(const std::vector<LinearSample> &s,
                                    const std::vector<double> &w) {
  std::vector<bool> active(s.front().x.size(), true);
  for (;;) {
    auto coef = weighted_fit(s, w, active);
    if (!coef) {
      // Singular (a column that is zero in every sample): drop the last active column.
      for (std::size_t j = active.size(); j-- > 0;)
        if (active[j]) {
          active[j] = false;
          break;
        }
      continue;
    }
    std::size_t worst = coef->size();
    for (std::size_t j = 0; j < coef->size(); ++j)
      if (active[j] && (*coef)[j] < 0 && (worst == coef->size() || (*coef)[j] < (*coef)[worst]))
        worst = j;
    if (worst == coef->size())
      return *coef;
    active[worst] = false;
  }
}

} // namespace

double LinearFit::predict(const std::vector<double> &x) const {
  double t = 0;
  for (std::size_t j = 0; j < coef.size() && j < x.size(); ++j)
    t += coef[j] * x[j];
  return t;
}

std::optional<std::vector<double>> solve_linear(std::vector<double> a, std::vector<double> b) {
  const std::size_t n = b.size();
  if (a.size() != n * n)
    return std::nullopt;
  double norm = 0;
  for (double v : a)
    norm = std::max(norm, std::abs(v));
  for (std::size_t c = 0; c < n; ++c) {
    std::size_t piv = c;
    for (std::size_t r = c + 1; r < n; ++r)
      if (std::abs(a[r * n + c]) > std::abs(a[piv * n + c]))
        piv = r;
    if (!(std::abs(a[piv * n + c]) > 1e-14 * norm))
      return std::nullopt;
    if (piv != c) {
      for (std::size_t k = 0; k < n; ++k)
        std::swap(a[c * n + k], a[piv * n + k]);
      std::swap(b[c], b[piv]);
    }
    for (std::size_t r = c + 1; r < n; ++r) {
      const double f = a[r * n + c] / a[c * n + c];
      for (std::size_t k = c; k < n; ++k)
        a[r * n + k] -= f * a[c * n + k];
      b[r] -= f * b[c];
    }
  }
  std::vector<double> x(n, 0.0);
  for (std::size_t r = n; r-- > 0;) {
    double v = b[r];
    for (std::size_t k = r + 1; k < n; ++k)
      v -= a[r * n + k] * x[k];
    x[r] = v / a[r * n + r];
  }
  return x;
}

LinearFit robust_linear_fit(const std::vector<LinearSample> &samples) {
  if (samples.empty())
    throw std::invalid_argument("robust fit: no samples");
  const std::size_t p = samples.front().x.size();
  for (const auto &s : samples)
    if (s.x.size() != p || !(s.t > 0) || !std::isfinite(s.t))
      throw std::invalid_argument("robust fit: ragged row or a time that is not positive");

  std::vector<double> w(samples.size(), 1.0);
  LinearFit fit;
  fit.coef = nonnegative_fit(samples, w);
  for (fit.iterations = 1; fit.iterations < kMaxIterations; ++fit.iterations) {
    std::vector<double> r(samples.size());
    for (std::size_t i = 0; i < samples.size(); ++i)
      r[i] = (fit.predict(samples[i].x) - samples[i].t) / samples[i].t;
    std::vector<double> abs_r(r.size());
    std::transform(r.begin(), r.end(), abs_r.begin(), [](double v) { return std::abs(v); });
    // MAD scale, floored so that a perfect fit does not divide by zero.
    const double scale = std::max(1.4826 * median(abs_r), 1e-9);
    for (std::size_t i = 0; i < r.size(); ++i) {
      const double z = std::abs(r[i]) / scale;
      w[i] = z <= kHuberC ? 1.0 : kHuberC / z;
    }
    const auto next = nonnegative_fit(samples, w);
    double change = 0, size = 0;
    for (std::size_t j = 0; j < p; ++j) {
      change = std::max(change, std::abs(next[j] - fit.coef[j]));
      size = std::max(size, std::abs(next[j]));
    }
    fit.coef = next;
    if (change <= 1e-10 * std::max(size, 1e-300))
      break;
  }
  return fit;
}

} // namespace railgauge::calibrate
