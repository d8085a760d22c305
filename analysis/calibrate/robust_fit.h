#pragma once
// Robust least squares for the latency/bandwidth models t = α + Σ_j β_j·x_j, fitted on
// RELATIVE residuals (pred - t)/t: message sizes span six orders of magnitude, and an absolute
// fit would let the largest sizes decide α. Huber weights (c = 1.345 times a MAD scale),
// iterated (IRLS), so one straggler sample does not move the fit. Coefficients are kept
// non-negative (a negative latency or a negative seconds-per-byte is not a network): one that
// comes out negative is fixed at 0 and the rest refitted.
#include <optional>
#include <vector>

namespace railgauge::calibrate {

struct LinearSample {
  std::vector<double> x; // regressors; column 0 is usually 1 (the intercept α)
  double t = 0;          // measured, > 0
};

struct LinearFit {
  std::vector<double> coef; // one per regressor, each >= 0
  int iterations = 0;
  double predict(const std::vector<double> &x) const;
};

// Throws std::invalid_argument on no samples, ragged rows or a sample with t <= 0.
LinearFit robust_linear_fit(const std::vector<LinearSample> &samples);

// Solves A·x = b (n×n, row-major) by Gaussian elimination with partial pivoting; nullopt when
// A is singular.
std::optional<std::vector<double>> solve_linear(std::vector<double> a, std::vector<double> b);

} // namespace railgauge::calibrate
