#pragma once
// Calculon's efficiency tables: descending [threshold, eff] rows ending with [0, e], looked up
// as a step function (the first row whose threshold the op's FLOPs or bytes reach; no
// interpolation). This file fits such a table to measured points.
//
// The model of one measured point i is Calculon's per-op time
//     t_pred = ideal_s / eff(x) + fixed_s
// where ideal_s is the time at peak (FLOPs / peak, or bytes / peak bandwidth) and fixed_s is a
// term the table does not own (the memory time that Calculon's no_overlap mode adds to every
// compute op; 0 otherwise). With u = 1/eff constant over a step, the relative error
// (t_pred - t)/t = a·u - b with a = ideal_s/t, b = (t - fixed_s)/t is linear in u, so the
// least-squares u of a step has a closed form and its cost comes from prefix sums: dynamic
// programming over the sorted points then finds the k steps that minimise the summed squared
// relative time error exactly (O(k·n²)). Points with the same x always share a step (a
// threshold cannot split them). The number of steps is chosen by k-fold held-out error.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace railgauge::calibrate {

struct StepPoint {
  double x = 0;          // what the table is keyed by: FLOPs or bytes of the op
  double ideal_s = 0;    // time at 100% efficiency
  double fixed_s = 0;    // time the model adds outside the table (may be 0)
  double measured_s = 0; // the measured time, > 0
};

// Rows in descending threshold order; the last row's threshold is 0. Thresholds are in the
// same unit as StepPoint::x.
struct StepTable {
  std::vector<std::pair<double, double>> rows; // {threshold, efficiency}, 0 < eff <= 1

  // Calculon's lookup: the first row with x >= threshold.
  double efficiency(double x) const;
  double predict_s(const StepPoint &p) const { return p.ideal_s / efficiency(p.x) + p.fixed_s; }
};

// Efficiencies are kept in [kMinEfficiency, 1].
inline constexpr double kMinEfficiency = 1e-4;

// The least-squares efficiency of one step holding exactly these points (the closed form the
// table fit uses per step), in [kMinEfficiency, max_efficiency].
double step_efficiency(const std::vector<StepPoint> &points, double max_efficiency);

// The least-squares table with at most `steps` rows (fewer when there are fewer distinct x), no
// row above max_efficiency. Throws std::invalid_argument on no points, steps < 1, a point with
// measured_s <= 0 or max_efficiency outside [kMinEfficiency, 1].
StepTable fit_step_table(const std::vector<StepPoint> &points, int steps,
                         double max_efficiency = 1.0);

// One held-out point's error, keyed by the size an execution would look it up by (FLOPs of a
// GEMM, bytes of a memory op or a copy, the op size S of a collective) and, where one set holds
// several ops, the op (a network tier's joint fit: all_reduce, p2p, ...).
struct PointError {
  double x = 0;
  double rel = 0; // |t_pred - t| / t
  std::string tag;
};

struct HeldOutError {
  std::size_t points = 0; // points predicted while held out
  int folds = 0;
  double mean_rel = 0; // mean of |t_pred - t| / t over held-out points
  double max_rel = 0;
  // Held out only: every point's own error, so that errors can be read per size
  // (execution_error.h); empty for in-sample errors.
  std::vector<PointError> per_point;
};

// |t_pred - t| / t over the points, mean and max (folds = 0: in-sample).
HeldOutError relative_error(const StepTable &table, const std::vector<StepPoint> &points);

// Fold of each of n points: a seeded shuffle dealt round-robin, so folds differ in size by at
// most one and the same seed gives the same folds.
std::vector<int> fold_assignment(std::size_t n, int folds, std::uint64_t seed);

// Fold of each point when points sharing a group (group_of[i], 0..groups-1) must share a fold:
// the groups are dealt as above. Repeats of one size (other runs, nodes, samples) are one group,
// so no held-out point is predicted by a fit that saw its twin, and the held-out error is the
// error at sizes the fit did not see rather than run-to-run noise.
std::vector<int> fold_assignment(const std::vector<std::size_t> &group_of, std::size_t groups,
                                 int folds, std::uint64_t seed);

// Group index of each key, equal keys one group (numbered in order of first appearance), and
// the number of groups.
template <typename Key>
std::pair<std::vector<std::size_t>, std::size_t> groups_of(const std::vector<Key> &keys) {
  std::map<Key, std::size_t> index;
  std::vector<std::size_t> group;
  group.reserve(keys.size());
  for (const auto &k : keys)
    group.push_back(index.try_emplace(k, index.size()).first->second);
  return {group, index.size()};
}

struct StepFit {
  StepTable table; // fitted on every point with the chosen number of steps
  int steps = 0;
  // Held-out error of the whole procedure (choosing the step count included): an outer k-fold
  // whose training part chooses its own step count by an inner k-fold. nullopt under 4 points.
  std::optional<HeldOutError> held_out;
  HeldOutError in_sample;
};

// Chooses the step count in 1..max_steps by k-fold held-out mean relative error (the smallest
// count within 1% of the best, so noise does not buy steps), then fits on every point. The folds
// deal the distinct x in ascending order, so each held-out size lies between fitted ones.
// No row exceeds max_efficiency (a GEMM table's highest measured efficiency: taking Calculon's
// memory term out of a time can leave a compute term faster than the peak).
StepFit choose_step_table(const std::vector<StepPoint> &points, int max_steps, int folds,
                          std::uint64_t seed, double max_efficiency = 1.0);

} // namespace railgauge::calibrate
