#pragma once
// The report's heat maps: imported nvbandwidth matrices, pair matrices of records with src and
// dst params, and the NIC pair matrices of rdma.pair_matrix. Each writes nothing when the runs
// hold no record of its kind.
#include "analysis/report/report_page.h"
#include "analysis/run_set.h"

namespace railgauge::report {

void nvbandwidth_section(Page &page, const analysis::RunSet &runs);
void pair_section(Page &page, const analysis::RunSet &runs);
void nic_matrix_section(Page &page, const analysis::RunSet &runs);

} // namespace railgauge::report
