#include "rdma/fabric/fabric_simulator.h"

#include <algorithm>

#include "harness/error.h"

namespace railgauge::rdma::fabric {
namespace {

std::uint64_t mix(std::uint64_t x) { // splitmix64's finaliser: a switch's hash stands in
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::uint64_t flow_hash(std::uint64_t seed, int a, int b, int flow) {
  return mix(seed ^ mix((static_cast<std::uint64_t>(a) << 40) ^
                        (static_cast<std::uint64_t>(b) << 16) ^ static_cast<std::uint64_t>(flow)));
}

} // namespace

std::string fault_kind_name(FaultKind kind) {
  switch (kind) {
  case FaultKind::bad_cable:
    return "bad cable";
  case FaultKind::bad_uplink:
    return "bad uplink";
  case FaultKind::flapping_port:
    return "flapping port";
  }
  return "?";
}

FabricSimulator::FabricSimulator(const Topology &topology, SimulatorOptions options)
    : topology_(topology), options_(options), capacity_(topology.links.size(), 1.0),
      down_share_(topology.links.size(), 0.0), rng_(options.seed) {}

void FabricSimulator::inject(const Fault &fault) {
  capacity_[fault.link] = fault.capacity_fraction;
  down_share_[fault.link] = fault.down_share;
  if (fault.kind == FaultKind::flapping_port)
    capacity_[fault.link] = 1.0;
}

Fault FabricSimulator::random_fault(FaultKind kind, std::mt19937_64 &rng) const {
  const auto links = topology_.link_indices(kind == FaultKind::bad_uplink ? LinkKind::leaf_spine
                                                                          : LinkKind::nic_leaf);
  Fault f;
  f.kind = kind;
  f.link = links[std::uniform_int_distribution<std::size_t>(0, links.size() - 1)(rng)];
  // A degraded cable runs at a lower width or speed, or drops enough to lose a fifth or more.
  f.capacity_fraction = std::uniform_real_distribution<double>(0.25, 0.8)(rng);
  if (kind == FaultKind::flapping_port)
    f.down_share = std::uniform_real_distribution<double>(0.3, 0.7)(rng);
  return f;
}

std::vector<int> FabricSimulator::route(int a, int b, int flow) const {
  const int la = topology_.nic_link[a], lb = topology_.nic_link[b];
  if (la < 0 || lb < 0)
    throw InputError("a flow to a NIC without a cable", topology_.endpoint_label(la < 0 ? a : b),
                     "plan only cabled NICs");
  const int leaf_a = topology_.links[la].leaf, leaf_b = topology_.links[lb].leaf;
  if (leaf_a == leaf_b)
    return {la, lb};
  // ECMP: the hash picks one of leaf a's uplinks to a spine that reaches leaf b, then one of
  // that spine's cables down to leaf b.
  const auto &ups = topology_.leaf_spine_links[leaf_a];
  const auto &downs = topology_.leaf_spine_links[leaf_b];
  std::vector<int> choices;
  for (const auto &[spine, links] : ups)
    if (downs.count(spine))
      choices.insert(choices.end(), links.begin(), links.end());
  if (choices.empty())
    throw InputError("no spine joins the two leaves", topology_.endpoint_label(a),
                     "pair NICs whose leaves share a spine (same rail)");
  const auto h = flow_hash(options_.seed, a, b, flow);
  const int up = choices[h % choices.size()];
  const auto &down_links = downs.at(topology_.links[up].spine);
  const int down = down_links[mix(h) % down_links.size()];
  return {la, up, down, lb};
}

std::vector<FlowObservation> FabricSimulator::run(const PlannedRound &round, int round_index) {
  std::vector<FlowObservation> out;
  std::normal_distribution<double> noise(1.0, options_.noise_sd);
  std::uniform_real_distribution<double> uniform(0, 1);
  for (const auto &[x, y] : round.pairs)
    for (int f = 0; f < round.flows_per_pair; ++f) {
      const int a = f % 2 == 0 ? x : y, b = f % 2 == 0 ? y : x;
      FlowObservation o{a, b, f, round_index, route(a, b, f), 0};
      double capacity = 1.0;
      for (int l : o.path) {
        double c = capacity_[l];
        if (down_share_[l] > 0 && uniform(rng_) < down_share_[l])
          c = std::min(c, 0.3); // retraining or falling back to a narrower width
        capacity = std::min(capacity, c);
      }
      if (uniform(rng_) < options_.transient_share)
        capacity *= 0.6;
      o.bandwidth_gbps = options_.link_gbps * capacity * std::max(0.0, noise(rng_));
      out.push_back(std::move(o));
    }
  return out;
}

} // namespace railgauge::rdma::fabric
