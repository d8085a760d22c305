#pragma once
// Synthetic fleets for the verdict tests: made-up records and inventories in the shape
// railgauge writes, never measurements. Built in memory as analysis::RunSet, one LoadedRun per
// node, so the tests need no disk (write_fleet() puts them on disk for the CLI-path tests).
//
// The default fleet: 8 nodes (node01..node08) x 8 GPUs, GEMM at about 740 TFLOPS with a
// deterministic +-0.5% spread, HBM and H2D per GPU, one rdma.write_bw record per NIC, and
// an inventory with healthy NVML and verbs sections. Faults are switched on one by one.
#include <string>

#include "analysis/run_set.h"

namespace railgauge::check::testing {

struct FleetFaults {
  bool slow_gpu = false;        // node03 gpu5: GEMM 8% below the others
  bool pcie_gen4 = false;       // node05 gpu2: link trained to Gen4 x16, H2D at Gen4 speed
  bool nic_link_downed = false; // node07 mlx5_4: link_downed and symbol_error deltas
  bool failed_record = false;   // node02 gpu0: an HBM record whose data check failed
  bool drop_h2d = false;        // node08: no offload.h2d records at all
  // Every node also records H2D from pageable memory (20 GB/s) and from pinned memory on the far
  // NUMA node (44 GB/s) at the same size, as the default offload run does.
  bool host_memory_variants = false;
};

// A fixed +-0.5% pattern instead of random numbers: the same fleet (and fabric load) in every
// test run.
double jitter(int node, int gpu);
std::string gpu_bus_id(int gpu); // "0000:18:00.0" + gpu * 0x10 on the bus
std::string host_name(int node); // node01..node08
// Node `node`'s inventory (run.json "inventory"): NVML, verbs and port counters of a healthy
// H100 SXM node with 8x400G InfiniBand, but for the faults that touch the inventory.
nlohmann::json fleet_inventory(int node, int gpus, const FleetFaults &faults);
analysis::RunSet make_fleet(const FleetFaults &faults, int nodes = 8, int gpus = 8);

// A copy of a fleet with every value of `key`'s `metric` multiplied by `factor`.
analysis::RunSet scaled(analysis::RunSet set, const std::string &key, const std::string &metric,
                        double factor);

// Writes the fleet as run directories <dir>/<host>/{run.json,records.jsonl}.
void write_fleet(const analysis::RunSet &fleet, const std::string &dir);

} // namespace railgauge::check::testing
