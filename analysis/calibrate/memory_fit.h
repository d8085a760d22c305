#pragma once
// The memory tables of a calibration: mem1 from HBM (else host DRAM) points, each memory tier's
// own table, and mem2 from the offload copies; assumed where nothing was measured.
#include "analysis/calibrate/calibration.h"

namespace railgauge::calibrate {

// c.memory_by_tier (hbm, host) and c.mem1 (with c.mem1_tier) from c.samples.memory. Fitted
// before the GEMMs: the GEMM fit takes the mem1 term out with this table.
void fit_memory_tables(Calibration &c);

// c.mem2 from the offload copies on the fast path (h2d and d2h, pinned, near).
void fit_mem2(Calibration &c);

} // namespace railgauge::calibrate
