#include "analysis/calibrate/decomposed_tier.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "analysis/calibrate/network_tier_fit.h"
#include "analysis/calibrate/si_prefixes.h"
#include "harness/stats.h"

namespace railgauge::calibrate {
namespace {

// The node's own tier as one GPU of a g-GPU node sees it: the same op measured on one node of g
// ranks if the runs have it, else networks[0] as written (measured, given or assumed).
IntraNodeFigure intra_node_figure(const Calibration &c, const std::string &op, int g) {
  std::vector<std::pair<double, double>> xt;
  std::set<std::string> runs;
  for (const auto &s : c.samples.collectives)
    if (s.tier == kScaleUp && s.op == op && s.ranks == g) {
      xt.emplace_back(s.size_bytes * bus_factor(op, g), s.time_s);
      runs.insert(s.run);
    }
  IntraNodeFigure f;
  if (xt.size() >= 2) {
    const auto ab = fit_alpha_beta(xt, c.options.folds, c.options.seed);
    if (ab.beta_s_per_byte > 0) {
      const int steps = ring_steps(op, g);
      f.bus_gbytes_per_s = 1.0 / ab.beta_s_per_byte / kGiga;
      f.step_latency_s = steps > 0 ? ab.alpha_s / steps : ab.alpha_s;
      f.op = op;
      f.source = fmt::format("measured: {} on one node of {} ranks, {} points (runs: {})", op, g,
                             xt.size(), fmt::join(runs, ", "));
      f.measured = true;
      return f;
    }
  }
  const NetworkTier &up = c.networks.at(0);
  const int n = up.group_ranks > 1 ? up.group_ranks
                                   : std::max(2, static_cast<int>(std::lround(up.size.value)));
  f.bus_gbytes_per_s = up.bandwidth_gbytes_per_s.value * up.efficiency.value;
  f.step_latency_s = up.latency_s.value / ring_steps("all_reduce", n);
  f.source = fmt::format("networks[0]: bandwidth ({}) × efficiency ({}); latency ({}) over the "
                         "2({}-1) steps of an all_reduce (no {} on one node of {} ranks measured)",
                         up.bandwidth_gbytes_per_s.source, up.efficiency.source,
                         up.latency_s.source, n, op, g);
  f.measured = up.bandwidth_gbytes_per_s.measured && up.efficiency.measured;
  return f;
}

} // namespace

bool decomposable(const NetworkTier &tier,
                  const std::map<std::string, std::vector<CollectiveSample>> &by_op) {
  if (tier.name != kScaleOut)
    return false;
  bool several_per_node = false;
  for (const auto &op : calculon_op_names()) {
    const auto it = by_op.find(op);
    if (it == by_op.end())
      continue;
    for (const auto &s : it->second) {
      if (s.ranks < 2 && op != "p2p")
        continue;
      if (s.hosts < 2 || !hop_bytes_per_gpu(op, s.size_bytes, s.ranks, s.hosts))
        return false;
      several_per_node |= s.ranks / s.hosts > 1;
    }
  }
  return several_per_node;
}

TierDecomposition decomposition_of(const Calibration &c, const NetworkTier &tier,
                                   const std::string &ref,
                                   const std::vector<CollectiveSample> &samples) {
  int ranks = 0, hosts = 0;
  for (const auto &s : samples)
    if (s.ranks > ranks || (s.ranks == ranks && s.hosts > hosts))
      ranks = s.ranks, hosts = s.hosts;
  std::vector<std::pair<double, double>> bus;
  std::set<std::string> runs;
  for (const auto &s : samples)
    if (s.ranks == ranks && s.hosts == hosts) {
      bus.emplace_back(s.size_bytes * bus_factor(ref, ranks), s.time_s);
      runs.insert(s.run);
    }
  const double bus_beta = fit_alpha_beta(bus, c.options.folds, c.options.seed).beta_s_per_byte;
  return decompose_tier(ref, ranks, hosts, {runs.begin(), runs.end()}, tier.joint_alpha_s,
                        tier.joint_beta_s_per_byte.at(ref), bus_beta,
                        intra_node_figure(c, ref, ranks / hosts));
}

void note_decomposition(Calibration &c, const NetworkTier &tier, const std::string &ref,
                        const std::string &net) {
  const auto &d = *tier.decomposition;
  c.notes.push_back(fmt::format(
      "{}: taken apart (NCCL ring over {} nodes × {} GPUs, runs: {}): {} busbw {:.4g} GB/s "
      "is {:.4g} GB/s per GPU over the fabric; intra-node figure {:.4g} GB/s ({}), which "
      "the ring loaded to {:.0f}%",
      tier.name, d.nodes, d.gpus_per_node, fmt::join(d.runs, ", "), ref, d.bus_gbytes_per_s,
      d.fabric_gbytes_per_s_per_gpu, d.intra.bus_gbytes_per_s, d.intra.source,
      100 * d.nvlink_load));
  if (d.nvls_tree_gbytes_per_s_per_gpu > 0)
    c.notes.push_back(fmt::format(
        "{}: an all_reduce on 2 nodes of NVSwitch GPUs may run NCCL's NVLS tree, which sends "
        "each GPU's 1/{} of the buffer once over the fabric, not a ring's 2({}-1)/{} of it: "
        "read so, the fabric ran at {:.4g} GB/s per GPU, not {:.4g}; a ring figure above "
        "the NIC's line rate says it was the tree",
        tier.name, d.gpus_per_node, d.ranks, d.ranks, d.nvls_tree_gbytes_per_s_per_gpu,
        d.fabric_gbytes_per_s_per_gpu));
  if (!d.fabric_bound)
    c.notes.push_back(fmt::format(
        "{}: the ring would have needed {:.0f}% of the intra-node figure on NVLink: the run "
        "may be bound inside the node, or not a ring (at 2 nodes NCCL's NVLS tree moves "
        "half the fabric bytes of a ring; its tuner doubles their rate, "
        "src/graph/tuning.cc), so {:.4g} GB/s per GPU is not the fabric's rate; give "
        "--assume {}.bandwidth with the NIC's line rate",
        tier.name, 100 * d.nvlink_load, d.fabric_gbytes_per_s_per_gpu, net));
}

} // namespace railgauge::calibrate
