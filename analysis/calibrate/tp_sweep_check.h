#pragma once
// The end-to-end check of a calibrated matrix table: for every model whose transformer-block
// GEMMs were measured under tensor parallelism (gemm.cublaslt / gemm.cpu_blas with a model and
// tp), the time Calculon's table implies for each GEMM (t = F/(peak·eff(F)) + mem1 term) beside
// the measured one, per TP degree t, and summed over the block (each record once: its time is one
// call, all its GEMMs).
//
// Two predictions per GEMM:
//   in-sample    the table written to calculon_system.json (it saw these points);
//   leave-t-out  a table with the same step count fitted on every other point of the dtype,
//                without the GEMMs of this model at this t: how well the table predicts a TP
//                degree it was not fitted on (nullopt when nothing else is left to fit).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/calibrate/calibration.h"

namespace railgauge::calibrate {

struct TpGemmPrediction {
  GemmSample sample;
  double predicted_s = 0;
  std::optional<double> leave_t_out_s;
};

struct TpDegreeSummary {
  int tp = 0;
  std::size_t gemms = 0;
  HeldOutError in_sample;                  // per-GEMM |t_pred - t| / t
  std::optional<HeldOutError> leave_t_out; // likewise, predicted without this t
  double gemm_sum_measured_s = 0;          // Σ t over the block's records
  double gemm_sum_predicted_s = 0;         // Σ t_pred (in-sample)
  std::optional<double> gemm_sum_leave_t_out_s;
};

struct TpSweepCheck {
  std::string model, dtype;
  std::vector<TpGemmPrediction> gemms; // ordered by tp, then as measured
  std::vector<TpDegreeSummary> degrees;
  HeldOutError in_sample; // over every GEMM of every t
  std::optional<HeldOutError> leave_t_out;
};

// One check per (model, dtype) with TP-sweep points; empty when no record has a model and tp.
std::vector<TpSweepCheck> check_tp_sweeps(const Calibration &c);

nlohmann::json to_json(const TpSweepCheck &check);

} // namespace railgauge::calibrate
