#include "analysis/calibrate/step_table.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>

namespace railgauge::calibrate {
namespace {

// Points that share x, summed: a threshold can only fall between two of these.
struct Atom {
  double x = 0;
  double aa = 0, ab = 0, bb = 0;
};

std::vector<Atom> atoms_of(const std::vector<StepPoint> &points) {
  std::vector<StepPoint> sorted = points;
  std::sort(sorted.begin(), sorted.end(),
            [](const StepPoint &l, const StepPoint &r) { return l.x < r.x; });
  std::vector<Atom> atoms;
  for (const auto &p : sorted) {
    if (!(p.measured_s > 0) || !std::isfinite(p.measured_s) || !(p.ideal_s >= 0))
      throw std::invalid_argument("step fit: a point without a positive measured time");
    const double a = p.ideal_s / p.measured_s;
    const double b = (p.measured_s - p.fixed_s) / p.measured_s;
    if (atoms.empty() || atoms.back().x != p.x)
      atoms.push_back({p.x, 0, 0, 0});
    atoms.back().aa += a * a;
    atoms.back().ab += a * b;
    atoms.back().bb += b * b;
  }
  return atoms;
}

struct Segment {
  double u = 1; // 1 / efficiency
  double cost = 0;
};

// The best u of one step over sums of its points, with 1/max_efficiency <= u <= 1/kMinEfficiency.
Segment solve_segment(double aa, double ab, double bb, double max_efficiency) {
  const double u_min = 1.0 / max_efficiency;
  double u = aa > 0 ? ab / aa : u_min;
  u = std::clamp(u, u_min, 1.0 / kMinEfficiency);
  return {u, std::max(0.0, bb - 2 * u * ab + u * u * aa)};
}

double boundary(double below, double above) {
  return below > 0 ? std::sqrt(below * above) : above / 2;
}

std::vector<std::size_t> indices_where(const std::vector<int> &fold, int f, bool equal) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < fold.size(); ++i)
    if ((fold[i] == f) == equal)
      out.push_back(i);
  return out;
}

std::vector<StepPoint> pick(const std::vector<StepPoint> &points,
                            const std::vector<std::size_t> &idx) {
  std::vector<StepPoint> out;
  out.reserve(idx.size());
  for (auto i : idx)
    out.push_back(points[i]);
  return out;
}

double rel_error(const StepTable &t, const StepPoint &p) {
  return std::abs(t.predict_s(p) - p.measured_s) / p.measured_s;
}

// Points of one x (the same FLOPs or bytes, measured again) are one fold group.
std::pair<std::vector<std::size_t>, std::size_t> groups_by_x(const std::vector<StepPoint> &points) {
  std::vector<double> x;
  x.reserve(points.size());
  for (const auto &p : points)
    x.push_back(p.x);
  return groups_of(x);
}

// Fold of each point: the distinct x in ascending order dealt round-robin from a seeded start,
// so a held-out size always has measured sizes either side of it (except at the ends). A random
// deal can hold out two neighbouring sizes together: on the H200's pinned copies (10 sizes, 4x
// apart, 1.4 to 55 GB/s) the gap it made priced 64 KiB at the 16 KiB step, +170% to +270%, and
// the step count chosen fell to 1 (32.6% in-sample mean error, above the 27.2% held out).
std::vector<int> interleaved_folds(const std::vector<StepPoint> &points, int folds,
                                   std::uint64_t seed) {
  std::vector<double> xs;
  xs.reserve(points.size());
  for (const auto &p : points)
    xs.push_back(p.x);
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  const std::size_t start = folds > 0 ? seed % static_cast<std::uint64_t>(folds) : 0;
  std::vector<int> fold;
  fold.reserve(points.size());
  for (const auto &p : points) {
    const auto rank =
        static_cast<std::size_t>(std::lower_bound(xs.begin(), xs.end(), p.x) - xs.begin());
    fold.push_back(folds > 0 ? static_cast<int>((rank + start) % folds) : 0);
  }
  return fold;
}

// Mean held-out relative error of each step count 1..max_steps (index 0 unused).
std::vector<double> cv_error_by_steps(const std::vector<StepPoint> &points, int max_steps,
                                      int folds, std::uint64_t seed, double max_efficiency) {
  std::vector<double> sum(max_steps + 1, 0.0);
  const int k = std::min<int>(folds, static_cast<int>(groups_by_x(points).second));
  const auto fold = interleaved_folds(points, k, seed);
  for (int f = 0; f < k; ++f) {
    const auto train = pick(points, indices_where(fold, f, false));
    const auto test = pick(points, indices_where(fold, f, true));
    if (train.empty() || test.empty())
      continue;
    for (int s = 1; s <= max_steps; ++s) {
      const StepTable t = fit_step_table(train, s, max_efficiency);
      for (const auto &p : test)
        sum[s] += rel_error(t, p);
    }
  }
  for (auto &v : sum)
    v /= static_cast<double>(points.size());
  return sum;
}

int choose_steps(const std::vector<StepPoint> &points, int max_steps, int folds, std::uint64_t seed,
                 double max_efficiency) {
  if (groups_by_x(points).second < 2)
    return 1;
  const auto err = cv_error_by_steps(points, max_steps, folds, seed, max_efficiency);
  const double best = *std::min_element(err.begin() + 1, err.end());
  for (int s = 1; s <= max_steps; ++s)
    if (err[s] <= best * 1.01 + 1e-12)
      return s;
  return max_steps;
}

} // namespace

