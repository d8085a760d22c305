#pragma once
// The efficiency tables of a calibration (mem1, mem2, matrix, vector): fitted to measured points,
// or taken from an assumption, each with where its figures come from.
#include <string>
#include <utility>
#include <vector>

#include "analysis/calibrate/calibration.h"

namespace railgauge::calibrate {

FitQuality quality_of(const StepFit &f, std::size_t n);

// A table fitted to measured points, no row above max_efficiency.
TableFit fit_table(std::string name, std::string unit, Sourced peak,
                   const std::vector<StepPoint> &points, const CalibrateOptions &o,
                   std::string source, double max_efficiency = 1.0);

// A table taken from an assumption: Calculon rows (GFLOP or MB) into FLOPs or bytes.
TableFit assumed_table(std::string name, std::string unit, Sourced peak,
                       const std::pair<EfficiencyRows, std::string> &rows, double scale);

// A figure the runs measured, with what it is ("measured: " + what).
Sourced measured(double v, std::string what);

} // namespace railgauge::calibrate
