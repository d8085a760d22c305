#pragma once
// The report's curves from a run's records: GEMM efficiency against the tensor-parallel degree,
// bandwidth against size per family, host<->GPU copies per GPU, and latency percentiles against
// size. Each writes nothing when the runs hold no record of its kind.
#include "analysis/report/report_page.h"
#include "analysis/run_set.h"

namespace railgauge::report {

void gemm_section(Page &page, const analysis::RunSet &runs);
void bandwidth_section(Page &page, const analysis::RunSet &runs);
void per_gpu_section(Page &page, const analysis::RunSet &runs);
void latency_section(Page &page, const analysis::RunSet &runs);

} // namespace railgauge::report
