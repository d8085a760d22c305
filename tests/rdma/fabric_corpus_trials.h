#pragma once
// The simulator on the largest real fabric of the corpus (NVIDIA/topograph's NDR example: 31
// leaves, 9 spines, 191 hosts, uneven uplinks), shared by the 10-trial default-tier test and
// the 100-trial simulation-tier one.
#include <string>

#include <gtest/gtest.h>

#include "rdma/fabric/fabric_trials.h"
#include "rdma/fabric/topology_readers.h"

namespace railgauge::rdma::fabric {

inline const Topology &largest_corpus_fabric() {
  static const Topology t = load_topology(std::string(RAILGAUGE_TEST_FIXTURES) +
                                          "/rdma/topology/corpus/"
                                          "topograph_ndr_dgxh100_40sw_example.out");
  return t;
}

// The faulty link named in at least `min_right` of the trials (the bar is 95 of 100; 10
// trials measure a rate of 98% too coarsely to hold them to 10 of 10).
inline void expect_named(FaultKind kind, int trials, int min_right, std::uint64_t seed) {
  const auto r = run_fault_trials(largest_corpus_fabric(), {kind}, trials, seed);
  std::printf("%s on the NDR fabric: named in %d of %d trials, a wrong link in %d\n",
              fault_kind_name(kind).c_str(), r.right, r.trials, r.wrong);
  for (const auto &m : r.misses)
    std::printf("  %s\n", m.c_str());
  EXPECT_GE(r.right, min_right) << fault_kind_name(kind);
  EXPECT_EQ(r.wrong, 0) << fault_kind_name(kind);
}

inline void expect_no_name_without_a_fault(int trials, std::uint64_t seed) {
  const auto r = run_fault_trials(largest_corpus_fabric(), {}, trials, seed);
  for (const auto &m : r.misses)
    std::printf("  %s\n", m.c_str());
  EXPECT_EQ(r.wrong, 0);
}

} // namespace railgauge::rdma::fabric
