#pragma once
// Errors where they matter: a coefficient set's held-out error read at the sizes one Calculon
// execution asks for (execution_sizes.h), beside the plain per-size error.
//
// Per size: the mean held-out error of the points of that size (every run, node or repeat of one
// size is held out together, step_table.h). At a size the execution asks for, the error is read
// between the two nearest measured sizes, linearly in log size; outside the measured range the
// nearest end's error stands for it, and the share of the weight that lies outside is reported.
// Weight of an asked size: its calls per batch times the time the written coefficients give it
// (the time Calculon will compute from them), so the weighted error is the relative error to
// expect on the execution's total time spent in that set if the errors do not cancel. The
// weighting by calls alone is given beside it.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/calibrate/execution_sizes.h"
#include "analysis/calibrate/step_table.h"

namespace railgauge::calibrate {

struct SizeError {
  double x = 0;
  std::size_t points = 0;
  double mean_rel = 0;
};

// Held-out errors by size (ascending), of the points with this tag (empty: every point).
std::vector<SizeError> errors_by_size(const std::vector<PointError> &points,
                                      const std::string &tag = "");

// The error at x: interpolated in log x between the neighbouring sizes, the nearest end's
// outside them. `outside` says which. Requires a non-empty table.
double error_at(const std::vector<SizeError> &table, double x, bool *outside = nullptr);

struct ExecutionError {
  std::size_t asked = 0; // distinct uses counted
  double asked_min = 0, asked_max = 0;
  double time_s = 0;              // Σ calls × time of the uses with a measured error
  std::optional<double> weighted; // by calls × time
  std::optional<double> by_calls; // by calls alone
  double share_outside = 0;       // of the time weight, outside the measured sizes
  double share_unmeasured = 0;    // of the time weight, on ops this set did not measure
};

// uses: the execution's uses of this set; time_of: the written coefficients' time of one call;
// tag_of: the op whose points stand for a use (empty: all points).
ExecutionError execution_error(const std::vector<PointError> &held_out,
                               const std::vector<SizeUse> &uses,
                               const std::function<double(const SizeUse &)> &time_of,
                               const std::function<std::string(const SizeUse &)> &tag_of);

nlohmann::json to_json(const ExecutionError &e);
// {"sizes": n, "mean_rel": mean over sizes, "table": [{x, points, mean_rel}]}; null without
// points.
nlohmann::json per_size_json(const std::vector<PointError> &held_out);

} // namespace railgauge::calibrate
