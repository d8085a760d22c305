#pragma once
// What the fabric-under-load benchmarks share: their verbs settings (one struct, filled from a
// point's axes), the axes themselves and which device each rank uses.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/axis.h"
#include "harness/benchmark.h"
#include "harness/run_context.h"
#include "rdma/fabric_load/flow_rounds.h"

namespace railgauge::rdma {

struct FabricLoadSpec {
  std::string devices; // "": the first ACTIVE port; a comma list: rank r uses entry r mod n
  unsigned port = 1;
  int gid_index = -1;
  int traffic_class = 0;
  int service_level = 0;
  int qps = 1;                                   // per flow (a sender's QPs to its receiver)
  int tx_depth = 128;                            // send queue entries per QP
  std::size_t size_bytes = std::size_t{1} << 20; // WRITE message
  bool set_flow_labels = true; // RoCE: flow_label_of(sender, qp) on every QP; false: 0 (driver)
  std::size_t probe_size_bytes = 8; // latency_under_load: the ping-pong's message
  std::string sysfs_root = "/sys";
};

// The device rank `rank` uses: "" or entry rank mod n of the comma list.
std::string device_for_rank(const std::string &devices, int rank);

// The axes every fabric-load benchmark has (device list, addressing, message size, send depth,
// flow labels), and the spec they give.
std::vector<Axis> fabric_load_axes();
FabricLoadSpec fabric_load_spec_of(const Point &point);

// Why the fabric-load benchmarks cannot run here: no verbs (the device list's reason), fewer than
// `min_ranks` ranks or no store (not applicable); nullopt when they can.
std::optional<std::string> fabric_load_waive_reason(const RunContext &ctx, int min_ranks);

// The verbs implementations of the round sides (verbs_flows.cpp; verbs_flows_stub.cpp without
// libibverbs, whose sides throw: supported() waives first).
std::unique_ptr<IncastSide> make_verbs_incast_side(const RunContext &ctx,
                                                   const FabricLoadSpec &spec);
// The load: spec.qps QPs per loader, spec.size_bytes per WRITE; the probe: probe_size_bytes.
std::unique_ptr<ProbeSide> make_verbs_probe_side(const RunContext &ctx, const FabricLoadSpec &spec);

} // namespace railgauge::rdma
