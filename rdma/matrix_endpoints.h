#pragma once
// Which NICs take part in a verbs pair matrix (rdma.pair_matrix), decided the same way on every
// rank from what every rank said about itself: its host and the devices whose port is ACTIVE.
// `nics` picks per rank: "all" (every usable device: one rank per node), "local_rank" (the
// device at the rank's index among its host's ranks: one rank per GPU, one NIC per GPU) or a
// comma list of names (each must be usable on every rank). Nodes are hosts, or ranks with
// node_per_rank (ranks that stand for nodes, as in a VM). Rails are the NICs' positions on their
// node in rank order, then name order: NIC i meets NIC i of the other nodes.
#include <optional>
#include <string>
#include <vector>

#include "rdma/pair_matrix_run.h"

namespace railgauge::rdma {

struct RankNics {
  std::string host;
  std::vector<std::string> usable; // devices with an ACTIVE port, sorted by name
  std::string why_none;            // when `usable` is empty
};

std::string encode_rank_nics(const RankNics &nics);
// What rank `from_rank` sent; BackendError naming it when malformed.
RankNics decode_rank_nics(const std::string &text, int from_rank);

struct NicMatrixPlan {
  MatrixEndpoints eps;
  std::vector<std::string> device; // per endpoint
  // Set when the matrix cannot run: waived (no rank has a NIC, or one node only) or failed
  // (some ranks lack the NICs the others have: named, for burn-in that is the finding).
  std::optional<std::string> waive;
  std::vector<std::string> problems;
};

// InputError for a `nics` text that names no device or NICs claimed by two ranks of a host.
NicMatrixPlan plan_nic_matrix(const std::vector<RankNics> &ranks, const std::string &nics,
                              bool node_per_rank);

// The devices among `devices` whose `port` is ACTIVE (sysfs_root/class/infiniband/<dev>/ports/
// <port>/state), sorted by name; when none, why_none says each device's state.
std::vector<std::string> active_devices(const std::string &sysfs_root,
                                        const std::vector<std::string> &devices, unsigned port,
                                        std::string &why_none);

} // namespace railgauge::rdma
