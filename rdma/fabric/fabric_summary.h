#pragma once
// What `railgauge fabric show` says of a topology: its counts (nodes, rails, switches, leaves,
// spines, NIC cables, uplinks), each leaf's uplinks (a leaf with fewer than the most common
// count is a missing cable, or a port left down), and every part of the file that is not in
// the model: cables set aside (no two-level tree holds them), lines not read, hosts named only
// by a GUID. As JSON for scripts and as a table for the console.
#include <string>

#include <nlohmann/json.hpp>

#include "rdma/fabric/topology.h"

namespace railgauge::rdma::fabric {

nlohmann::json summary_json(const Topology &t, const std::string &path);
std::string summary_table(const Topology &t, const std::string &path);

} // namespace railgauge::rdma::fabric
