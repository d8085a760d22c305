#include "analysis/calibrate/network_tier_fit.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "analysis/calibrate/decomposed_tier.h"
#include "analysis/calibrate/linear_quality.h"
#include "analysis/calibrate/processor_usage.h"
#include "analysis/calibrate/si_prefixes.h"
#include "analysis/calibrate/table_fit.h"
#include "harness/stats.h"

namespace railgauge::calibrate {
namespace {

using SamplesByOp = std::map<std::string, std::vector<CollectiveSample>>;

// The ring algorithm's (scalar, offset): scalar·(1 + offset/n) is bus_factor().
std::pair<double, std::optional<double>> ring_op(const std::string &op) {
  if (op == "p2p")
    return {1.0, std::nullopt};
  if (op == "all_reduce")
    return {2.0, -1.0};
  return {1.0, -1.0};
}

// Calculon's a100_80g ops per tier (the default when a tier has no measurement).
std::pair<double, std::optional<double>> default_op(int tier, const std::string &op) {
  if (op == "p2p")
    return {1.0, std::nullopt};
  if (tier == 0)
    return {op == "all_reduce" ? 2.0 : 1.5, -1.0};
  return {1.0, 0.0};
}

nlohmann::json size_table(const std::vector<CollectiveSample> &s, const std::string &op) {
  std::map<std::pair<int, double>, std::vector<double>> times;
  for (const auto &x : s)
    times[{x.ranks, x.size_bytes}].push_back(x.time_s);
  nlohmann::json t = nlohmann::json::array();
  for (const auto &[k, v] : times) {
    const double time = median(v);
    const double algbw = k.second / time / kGiga;
    t.push_back({{"ranks", k.first},
                 {"size_bytes", k.second},
                 {"time_s", time},
                 {"samples", v.size()},
                 {"algbw_gbytes_per_s", algbw},
                 {"busbw_gbytes_per_s", algbw * bus_factor(op, k.first)}});
  }
  return t;
}

// The bytes a point's time is fitted against: the bus bytes on each link, or, on a tier taken
// apart, the bytes through one GPU's share of its node's NICs.
double regressor(bool decompose, const std::string &op, const CollectiveSample &x) {
  if (decompose)
    if (const auto h = hop_bytes_per_gpu(op, x.size_bytes, x.ranks, x.hosts))
      return h->fabric;
  return x.size_bytes * bus_factor(op, x.ranks);
}

// The tier's figure for `key` in the assumptions (given or default).
Sourced assumed(const Calibration &c, const std::string &net, const char *key) {
  return *c.assumptions.value(net + "." + key);
}

// One α-β fit per op on the tier (tier.ops), and the tier's largest group (tier.group_hosts);
// returns its ranks. The ranks of every point fitted are added to ranks_seen.
int fit_each_op(const Calibration &c, NetworkTier &tier, const SamplesByOp &by_op, bool decompose,
                std::vector<double> &ranks_seen) {
  int largest = 0;
  for (const auto &[op, s] : by_op) {
    CollectiveFit f;
    f.op = op;
    f.table = size_table(s, op);
    std::vector<std::pair<double, double>> xt;
    std::vector<double> sizes; // the op size S of each point, the size Calculon asks for
    for (const auto &x : s) {
      if (x.ranks > largest || (x.ranks == largest && x.hosts > tier.group_hosts))
        tier.group_hosts = x.hosts;
      largest = std::max(largest, x.ranks);
      if (x.ranks < 2 && op != "p2p") {
        ++f.single_rank_samples;
        continue;
      }
      xt.emplace_back(regressor(decompose, op, x), x.time_s);
      sizes.push_back(x.size_bytes);
      ranks_seen.push_back(x.ranks);
    }
    if (!xt.empty())
      f.fit = fit_alpha_beta(xt, c.options.folds, c.options.seed, &sizes);
    tier.ops[op] = f;
  }
  return largest;
}

// The joint model of Calculon's four ops: one α, one β per op. A tier taken apart gets one α
// per layout (ranks, nodes): NCCL's ring latency grows with both (its intra- and inter-node
// steps), while its β per fabric byte is one for every node count; a single α over several
// node counts would bend the β to make up for the latencies it cannot hold.
// Returns the reference op: the first of all_reduce, reduce_scatter, all_gather, p2p with a
// positive β, or "" when none has one.
std::string fit_joint(const Calibration &c, NetworkTier &tier, const SamplesByOp &by_op,
                      bool decompose) {
  std::vector<std::string> cols;
  for (const auto &op : calculon_op_names())
    if (by_op.count(op))
      cols.push_back(op);
  std::vector<std::pair<int, int>> layouts; // (ranks, hosts), each with its own α column
  const auto layout_of = [&](const CollectiveSample &x) -> std::size_t {
    if (!decompose)
      return 0;
    const std::pair<int, int> l{x.ranks, x.hosts};
    const auto it = std::find(layouts.begin(), layouts.end(), l);
    if (it != layouts.end())
      return static_cast<std::size_t>(it - layouts.begin());
    layouts.push_back(l);
    return layouts.size() - 1;
  };
  std::vector<std::pair<std::size_t, std::size_t>> cells; // (α column, op) per sample
  std::vector<const CollectiveSample *> used;
  for (std::size_t j = 0; j < cols.size(); ++j)
    for (const auto &x : by_op.at(cols[j])) {
      if (x.ranks < 2 && cols[j] != "p2p")
        continue;
      cells.emplace_back(layout_of(x), j);
      used.push_back(&x);
    }
  const std::size_t alphas = std::max<std::size_t>(1, layouts.size());
  std::vector<LinearSample> joint;
  std::vector<double> joint_sizes;
  std::vector<std::string> joint_ops;
  for (std::size_t i = 0; i < used.size(); ++i) {
    joint_sizes.push_back(used[i]->size_bytes);
    joint_ops.push_back(cols[cells[i].second]);
    LinearSample ls;
    ls.x.assign(alphas + cols.size(), 0.0);
    ls.x[cells[i].first] = 1;
    ls.x[alphas + cells[i].second] = regressor(decompose, cols[cells[i].second], *used[i]);
    ls.t = used[i]->time_s;
    joint.push_back(ls);
  }
  std::string ref;
  if (!joint.empty()) {
    const auto fit = robust_linear_fit(joint);
    tier.joint_quality =
        linear_quality(joint, fit, c.options.folds, c.options.seed, &joint_sizes, &joint_ops);
    // The α written is the largest layout's: the group the tier's size comes from.
    std::size_t largest_layout = 0;
    for (std::size_t l = 1; l < layouts.size(); ++l)
      if (layouts[l] > layouts[largest_layout])
        largest_layout = l;
    tier.joint_alpha_s = fit.coef[largest_layout];
    const auto intervals = linear_fit_intervals(joint, c.options.seed);
    tier.joint_alpha_interval = intervals[largest_layout];
    for (std::size_t j = 0; j < cols.size(); ++j) {
      tier.joint_beta_s_per_byte[cols[j]] = fit.coef[alphas + j];
      tier.joint_beta_interval[cols[j]] = intervals[alphas + j];
    }
    for (const char *candidate : {"all_reduce", "reduce_scatter", "all_gather", "p2p"})
      if (tier.joint_beta_s_per_byte.count(candidate) &&
          tier.joint_beta_s_per_byte[candidate] > 0) {
        ref = candidate;
        break;
      }
  }
  return ref;
}

// A tier without a reference op: every figure assumed, Calculon's default op scalars.
void assume_tier(Calibration &c, NetworkTier &tier, const std::string &net) {
  if (tier.measured)
    c.notes.push_back(fmt::format("{}: collectives measured, but none of Calculon's four ops on "
                                  "two or more ranks: the tier is assumed",
                                  tier.name));
  tier.measured = false;
  tier.bandwidth_gbytes_per_s = assumed(c, net, "bandwidth");
  tier.efficiency = assumed(c, net, "efficiency");
  tier.latency_s = assumed(c, net, "latency");
  for (const auto &op : calculon_op_names()) {
    tier.calculon_ops[op] = default_op(tier.index, op);
    tier.calculon_op_source[op] = kBorrowedSource;
  }
}

// The tier's bandwidth and efficiency: given, else from 1/β of the reference op.
void fit_bandwidth(Calibration &c, NetworkTier &tier, const std::string &net,
                   const std::string &ref, bool decompose) {
  // bytes/s on each link, or through each GPU's share of the NICs on a tier taken apart
  const double bw_ref = 1.0 / tier.joint_beta_s_per_byte[ref];
  if (auto u = c.assumptions.user(net + ".bandwidth"))
    tier.bandwidth_gbytes_per_s = {*u, kUserSource, false};
  else if (decompose)
    tier.bandwidth_gbytes_per_s = measured(
        bw_ref / kGiga, fmt::format("1/β of {} per byte through one GPU's share of its node's "
                                    "NICs (the tier taken apart; no link rate given)",
                                    ref));
  else
    tier.bandwidth_gbytes_per_s =
        measured(bw_ref / kGiga, fmt::format("1/β of {} (bus bandwidth; no link rate given)", ref));
  if (auto u = c.assumptions.user(net + ".efficiency")) {
    tier.efficiency = {*u, kUserSource, false};
  } else {
    const double ratio = bw_ref / (tier.bandwidth_gbytes_per_s.value * kGiga);
    tier.efficiency = measured(std::min(1.0, ratio), fmt::format("(1/β of {}) / bandwidth", ref));
    // Never silently: the per-op scalars below then carry the rest (bandwidth × efficiency ×
    // scalar / β stays the measured bus bandwidth for every op).
    if (ratio > 1.0 && decompose)
      c.notes.push_back(fmt::format(
          "{}: the per-GPU fabric rate of {} taken apart ({:.4g} GB/s) is above the given "
          "networks.{}.bandwidth ({:.4g} GB/s): efficiency is capped at 1.0 and the op "
          "scalars carry the difference",
          tier.name, ref, bw_ref / kGiga, tier.index, tier.bandwidth_gbytes_per_s.value));
    else if (ratio > 1.0)
      c.notes.push_back(fmt::format(
          "{}: the measured bus bandwidth of {} ({:.4g} GB/s) is above the given "
          "networks.{}.bandwidth ({:.4g} GB/s): efficiency is capped at 1.0 and the op "
          "scalars carry the difference; a multi-node group's bus bandwidth includes the "
          "NVLink hops inside each node, so give the per-GPU fabric rate times the GPUs per "
          "node, or leave the bandwidth to the fit",
          tier.name, ref, bw_ref / kGiga, tier.index, tier.bandwidth_gbytes_per_s.value));
  }
}

// Calculon's scalar per op: its β against the tier's bandwidth × efficiency.
void fit_calculon_ops(NetworkTier &tier, const std::string &ref) {
  const double bw_eff = tier.bandwidth_gbytes_per_s.value * kGiga * tier.efficiency.value;
  for (const auto &op : calculon_op_names()) {
    const auto ring = ring_op(op);
    const auto b = tier.joint_beta_s_per_byte.find(op);
    if (b != tier.joint_beta_s_per_byte.end() && b->second > 0) {
      tier.calculon_ops[op] = {ring.first * b->second * bw_eff, ring.second};
      tier.calculon_op_source[op] = "measured: β of this op × bandwidth × efficiency";
    } else {
      // Not measured: assumed to move its bus bytes at the reference op's bus bandwidth, so
      // that the scalars stay consistent with one another (a bare ring scalar beside a fitted
      // one would price this op apart from the bandwidth the tier was fitted at).
      tier.calculon_ops[op] = {ring.first * tier.joint_beta_s_per_byte[ref] * bw_eff, ring.second};
      tier.calculon_op_source[op] =
          fmt::format("assumed: not measured; taken to run at {}'s bus bandwidth", ref);
    }
  }
}

// The tier's latency: given, else the joint fit's α (less the intra-node steps on a tier taken
// apart when the split holds).
void fit_latency(Calibration &c, NetworkTier &tier, const std::string &net,
                 const std::string &ref) {
  if (auto u = c.assumptions.user(net + ".latency"))
    tier.latency_s = {*u, kUserSource, false};
  else if (tier.decomposition && tier.decomposition->latency_split)
    tier.latency_s = measured(
        tier.decomposition->latency_s,
        fmt::format("α of the tier's joint fit less its {} intra-node ring steps at {:.3g} µs "
                    "each (the tier taken apart)",
                    ring_steps(ref, tier.decomposition->ranks) -
                        inter_node_steps(ref, tier.decomposition->nodes),
                    tier.decomposition->intra.step_latency_s * 1e6));
  else if (tier.decomposition) {
    const auto &d = *tier.decomposition;
    tier.latency_s = measured(d.alpha_s, "α of the tier's joint fit, whole (an upper bound: "
                                         "the split was not determined)");
    c.notes.push_back(fmt::format(
        "{}: latency not split: the {} intra-node ring steps at {:.3g} µs each (the "
        "intra-node α over its ring steps) come to {:.4g} µs, not below the run's α of {:.4g} "
        "µs; the whole α is kept, an upper bound on the inter-node steps' latency (an α "
        "fitted on large messages holds the pipeline's fill, not a per-step latency)",
        tier.name, ring_steps(ref, d.ranks) - inter_node_steps(ref, d.nodes),
        d.intra.step_latency_s * 1e6, d.intra_latency_s * 1e6, d.alpha_s * 1e6));
  } else
    tier.latency_s = measured(tier.joint_alpha_s, "α of the tier's joint fit");
}

// The tier's size: given, else its largest group measured (a lower bound), else assumed.
void fit_size(Calibration &c, NetworkTier &tier, const std::string &net, int largest) {
  if (auto u = c.assumptions.user(net + ".size"))
    tier.size = {*u, kUserSource, false};
  else if (largest > 1)
    tier.size = measured(largest, "the largest group in the runs (a lower bound)");
  else
    tier.size = assumed(c, net, "size");
  if (!tier.size.measured && tier.size.source != kUserSource)
    c.notes.push_back(fmt::format(
        "{}: size {} is {}, not measured: it sets Calculon's networks[{}].size and ASTRA-sim's "
        "npus_count; give --assume networks.{}.size=N for the real system",
        tier.name, tier.size.value, tier.size.source, tier.index, tier.index));
  else if (tier.size.measured)
    // Calculon refuses a parallel degree above a tier's size: a small test group would forbid
    // the larger ones the machine has.
    c.notes.push_back(fmt::format(
        "{}: size {} is the largest group measured, a lower bound: Calculon maps no parallel "
        "degree above it to networks[{}]; give --assume networks.{}.size=N for the real system",
        tier.name, tier.size.value, tier.index, tier.index));
}

} // namespace

const std::vector<std::string> &calculon_op_names() {
  static const std::vector<std::string> n = {"p2p", "reduce_scatter", "all_gather", "all_reduce"};
  return n;
}

void fit_tier(Calibration &c, NetworkTier &tier) {
  const std::string net = fmt::format("networks.{}", tier.index);
  SamplesByOp by_op;
  for (const auto &s : c.samples.collectives)
    if (s.tier == tier.name)
      by_op[s.op].push_back(s);
  tier.measured = !by_op.empty();
  const bool decompose = decomposable(tier, by_op);
  std::vector<double> ranks_seen;
  const int largest = fit_each_op(c, tier, by_op, decompose, ranks_seen);
  const std::string ref = fit_joint(c, tier, by_op, decompose);
  tier.group_ranks = ranks_seen.empty() ? 0 : static_cast<int>(median(ranks_seen));

  tier.must_be_filled = tier.index == 0;
  if (ref.empty()) {
    assume_tier(c, tier, net);
  } else {
    if (decompose) {
      tier.decomposition = decomposition_of(c, tier, ref, by_op.at(ref));
      note_decomposition(c, tier, ref, net);
    }
    fit_bandwidth(c, tier, net, ref, decompose);
    fit_calculon_ops(tier, ref);
    fit_latency(c, tier, net, ref);
  }
  fit_size(c, tier, net, largest);
  tier.processor_usage = tier_processor_usage(c, tier, net);
}

} // namespace railgauge::calibrate
