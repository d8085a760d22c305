#pragma once
// Where an offload point puts its host memory and its CPU thread, relative to the GPU: the
// GPU's own NUMA node ("near", where the driver and nvbandwidth put it) or another one ("far":
// the traffic then also crosses the inter-socket link, UPI or Infinity Fabric, which is what a
// badly bound job pays). Decided on the hwloc topology, so that it is tested on an XML export
// of an 8-GPU node without the hardware.
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/topology.h"
#include "records/offload_placement.h"

namespace railgauge::offload {

enum class Placement { near, far };
std::optional<Placement> parse_placement(std::string_view text);
std::string_view to_string(Placement placement);

struct HostPlacement {
  unsigned numa_node = 0; // OS index of the node holding the host buffers
  unsigned pu = 0;        // OS index of the PU the point's CPU thread is pinned to
  int gpu_numa_node = -1; // the GPU's local node as hwloc reports it, -1 when it has none
  std::string how;        // why this node: "the GPU's local NUMA node", ...
};

// The node and PU for `placement` of the GPU at `gpu_bus_id` ("0000:18:00.0"), or the reason it
// cannot be decided (a waiver): the GPU is not in the topology, hwloc gives it no single local
// node on a multi-node machine, or there is no far node with CPU cores. `nth_thread` picks the
// nth physical core of the node (wrapping), so that several GPUs sharing a node get their own
// cores in the all-GPUs benchmarks.
std::variant<HostPlacement, std::string> choose_host_placement(const Topology &topology,
                                                               std::string_view gpu_bus_id,
                                                               Placement placement,
                                                               unsigned nth_thread = 0);

// The record's fields of a placement (records/offload_placement.h).
record::HostPlacementFields placement_fields(const HostPlacement &p);

// Where the host buffers' pages went against where they were bound (`requested`, an OS index):
// each entry of `found` is a buffer's nodes (HostBuffer::page_nodes()) or why the kernel
// could not say. The sorted union of the nodes and whether every page is on `requested`, or,
// when unknown, both null and why.
record::PlacementCheckFields
placement_check_fields(unsigned requested,
                       const std::vector<std::variant<std::vector<unsigned>, std::string>> &found);
// The same, as a record's metrics: host_numa_nodes_measured, placement_honoured and
// host_numa_node_unknown_reason.
nlohmann::json
placement_check(unsigned requested,
                const std::vector<std::variant<std::vector<unsigned>, std::string>> &found);

} // namespace railgauge::offload
