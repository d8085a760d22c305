#pragma once
// railgauge's own coefficient file, schema railgauge.coefficients/1
// (results/schema/coefficients.schema.json): everything Calculon's format cannot hold (the
// per-shape GEMM table, per-op α/β, per-size collective tables, offload and RDMA fits) beside
// what it can, each with its source and its fit quality.
#include <nlohmann/json.hpp>

#include "analysis/calibrate/calibration.h"

namespace railgauge::calibrate {

inline constexpr const char *kCoefficientSchema = "railgauge.coefficients/1";

nlohmann::json coefficient_file(const Calibration &c);

// {"points", "held_out": {folds, points, mean_rel, max_rel} or null, "in_sample": {...}}
nlohmann::json to_json(const HeldOutError &e);
nlohmann::json to_json(const FitQuality &q);
nlohmann::json to_json(const Sourced &s);

} // namespace railgauge::calibrate
