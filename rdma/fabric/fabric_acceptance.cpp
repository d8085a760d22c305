#include "rdma/fabric/fabric_acceptance.h"

#include <numeric>

namespace railgauge::rdma::fabric {
namespace {

void measure_into(AcceptanceResult &r, const MeasureRound &measure, const PlannedRound &round) {
  const int index = r.first_pass_rounds + r.adaptive_rounds;
  auto flows = measure(round, index);
  r.flows.insert(r.flows.end(), std::make_move_iterator(flows.begin()),
                 std::make_move_iterator(flows.end()));
}

int short_links(const std::vector<int> &crossed, const std::vector<int> &wanted, int k) {
  int n = 0;
  for (int l : wanted)
    n += crossed[l] < k;
  return n;
}

} // namespace

AcceptanceResult run_acceptance(const Topology &t, const AcceptanceOptions &options,
                                const MeasureRound &measure, const std::vector<int> &links) {
  AcceptanceResult r;
  std::vector<int> wanted = links;
  if (wanted.empty()) {
    wanted.resize(t.links.size());
    std::iota(wanted.begin(), wanted.end(), 0);
  }
  r.plan = plan_coverage(t, options.coverage, wanted);
  for (const auto &round : r.plan.rounds) {
    measure_into(r, measure, round);
    ++r.first_pass_rounds;
  }
  for (int i = 0; i < options.max_top_up_rounds; ++i) {
    const auto more = top_up(t, crossings(t, r.flows), wanted, options.coverage);
    if (more.empty())
      break;
    measure_into(r, measure, more.front());
    ++r.first_pass_rounds;
  }
  r.crossed = crossings(t, r.flows);
  r.links_short = short_links(r.crossed, wanted, options.coverage.k);
  r.verdict = localise(t, r.flows, options.localise);
  while (r.adaptive_rounds < options.max_adaptive_rounds) {
    const auto split =
        plan_split_round(t, r.verdict, r.flows, options.coverage.flows_per_pair, options.localise);
    if (split.pairs.empty())
      break;
    measure_into(r, measure, split);
    ++r.adaptive_rounds;
    r.verdict = localise(t, r.flows, options.localise);
  }
  return r;
}

} // namespace railgauge::rdma::fabric
