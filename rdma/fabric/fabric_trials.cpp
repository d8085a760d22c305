#include "rdma/fabric/fabric_trials.h"

#include <algorithm>
#include <random>
#include <set>

#include <fmt/format.h>

#include "harness/error.h"

namespace railgauge::rdma::fabric {
namespace {

constexpr std::size_t kMissesSaid = 5;

std::string names(const Topology &t, const std::set<int> &links) {
  if (links.empty())
    return "nothing";
  std::string out;
  for (int l : links)
    out += (out.empty() ? "" : ", ") + t.links[l].label;
  return out;
}

} // namespace

TrialRates run_fault_trials(const Topology &t, const std::vector<FaultKind> &faults, int trials,
                            std::uint64_t seed, const AcceptanceOptions &options) {
  for (const auto kind : faults) {
    const auto links =
        t.link_indices(kind == FaultKind::bad_uplink ? LinkKind::leaf_spine : LinkKind::nic_leaf);
    if (links.size() < faults.size())
      throw InputError(
          fmt::format("the topology has too few links a {} can be put on", fault_kind_name(kind)),
          "--fault", "simulate a fault of a kind the fabric has (no uplinks: cable)");
  }
  TrialRates rates;
  std::mt19937_64 rng(seed);
  for (int i = 0; i < trials; ++i) {
    FabricSimulator sim(t, {.seed = rng()});
    std::set<int> injected;
    while (injected.size() < faults.size()) {
      const auto f = sim.random_fault(faults[injected.size()], rng);
      if (injected.insert(f.link).second)
        sim.inject(f);
    }
    auto o = options;
    o.coverage.seed = rng();
    const auto r = run_acceptance(
        t, o, [&](const PlannedRound &round, int index) { return sim.run(round, index); });
    std::set<int> named;
    for (const auto &n : r.verdict.named)
      named.insert(n.link);
    const bool right = std::includes(named.begin(), named.end(), injected.begin(), injected.end());
    const bool wrong =
        std::any_of(named.begin(), named.end(), [&](int l) { return !injected.count(l); });
    rates.right += !faults.empty() && right;
    rates.wrong += wrong;
    if ((!right || wrong) && rates.misses.size() < kMissesSaid)
      rates.misses.push_back(
          fmt::format("trial {}: put {}; named {}", i + 1, names(t, injected), names(t, named)));
    rates.max_first_pass = std::max(rates.max_first_pass, r.first_pass_rounds);
    rates.max_adaptive = std::max(rates.max_adaptive, r.adaptive_rounds);
    ++rates.trials;
  }
  return rates;
}

} // namespace railgauge::rdma::fabric
