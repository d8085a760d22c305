// The fabric-under-load rounds' ends and incast figures written and read through their types
// (records/fabric_load_fields.h): a round trip, and the committed rounds of the Soft-RoCE
// reference run rewritten as they were recorded. A name changed in write() but not in read()
// fails here.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "harness/record.h"
#include "records/fabric_load_fields.h"
#include "records/rdma_record.h"
#include "tests/support/contract_metrics.h"
#include "tests/support/reference_records.h"

namespace railgauge::rdma::record {
namespace {

const nlohmann::json kDevice = {{"nic", "mlx5_0"}, {"port", 1}};
const nlohmann::json kCongestion = {{"cnp_sent", 12}, {"pfc_pause_frames", 0}};

IncastFigures full_incast() {
  IncastFigures i;
  i.aggregate_gbits_per_s = 370.5;
  i.jain_fairness_index = 0.97;
  i.flows = std::vector<IncastFlowFields>{{1, 190.25, kDevice}, {2, 180.25, kDevice}};
  i.line_rate_gbits_per_s = 400;
  i.aggregate_over_line_rate = 370.5 / 400;
  return i;
}

const std::vector<FabricEndFields> kEndsSet = {{0, kRoleReceiver, kDevice, kCongestion},
                                               {1, kRoleSender, kDevice, nullptr}};

TEST(FabricLoadFields, RoundTrip) {
  nlohmann::json metrics = nlohmann::json::object();
  full_incast().write(metrics);
  write_ends(metrics, kEndsSet);
  const auto parsed = nlohmann::json::parse(metrics.dump());
  EXPECT_EQ(IncastFigures::read(parsed), full_incast());
  EXPECT_EQ(read_ends(parsed), kEndsSet);
  EXPECT_FALSE(IncastFigures::read(nlohmann::json::object())) << "not an incast receiver";
  EXPECT_FALSE(read_ends(nlohmann::json::object()));

  metrics[kFlows].push_back({{kEndRank, 3}}); // no rate: left out
  metrics[kEnds].push_back("rank 4");
  const auto read_back = IncastFigures::read(metrics);
  ASSERT_TRUE(read_back);
  EXPECT_EQ(read_back->flows, full_incast().flows);
  EXPECT_EQ(read_ends(metrics), kEndsSet);

  // A receiver's flows read without its aggregate, and its aggregate without a list of flows.
  metrics.erase(kAggregateGbitsPerS);
  metrics.erase(kJainFairnessIndex);
  const auto flows_only = IncastFigures::read(metrics);
  ASSERT_TRUE(flows_only);
  EXPECT_EQ(flows_only->flows, full_incast().flows);
  EXPECT_EQ(flows_only->jain_fairness_index, std::nullopt) << "absent, never 0";
  const auto aggregate_only = IncastFigures::read({{kAggregateGbitsPerS, 3.0}, {kFlows, 7}});
  ASSERT_TRUE(aggregate_only);
  EXPECT_EQ(aggregate_only->flows, std::nullopt);
}

// Every name the types write is a rdma metric of the contract and of the record schema.
TEST(FabricLoadFields, EveryNameWrittenIsInTheContractAndTheSchema) {
  nlohmann::json written = nlohmann::json::object();
  full_incast().write(written);
  write_ends(written, kEndsSet);
  testing::expect_contract_and_schema_metrics(written, kMetrics, "records/rdma_record.h");
}

// The Soft-RoCE reference run's fabric under load (results/reference/softroce-2026-11-29): each
// incast receiver's figures and every round's ends, rewritten through the types, are the same
// JSON text as recorded.
TEST(FabricLoadFields, TheCommittedRoundsRewriteAsRecorded) {
  const std::vector<const char *> incast_names = {kAggregateGbitsPerS, kJainFairnessIndex, kFlows,
                                                  kLineRateGbitsPerS, kAggregateOverLineRate};
  int incasts = 0, with_ends = 0, flows = 0;
  for (const auto &[file, r] : testing::reference_records()) {
    if (r.status != Status::ok)
      continue;
    nlohmann::json rewritten = r.metrics;
    const auto incast = IncastFigures::read(r.metrics);
    const auto ends = read_ends(r.metrics);
    if (incast) {
      for (const char *name : incast_names)
        rewritten.erase(name);
      incast->write(rewritten);
      ++incasts;
      flows += incast->flows ? static_cast<int>(incast->flows->size()) : 0;
    }
    if (ends) {
      rewritten.erase(kEnds);
      write_ends(rewritten, *ends);
      ++with_ends;
    }
    if (incast || ends) {
      EXPECT_EQ(rewritten.dump(), r.metrics.dump()) << file << " " << r.key;
    }
  }
  // Counted, so that a round the types no longer read is seen.
  EXPECT_EQ(incasts, 6) << "4 incast receivers, and qp_scaling's 2 receivers of one stream";
  EXPECT_EQ(flows, 14) << "3 senders into each incast receiver, 1 into each qp_scaling one";
  EXPECT_EQ(with_ends, 10) << "and latency_under_load's 4 probes";
}

} // namespace
} // namespace railgauge::rdma::record
