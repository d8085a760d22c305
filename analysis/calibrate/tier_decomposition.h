#pragma once
// A collective measured across nodes runs over two kinds of hop at once: NVLink (or whatever
// joins the GPUs of a node) and the fabric between nodes. Its bus bandwidth is neither. This
// takes a multi-node point apart the way NCCL's ring places it (docs/calibrate.md, "Scale-out
// tier taken apart"), so that Calculon's scale-out tier gets the per-GPU fabric rate.
//
// NCCL's ring over n nodes × g GPUs (N = n·g ranks) leaves each node once per channel, and its
// channels spread over the node's NICs. Every edge of a ring carries the rank's bus bytes
// (S·busfactor), so a node sends its bus bytes through its NICs, 1/g of them per GPU, while
// each GPU sends (g-1)/g of its bus bytes over NVLink. The ring is pipelined: its rate is that
// of the slower hop, and NCCL's tuner models a ring over more than two nodes by the inter-node
// bandwidth alone (src/graph/tuning.cc: bw = nNodes <= 2 ? bwIntra : bwInter). Its latency is
// (nsteps - nInterSteps)·intraLat + nInterSteps·interLat (the same file).
#include <optional>
#include <string>
#include <vector>

namespace railgauge::calibrate {

// Bytes one GPU moves over each kind of hop for one call of `op` on `size_bytes` (nccl-tests'
// size) with `ranks` ranks on `nodes` nodes, placed as NCCL places them (consecutive ranks on a
// node, the ring leaving each node once). nullopt for an op this does not model (broadcast,
// reduce) or a layout that is not n whole nodes of the same GPU count.
struct HopBytes {
  double fabric = 0; // through this GPU's share of its node's NICs
  double nvlink = 0; // over this GPU's links inside the node
};
std::optional<HopBytes> hop_bytes_per_gpu(const std::string &op, double size_bytes, int ranks,
                                          int nodes);

// NCCL's ring step counts (src/graph/tuning.cc): all of a call's steps, and those that cross
// the fabric: all_reduce 2(N-1) and 2(n-1); all_gather, reduce_scatter N-1 and n-1; 0 and 0
// for ops that are not rings.
int ring_steps(const std::string &op, int ranks);
int inter_node_steps(const std::string &op, int nodes);

// The node's own tier, one GPU's view: its bus bandwidth and the latency of one ring step.
struct IntraNodeFigure {
  double bus_gbytes_per_s = 0;
  double step_latency_s = 0;
  std::string op;     // the op it was measured on ("" when taken from the tier's values)
  std::string source; // "measured: ..." or where the given/assumed value came from
  bool measured = false;
};

// The scale-out tier of a calibration, taken apart.
struct TierDecomposition {
  std::string op;                              // the reference op the figures are of
  int ranks = 0, nodes = 0, gpus_per_node = 0; // the largest group measured on the fabric
  std::vector<std::string> runs;               // the runs its points came from
  double bus_gbytes_per_s = 0;                 // the run's own busbw (1/β on bus bytes)
  double fabric_gbytes_per_s_per_gpu = 0;      // 1/β on fabric bytes per GPU
  IntraNodeFigure intra;
  // The NVLink rate the ring needed at that fabric rate, over the intra-node figure: at 0.9
  // or more the node's own links may be what bound the run (or it was not a ring), and the
  // fabric figure is not determined by it.
  double nvlink_load = 0;
  bool fabric_bound = true;
  // An all_reduce on 2 nodes may have run NCCL's NVLS tree (NVSwitch nodes): each GPU then
  // sends its 1/g of the reduced buffer to its peer on the other node, S/g, not a ring's
  // 2(N-1)/N·S/g (NCCL's tuner doubles the tree's inter-node bandwidth at <= 2 nodes,
  // src/graph/tuning.cc). The rate the fabric had under that reading; 0 where it does not apply.
  double nvls_tree_gbytes_per_s_per_gpu = 0;
  double alpha_s = 0;         // α of the measured group
  double intra_latency_s = 0; // its intra-node steps × the intra step latency
  // α - intra_latency_s: the inter-node steps' share. When the intra-node steps alone come to
  // α or more (an α fitted on large messages holds the pipeline's fill, not NCCL's per-step
  // latency), the split is not determined: latency_s keeps all of α, an upper bound.
  bool latency_split = false;
  double latency_s = 0;
  double inter_step_latency_s = 0;
};

// The figures above from the fitted α and βs. `fabric_beta_s_per_byte` and `bus_beta` are the
// reference op's seconds per fabric byte per GPU and per bus byte on the largest group.
TierDecomposition decompose_tier(const std::string &op, int ranks, int nodes,
                                 std::vector<std::string> runs, double alpha_s,
                                 double fabric_beta_s_per_byte, double bus_beta_s_per_byte,
                                 const IntraNodeFigure &intra);

// At or above this NVLink load the run is not taken to be fabric-bound.
inline constexpr double kNvlinkBoundLoad = 0.9;

} // namespace railgauge::calibrate
