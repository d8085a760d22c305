#pragma once
// The GEMM tables of a calibration: one efficiency table per dtype measured (with its shapes'
// rows), Calculon's matrix tables from them, and the vector tables beside them.
#include "analysis/calibrate/calibration.h"

namespace railgauge::calibrate {

// Fills c.gemm_by_dtype, c.gemm_shapes, c.matrix and c.vector from c.samples.gemm; in
// no_overlap mode the mem1 table (fitted first) takes each GEMM's memory term out.
void fit_gemm(Calibration &c);

} // namespace railgauge::calibrate
