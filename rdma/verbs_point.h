#pragma once
// One verbs point end to end: open, exchange endpoint info through a Store, connect, prepare
// the data, measure on the active side while the passive side serves, check the data on both
// sides, and put counters, addressing and statistics into the Outcome.
//
// Roles: the client (rank 0) measures through RunContext::measure(); the server (rank 1)
// answers or waits until the client sets its control word by RDMA WRITE. In loopback mode one
// process plays both, the server on a second thread, on the same device (one NIC's loopback,
// or Soft-RoCE in a VM). Built from verbs/verbs_point.cpp with libibverbs, else from
// verbs_point_stub.cpp, whose points are waived.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/record.h"
#include "harness/run_context.h"
#include "harness/store/store.h"
#include "rdma/data_pattern.h"
#include "rdma/verbs_pattern.h"

namespace railgauge::rdma {

struct VerbsPointSpec {
  Verb verb = Verb::write;
  Pattern pattern = Pattern::bandwidth;
  std::string mode = "loopback"; // "loopback" | "ranks"
  std::string device;            // "" = first ACTIVE port
  unsigned port = 1;
  int gid_index = -1;
  int traffic_class = 0;
  int service_level = 0;
  int qps = 1;
  int tx_depth = 128;
  int post_list = 1;
  int cq_moderation = 16;
  int inline_bytes = 64; // messages up to this size go inline (if the QP grants it)
  std::size_t size_bytes = 65536;
  // 0: the measurement core's stopping rule; N: exactly N timed round trips (latency) or N
  // messages (bandwidth, whole calls), as perftest's -n (rdma/stopping_rule.h).
  std::uint64_t iterations = 0;
  std::string sysfs_root = "/sys";
  int gpu = -1;         // the slots in this CUDA device's memory (GPUDirect RDMA); -1: host memory
  std::string point_id; // unique per point and equal on every rank (store keys)
  // How long one side waits for the other (store keys, drains, the control write), and how long
  // the server serves before it gives the client up. Ranks mode: from the run's --store-timeout.
  double peer_timeout_s = 180;
  double serve_deadline_s = 720;
  BeforeDataCheck before_data_check; // test hook (rdma/data_pattern.h)
};

// Why a point cannot run here (no verbs build, no device, too few ranks), or nullopt.
std::optional<std::string> verbs_waive_reason(const RunContext &ctx, const VerbsPointSpec &spec);

Outcome run_verbs_point(RunContext &ctx, const VerbsPointSpec &spec);

// One side of a verbs point against another rank, through `store` under `prefix` (a pair
// matrix plays many such pairs per rank): the client measures and returns the point's Outcome,
// the server serves until the client is done and returns its own (messages served, its port's
// counters, its data check). Waits are bounded by the run's --store-timeout. Throws on failure.
Outcome run_verbs_side(RunContext &ctx, const VerbsPointSpec &spec, Store &store,
                       const std::string &prefix, bool client);

// The RDMA devices this process sees, by name; empty with the reason when there are none.
std::vector<std::string> verbs_device_names(std::string &why_none);

} // namespace railgauge::rdma
