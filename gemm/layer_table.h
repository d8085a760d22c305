#pragma once
// The layer summary that `railgauge gemm` prints after the TP tables: per TP sweep, the
// FLOP-weighted efficiency of the whole transformer layer (forward and backward) at each t,
// against the dense peak and against the peak at the SM clock the points ran at, with that clock
// and the power drawn (records/gemm_layer.h). A t where the layer is not complete shows how many
// of its GEMMs were measured and no efficiency. No complete layer in the records: an empty string.
#include <string>
#include <vector>

#include "harness/record.h"

namespace railgauge::gemm {

std::string render_layer_table(const std::vector<Record> &records);

} // namespace railgauge::gemm
