#include "analysis/calibrate/tier_decomposition.h"

#include <algorithm>

namespace railgauge::calibrate {

std::optional<HopBytes> hop_bytes_per_gpu(const std::string &op, double size_bytes, int ranks,
                                          int nodes) {
  if (ranks < 2 || nodes < 1 || ranks % nodes != 0)
    return std::nullopt;
  const double n_ranks = ranks;
  const double g = static_cast<double>(ranks / nodes);
  HopBytes h;
  if (op == "all_reduce" || op == "all_gather" || op == "reduce_scatter") {
    // Every ring edge carries the rank's bus bytes. A node's ring edges leave it once per
    // channel, through one of its NICs: the node sends its bus bytes over the fabric, 1/g per
    // GPU, and each GPU the other (g-1)/g over NVLink. On one node every edge is NVLink.
    const double bus = size_bytes * (op == "all_reduce" ? 2.0 : 1.0) * (n_ranks - 1) / n_ranks;
    h.fabric = nodes > 1 ? bus / g : 0;
    h.nvlink = bus - h.fabric;
    return h;
  }
  if (op == "alltoall") {
    // S/N to every rank: the N - g ranks of other nodes over the fabric, the g - 1 others of
    // the node over NVLink.
    h.fabric = size_bytes * (n_ranks - g) / n_ranks;
    h.nvlink = size_bytes * (g - 1) / n_ranks;
    return h;
  }
  if (op == "p2p") {
    // nccl-tests' sendrecv: rank r sends S to r + 1. The last GPU of a node sends its S over
    // the fabric; the others send theirs over NVLink at the same time.
    h.fabric = nodes > 1 ? size_bytes : 0;
    h.nvlink = g > 1 ? size_bytes : 0;
    return h;
  }
  return std::nullopt;
}

int ring_steps(const std::string &op, int ranks) {
  if (op == "all_reduce")
    return 2 * (ranks - 1);
  if (op == "all_gather" || op == "reduce_scatter")
    return ranks - 1;
  return 0;
}

int inter_node_steps(const std::string &op, int nodes) {
  if (nodes <= 1)
    return 0;
  if (op == "all_reduce")
    return 2 * (nodes - 1);
  if (op == "all_gather" || op == "reduce_scatter")
    return nodes - 1;
  return 0;
}

TierDecomposition decompose_tier(const std::string &op, int ranks, int nodes,
                                 std::vector<std::string> runs, double alpha_s,
                                 double fabric_beta_s_per_byte, double bus_beta_s_per_byte,
                                 const IntraNodeFigure &intra) {
  TierDecomposition d;
  d.op = op;
  d.ranks = ranks;
  d.nodes = nodes;
  d.gpus_per_node = nodes > 0 ? ranks / nodes : 0;
  d.runs = std::move(runs);
  d.bus_gbytes_per_s = bus_beta_s_per_byte > 0 ? 1e-9 / bus_beta_s_per_byte : 0;
  d.fabric_gbytes_per_s_per_gpu = fabric_beta_s_per_byte > 0 ? 1e-9 / fabric_beta_s_per_byte : 0;
  d.intra = intra;
  // At the fabric rate found, the ring's NVLink hops had to carry nvlink/fabric times as many
  // bytes in the same time.
  if (const auto h = hop_bytes_per_gpu(op, 1.0, ranks, nodes); h && h->fabric > 0) {
    const double needed = d.fabric_gbytes_per_s_per_gpu * h->nvlink / h->fabric;
    d.nvlink_load = intra.bus_gbytes_per_s > 0 ? needed / intra.bus_gbytes_per_s : 0;
  }
  d.fabric_bound = d.nvlink_load < kNvlinkBoundLoad;
  if (op == "all_reduce" && nodes == 2 && ranks > 2)
    d.nvls_tree_gbytes_per_s_per_gpu = d.fabric_gbytes_per_s_per_gpu * ranks / (2.0 * (ranks - 1));
  d.alpha_s = alpha_s;
  const int steps = ring_steps(op, ranks);
  const int inter = inter_node_steps(op, nodes);
  d.intra_latency_s = (steps - inter) * intra.step_latency_s;
  d.latency_split = alpha_s - d.intra_latency_s > 0;
  d.latency_s = d.latency_split ? alpha_s - d.intra_latency_s : alpha_s;
  d.inter_step_latency_s = inter > 0 ? d.latency_s / inter : 0;
  return d;
}

} // namespace railgauge::calibrate
