#pragma once
// The report's headline for TP sweeps: the FLOP-weighted efficiency of a transformer layer
// (every GEMM of its forward and backward pass) against the tensor-parallel degree t, per model,
// micro-batch and sequence, against the dense peak and against the peak at the SM clock the
// points ran at, with that clock and the power drawn (records/gemm_layer.h). Nothing when the
// runs hold no complete layer.
#include "analysis/report/report_page.h"
#include "analysis/run_set.h"

namespace railgauge::report {

void layer_section(Page &page, const analysis::RunSet &runs);

} // namespace railgauge::report
