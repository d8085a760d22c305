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

// The GEMM tables' mean relative error, weighted by their points: held out over the tables that
// could hold points out, else in-sample over all (held_out false); nullopt without a GEMM table.
struct GemmTableError {
  double mean_rel = 0;
  bool held_out = true;
};
std::optional<GemmTableError> gemm_table_error(const Calibration &c);

// Calibrates in both modes and keeps roofline where its GEMM tables predict held-out points
// clearly better (error below 0.9 of no_overlap's), else no_overlap, Calculon's own convention
// (also without GEMM records, and where a table has too few points to hold any out: a table of
// one row fits its one point exactly in roofline, so in-sample errors always favour it); a note
// in the kept calibration says which, both errors and whether they are held out.
Calibration calibrate_choosing_mode(const analysis::RunSet &runs, const Assumptions &assumptions,
                                    CalibrateOptions options);

} // namespace railgauge::calibrate
