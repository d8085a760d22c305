#pragma once
// How well a robust linear fit (t = α + Σ βᵢ·xᵢ) predicts the points it was fitted on, and the
// points of each fold left out of it.
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/calibrate/calibration.h"

namespace railgauge::calibrate {

// The relative error of `f` on the samples `s`: mean and largest.
HeldOutError linear_error(const LinearFit &f, const std::vector<LinearSample> &s);

// k-fold held-out error of a robust linear fit. Each held-out point's error is kept under its
// size (size_of[i], else its last regressor) and op (tag_of[i]), to be read per size.
FitQuality linear_quality(const std::vector<LinearSample> &s, const LinearFit &all, int folds,
                          std::uint64_t seed, const std::vector<double> *size_of = nullptr,
                          const std::vector<std::string> *tag_of = nullptr);

} // namespace railgauge::calibrate
