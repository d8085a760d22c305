#pragma once
// A synthetic fabric-under-load fleet for the verdict and report tests: made-up records in the
// shape rdma.incast, rdma.qp_scaling and rdma.latency_under_load write (rdma/fabric_load/), never
// measurements. Four nodes (node01..node04, rank r on node r+1), one 400G NIC mlx5_0 each:
// every node in turn the receiver of an incast of the other three (about 130 Gb/s a flow), a
// probe on every node (idle p99 3 us, loaded about 2x), one qp_scaling curve on node01 (flat at
// about 390 Gb/s from 1 to 64 QPs). Faults are switched on one by one.
#include "analysis/run_set.h"

namespace railgauge::check::testing {

struct FabricFaults {
  // node03's flow into node01 (receiver 0) gets 65 Gb/s, the other two take up the slack.
  bool unfair_flow = false;
  // node02's probe: p99 behind the load 60 us against 3 us idle (20x; the others 2x).
  bool latency_blowup = false;
  // node01's stream needs many QPs: 150 Gb/s over 1 QP, 210 over 2, ... 391 over 64.
  bool low_entropy = false;
  // node04, receiving: PFC held its port for 90% of the incast's time.
  bool pfc_storm = false;
};

analysis::RunSet make_fabric_fleet(const FabricFaults &faults);

} // namespace railgauge::check::testing
