#pragma once
// The report's sections for the fabric under load (rdma.incast, rdma.qp_scaling,
// rdma.latency_under_load): fairness bars per receiver, the entropy curve, and idle beside loaded
// latency. Their records' size_bytes is the bulk stream's message, not a point of a size sweep,
// so the size-sweep sections leave them out.
#include "analysis/report/report_page.h"
#include "harness/record.h"

namespace railgauge::report {

// Flows under this share of the median flow into their receiver are drawn red, as the profiles'
// incast-flow-vs-fleet rule judges them (ClusterKit's 93%).
inline constexpr double kFlowShareOfMedian = 0.93;

bool is_fabric_load(const Record &r);

// Writes nothing when the set holds no ok fabric-load record.
void fabric_load_sections(Page &page, const analysis::RunSet &runs);

} // namespace railgauge::report
