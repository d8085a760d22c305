#pragma once
// The data check over every rank: each rank checks its own outputs, then the per-rank counts
// are all-gathered so that every rank's record carries the same total and names the ranks that
// saw wrong elements (a rank whose own outputs are right still fails the point when another
// rank's are wrong).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collectives/dtype.h"

namespace railgauge::collectives {

struct WrongAcrossRanks {
  std::uint64_t total = 0;
  std::vector<int> ranks; // those with a wrong element, ascending
};

// From per-rank counts in rank order (what an all-gather returns). Counts travel as doubles
// (the lockstep all-gather's type): exact up to 2^53 elements.
WrongAcrossRanks wrong_across_ranks(const std::vector<double> &per_rank);

// "12 elements wrong over all ranks (ranks 2, 5)"; "" when none.
std::string describe(const WrongAcrossRanks &w);

// metrics.wrong_elements (the total) and metrics.wrong_element_ranks.
void add_wrong_elements(nlohmann::json &metrics, const WrongAcrossRanks &w);
// metrics.wrong_elements alone: MPI's total is a sum over the ranks, which names none of them.
void add_wrong_total(nlohmann::json &metrics, std::uint64_t total);

// The record's data-check problem when any rank saw a wrong element: the total and the ranks,
// then this process's own first wrong element (or that its outputs are right); else nullopt.
std::optional<std::string> wrong_problem(const WrongAcrossRanks &w, const CheckResult &mine);

} // namespace railgauge::collectives
