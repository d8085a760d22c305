#pragma once
// Which of Calculon's processing modes the GEMM records support: no_overlap (an op takes its
// compute time plus its memory time) or roofline (the larger of the two). Calculon's own system
// files use no_overlap; on one H100 the GPU block's attention BMMs, whose memory time is most of
// their measured time, were then predicted 27 % slow through the step table, and the block
// 5.2 % slow, where roofline gave +1.6 % (results/reference/h100-2026-11-27).
#include "analysis/calibrate/calibration.h"

#include <optional>
#include <string>

namespace railgauge::calibrate {

// The GEMM tables' held-out mean relative error, weighted by their points (in-sample where no
// table could hold points out); nullopt without a GEMM table.
std::optional<double> gemm_table_error(const Calibration &c);

// Calibrates in both modes and keeps roofline where its GEMM tables predict held-out points
// clearly better (error below 0.9 of no_overlap's), else no_overlap, Calculon's own convention
// (also without GEMM records); a note in the kept calibration says which and both errors.
Calibration calibrate_choosing_mode(const analysis::RunSet &runs, const Assumptions &assumptions,
                                    CalibrateOptions options);

} // namespace railgauge::calibrate
