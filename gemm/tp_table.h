#pragma once
// The TP-sweep summary that `railgauge gemm` prints after the records: one table per
// (benchmark, model, dtype, seq, micro_batch), rows the GEMMs of the block (gemm.pass, in block
// order), columns the TP degree t, cells the efficiency in % of the dense peak when every
// measured cell has one, else TFLOP/s (median). A point that did not measure says why in one
// word (waived, FAILED, error). Records without `tp` and `op` params (size sweeps, other
// families) are ignored; no TP records gives an empty string.
#include <string>
#include <vector>

#include "harness/record.h"

namespace railgauge::gemm {

std::string render_tp_table(const std::vector<Record> &records);

} // namespace railgauge::gemm
