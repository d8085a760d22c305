#pragma once
// A fabric acceptance, start to end, over any way of measuring a round (the simulator in the
// tests, the verbs or TCP pair matrix for real): the first pass of coverage rounds, a top-up
// for what ECMP left short, localisation, then adaptive rounds that split the suspects until
// every named link is confident or the adaptive rounds are spent.
#include <functional>
#include <string>
#include <vector>

#include "rdma/fabric/coverage_plan.h"
#include "rdma/fabric/localise.h"

namespace railgauge::rdma::fabric {

using MeasureRound =
    std::function<std::vector<FlowObservation>(const PlannedRound &round, int round_index)>;

struct AcceptanceOptions {
  CoverageOptions coverage;
  LocaliseOptions localise;
  int max_top_up_rounds = 2;
  int max_adaptive_rounds = 8;
  std::string ledger_path;       // the coverage ledger (coverage_ledger.h); none when empty
  std::function<double()> now_s; // the ledger's clock: the system clock when unset
};

struct AcceptanceResult {
  CoveragePlan plan;
  int first_pass_rounds = 0; // the plan's rounds and any top-up
  int adaptive_rounds = 0;
  std::vector<int> crossed; // per link, after the first pass
  int links_short = 0;      // planned links crossed fewer than k times after the first pass
  Localisation verdict;
  std::vector<FlowObservation> flows;
};

AcceptanceResult run_acceptance(const Topology &t, const AcceptanceOptions &options,
                                const MeasureRound &measure, const std::vector<int> &links = {});

} // namespace railgauge::rdma::fabric
