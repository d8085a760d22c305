#pragma once
// A synthetic H100 SXM node's run of a shipped suite, made by the real runner: the suite is
// planned by make_plan with the registry's real benchmarks (8 GPUs, as the fixture node has),
// every point goes through the benchmark's real supported(), so that a point waived by
// construction (one process: "needs >= 2 ranks") is waived as on a real node, and the records
// are written by the real writer. Only the measurement is made up: a point that would measure
// returns figures typical of a healthy H100 SXM node (sources beside each figure in
// synthetic_node.cpp), through the families' own metric writers. Never a measurement.
#include <string>

namespace railgauge::check::testing {

// One fault at a time, each a failure mode seen on real nodes (tests/fixtures/verdicts/README.md).
struct NodeFaults {
  int slow_gemm_gpu = -1;       // this GPU's GEMM 8% below the others' (a throttling GPU)
  bool h2d_half_slow = false;   // GPUs 4-7 copy to and from the host 20% slower (one PCIe switch)
  int downtrained_gpu = -1;     // this GPU's link trained at Gen4: half the copy bandwidth
  bool allreduce_falls = false; // all_reduce busbw falls past 1 GiB (GPUDirect off, a bad pair)
  bool latency_tail = false;    // RDMA latency maximum 200x the median (a stalling link)
  bool nic_link_downed = false; // the NIC's link went down twice during the RDMA points
  bool bad_cable = false;       // the NIC's cable: symbol errors, WRITE at 55% of line rate
};

enum class Fabric { infiniband, roce }; // the link layer of the node's 8 NICs

// Writes <out_dir>/<host>/{run.json,records.jsonl} for `suite_file`, host host_name(node), and
// returns the directory. run.json holds the fleet's healthy inventory (synthetic_fleet.h).
std::string write_synthetic_node(const std::string &suite_file, const std::string &out_dir,
                                 int node, const NodeFaults &faults = {},
                                 Fabric fabric = Fabric::infiniband);

} // namespace railgauge::check::testing
