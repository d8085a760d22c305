#include "rdma/fabric/fabric_acceptance.h"

#include <algorithm>
#include <chrono>
#include <numeric>

#include "rdma/fabric/coverage_ledger.h"

namespace railgauge::rdma::fabric {
namespace {

double system_now_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Each round's links go into the ledger as soon as the round is measured, so that a run cut
// short still records what it covered. A flow is bad under 0.93 x the round's median.
void record(const Topology &t, const AcceptanceOptions &options,
            const std::vector<FlowObservation> &flows, const std::string &phase) {
  if (options.ledger_path.empty() || flows.empty())
    return;
  std::vector<double> bw;
  for (const auto &f : flows)
    bw.push_back(f.bandwidth_gbps);
  std::nth_element(bw.begin(), bw.begin() + bw.size() / 2, bw.end());
  const double now = options.now_s ? options.now_s() : system_now_s();
  append_ledger(
      options.ledger_path,
      ledger_lines(t, flows, now, phase, options.localise.bandwidth_fraction * bw[bw.size() / 2]));
}

void measure_into(AcceptanceResult &r, const Topology &t, const AcceptanceOptions &options,
                  const MeasureRound &measure, const PlannedRound &round,
                  const std::string &phase) {
  const int index = r.first_pass_rounds + r.adaptive_rounds;
  auto flows = measure(round, index);
  record(t, options, flows, phase);
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
    measure_into(r, t, options, measure, round, "coverage");
    ++r.first_pass_rounds;
  }
  for (int i = 0; i < options.max_top_up_rounds; ++i) {
    const auto more = top_up(t, crossings(t, r.flows), wanted, options.coverage);
    if (more.empty())
      break;
    measure_into(r, t, options, measure, more.front(), "top-up");
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
    measure_into(r, t, options, measure, split, "split");
    ++r.adaptive_rounds;
    r.verdict = localise(t, r.flows, options.localise);
  }
  return r;
}

} // namespace railgauge::rdma::fabric
