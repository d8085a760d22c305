#pragma once
// Where an offload point put its host buffer and CPU thread, and where the buffer's pages were
// found (offload/placement.h decides and checks both). A one-GPU record carries the first in its
// derived params and the second in its metrics; an all_gpus per_gpu object carries both. Written
// and read through these types so that a field renamed on one side fails to compile or fails
// tests/offload/offload_record_fields_test.cpp, which reads each writer's output back.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace railgauge::offload::record {

// The placement chosen: host_numa_node, gpu_numa_node, cpu_pu, placement_how.
struct HostPlacementFields {
  unsigned host_numa_node = 0; // OS index of the node holding the host buffers
  int gpu_numa_node = -1;      // the GPU's local node as hwloc reports it, -1 when it has none
  unsigned cpu_pu = 0;         // OS index of the PU the point's CPU thread ran on
  std::string how;             // why this node: "the GPU's local NUMA node", ...

  void write(nlohmann::json &params) const;
  // The placement in `params`; nullopt where it names no host_numa_node (a record that was
  // waived before it was placed, or an import). A field of another type reads as absent.
  static std::optional<HostPlacementFields> read(const nlohmann::json &params);

  bool operator==(const HostPlacementFields &) const = default;
};

// Where the host buffers' pages were found against the node they were bound to: the nodes and
// whether the binding held, both null when the kernel could not say, and then why.
struct PlacementCheckFields {
  std::optional<std::vector<unsigned>> host_numa_nodes_measured; // sorted
  std::optional<bool> honoured;                                  // every page on the node asked for
  std::optional<std::string> unknown_reason;

  void write(nlohmann::json &metrics) const;
  // The check in `metrics`; nullopt where it has no placement_honoured at all.
  static std::optional<PlacementCheckFields> read(const nlohmann::json &metrics);

  bool operator==(const PlacementCheckFields &) const = default;
};

} // namespace railgauge::offload::record