double step_efficiency(const std::vector<StepPoint> &points, double max_efficiency) {
  double aa = 0, ab = 0;
  for (const auto &atom : atoms_of(points)) {
    aa += atom.aa;
    ab += atom.ab;
  }
  return 1.0 / solve_segment(aa, ab, 0, max_efficiency).u;
}

double StepTable::efficiency(double x) const {
  for (const auto &[threshold, eff] : rows)
    if (x >= threshold)
      return eff;
  // Only reached without a final [0, e] row, which fit_step_table never writes.
  return rows.empty() ? 1.0 : rows.back().second;
}

StepTable fit_step_table(const std::vector<StepPoint> &points, int steps, double max_efficiency) {
  if (points.empty())
    throw std::invalid_argument("step fit: no points");
  if (steps < 1)
    throw std::invalid_argument("step fit: fewer than one step");
  if (!(max_efficiency >= kMinEfficiency && max_efficiency <= 1))
    throw std::invalid_argument("step fit: a highest efficiency outside [kMinEfficiency, 1]");
  const auto atoms = atoms_of(points);
  const std::size_t n = atoms.size();
  const std::size_t s_max = std::min<std::size_t>(steps, n);

  std::vector<double> aa(n + 1, 0), ab(n + 1, 0), bb(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    aa[i + 1] = aa[i] + atoms[i].aa;
    ab[i + 1] = ab[i] + atoms[i].ab;
    bb[i + 1] = bb[i] + atoms[i].bb;
  }
  const auto segment = [&](std::size_t i, std::size_t j) {
    return solve_segment(aa[j] - aa[i], ab[j] - ab[i], bb[j] - bb[i], max_efficiency);
  };

  // cost[s][j]: the best s steps over atoms [0, j); from[s][j]: where the last one starts.
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<std::vector<double>> cost(s_max + 1, std::vector<double>(n + 1, kInf));
  std::vector<std::vector<std::size_t>> from(s_max + 1, std::vector<std::size_t>(n + 1, 0));
  cost[0][0] = 0;
  for (std::size_t s = 1; s <= s_max; ++s)
    for (std::size_t j = s; j <= n; ++j)
      for (std::size_t i = s - 1; i < j; ++i) {
        if (cost[s - 1][i] == kInf)
          continue;
        const double c = cost[s - 1][i] + segment(i, j).cost;
        if (c < cost[s][j]) {
          cost[s][j] = c;
          from[s][j] = i;
        }
      }

  // Walk back from the top step to the bottom one: rows come out in descending order.
  StepTable table;
  std::size_t j = n;
  for (std::size_t s = s_max; s >= 1; --s) {
    const std::size_t i = from[s][j];
    const double eff = 1.0 / segment(i, j).u;
    const double threshold = i == 0 ? 0.0 : boundary(atoms[i - 1].x, atoms[i].x);
    // Two neighbouring steps with the same efficiency are one step.
    if (!table.rows.empty() && table.rows.back().second == eff)
      table.rows.back().first = threshold;
    else
      table.rows.emplace_back(threshold, eff);
    j = i;
  }
  return table;
}

HeldOutError relative_error(const StepTable &table, const std::vector<StepPoint> &points) {
  HeldOutError e;
  for (const auto &p : points) {
    const double r = rel_error(table, p);
    e.mean_rel += r;
    e.max_rel = std::max(e.max_rel, r);
  }
  e.points = points.size();
  if (!points.empty())
    e.mean_rel /= static_cast<double>(points.size());
  return e;
}

std::vector<int> fold_assignment(std::size_t n, int folds, std::uint64_t seed) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(seed);
  // Fisher-Yates by hand: std::shuffle's draws differ between standard libraries.
  for (std::size_t i = n; i > 1; --i)
    std::swap(order[i - 1], order[rng() % i]);
  std::vector<int> fold(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    fold[order[i]] = folds > 0 ? static_cast<int>(i % static_cast<std::size_t>(folds)) : 0;
  return fold;
}

std::vector<int> fold_assignment(const std::vector<std::size_t> &group_of, std::size_t groups,
                                 int folds, std::uint64_t seed) {
  const auto group_fold = fold_assignment(groups, folds, seed);
  std::vector<int> fold;
  fold.reserve(group_of.size());
  for (std::size_t g : group_of)
    fold.push_back(group_fold.at(g));
  return fold;
}

StepFit choose_step_table(const std::vector<StepPoint> &points, int max_steps, int folds,
                          std::uint64_t seed, double max_efficiency) {
  StepFit fit;
  fit.steps = choose_steps(points, max_steps, folds, seed, max_efficiency);
  fit.table = fit_step_table(points, fit.steps, max_efficiency);
  fit.in_sample = relative_error(fit.table, points);
  const std::size_t groups = groups_by_x(points).second;
  if (groups >= 4) {
    const int k = std::min<int>(folds, static_cast<int>(groups));
    const auto fold = interleaved_folds(points, k, seed ^ 0x5eedULL);
    HeldOutError e;
    e.folds = k;
    for (int f = 0; f < k; ++f) {
      const auto train = pick(points, indices_where(fold, f, false));
      const auto test = pick(points, indices_where(fold, f, true));
      if (test.empty())
        continue;
      const int s = choose_steps(train, max_steps, folds, seed + 1, max_efficiency);
      const StepTable t = fit_step_table(train, s, max_efficiency);
      for (const auto &p : test) {
        const double r = rel_error(t, p);
        e.mean_rel += r;
        e.max_rel = std::max(e.max_rel, r);
        e.per_point.push_back({p.x, r, {}});
        ++e.points;
      }
    }
    if (e.points > 0)
      e.mean_rel /= static_cast<double>(e.points);
    fit.held_out = e;
  }
  return fit;
}

} // namespace railgauge::calibrate
