// The pair matrix written and read through its type (records/pair_matrix_fields.h): a round
// trip, the committed matrices rewritten as they were recorded, every name the type writes held
// to the contract and the schema. A name changed in write() but not in read() fails here.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "harness/record.h"
#include "records/pair_matrix_fields.h"
#include "records/rdma_record.h"
#include "tests/support/contract_metrics.h"
#include "tests/support/reference_records.h"

namespace railgauge::rdma::record {
namespace {

// Every field set: a coverage matrix of two nodes, a pair that failed, a bad pair, a finding.
PairMatrixFields full_matrix() {
  PairMatrixFields m;
  m.endpoints = {
      {0, 0, 0, 0, "node0/mlx5_0"}, {1, 1, 1, 0, "node1/mlx5_0"}, {2, 2, 2, 1, "node2/mlx5_1"}};
  m.pairing = "coverage";
  m.rounds = 3;
  m.coverage_plan = "2 rounds cross every cable twice";
  m.coverage_missing = std::vector<std::string>{"node9/mlx5_0"};
  m.pairs = {{{0, 1}, 4.2e-6, 391.5, std::nullopt},
             {{0, 2}, 9.9e-6, 180.25, std::nullopt},
             {{1, 2}, 0.0, 0.0, std::string("bandwidth: the peer closed the connection")}};
  m.retests = {{{0, 2}, 9.8e-6, 181.0, std::nullopt}};
  m.fleet_min_latency_s = 4.2e-6;
  m.fleet_max_bandwidth_gbits_per_s = 391.5;
  m.bad_pairs = {{{0, 2}, {"node0/mlx5_0", "node2/mlx5_0"}, "bandwidth 180 < 0.93 x 391"}};
  m.findings = {{"nic", {2}, {"node2/mlx5_0"}, "node 2 rail 0: 1 of 1 retests bad"},
                {"fleet", {}, {}, "most pairs are bad"}};
  return m;
}

TEST(PairMatrixFields, RoundTrips) {
  nlohmann::json metrics = nlohmann::json::object();
  full_matrix().write(metrics);
  const auto parsed = nlohmann::json::parse(metrics.dump()); // as a record file holds it
  EXPECT_EQ(PairMatrixFields::read(parsed), full_matrix());
  EXPECT_FALSE(PairMatrixFields::read(nlohmann::json::object())) << "another rank's record";
  EXPECT_FALSE(PairMatrixFields::read({{kEndpoints, nlohmann::json::array()}, {kPairs, 3}}));
}

TEST(PairMatrixFields, EntriesOfAnotherShapeAreLeftOutAndEndpointsKeepTheirIndex) {
  nlohmann::json metrics = nlohmann::json::object();
  full_matrix().write(metrics);
  metrics[kEndpoints][1] = "node1"; // not an object: it still holds index 1
  metrics[kPairs].push_back({{kMatrixEndpoints, {0, "x"}}});
  metrics[kPairs].push_back(7);
  metrics[kBadPairs].push_back({{kMatrixEndpoints, {1}}});
  metrics[kFindings].push_back({{kMatrixFindingKind, 3}}); // no text: left out
  metrics[kFleetMinLatencyS] = "fast";
  const auto m = PairMatrixFields::read(metrics);
  ASSERT_TRUE(m);
  ASSERT_EQ(m->endpoints.size(), 3u);
  EXPECT_EQ(m->endpoints[1].label, std::nullopt);
  EXPECT_EQ(m->endpoints[2].label, "node2/mlx5_1");
  EXPECT_EQ(m->pairs, full_matrix().pairs);
  EXPECT_EQ(m->bad_pairs, full_matrix().bad_pairs);
  EXPECT_EQ(m->findings, full_matrix().findings);
  metrics[kFindings].push_back({{kMatrixFindingText, "no endpoints"}});
  metrics[kPairs][0][kMatrixError] = nullptr;
  const auto lenient = PairMatrixFields::read(metrics);
  ASSERT_TRUE(lenient);
  EXPECT_EQ(lenient->findings.back().text, "no endpoints");
  EXPECT_TRUE(lenient->findings.back().endpoints.empty());
  EXPECT_EQ(lenient->pairs[0].error, "null") << "any error field: the pair was not measured";
  EXPECT_EQ(m->fleet_min_latency_s, 0.0);
}

// The names the type owns in a record's metrics.
const std::vector<const char *> kMatrixNames = {
    kEndpoints,       kPairing, kRounds,           kCoveragePlan,
    kCoverageMissing, kPairs,   kFleetMinLatencyS, kFleetMaxBandwidthGbitsPerS,
    kBadPairs,        kRetests, kFindings};

// Re-written through the type, the matrix comes out as it was recorded: with the names the
// type owns taken out and written back, the record's JSON is the same text.
void expect_matrix_rewritten_as_recorded(const Record &r, const std::string &what) {
  const auto m = PairMatrixFields::read(r.metrics);
  ASSERT_TRUE(m) << what;
  nlohmann::json rewritten = r.metrics;
  for (const char *name : kMatrixNames)
    rewritten.erase(name);
  m->write(rewritten);
  EXPECT_EQ(rewritten.dump(), r.metrics.dump()) << what;
}

// The Soft-RoCE reference run's matrix of 4 ranks x 2 rxe NICs (results/reference/
// softroce-2026-11-29/runs_matrix), as rank 0 recorded it.
TEST(PairMatrixFields, TheCommittedMatricesRewriteAsRecorded) {
  int matrices = 0, pairs = 0, bad = 0;
  for (const auto &[file, r] : testing::reference_records()) {
    const auto m = PairMatrixFields::read(r.metrics);
    if (r.status != Status::ok || (r.key != kPairMatrix && r.key != kTcpPairMatrix) || !m)
      continue;
    expect_matrix_rewritten_as_recorded(r, file);
    ++matrices;
    pairs += static_cast<int>(m->pairs.size());
    bad += static_cast<int>(m->bad_pairs.size());
  }
  EXPECT_EQ(matrices, 1) << "a committed matrix left out, or a new one to count";
  EXPECT_EQ(pairs, 12) << "8 NICs on 4 nodes, rail-aligned: 2 rails x 4 choose 2";
  EXPECT_EQ(bad, 9);
}

// Every name the type writes is a rdma metric of the contract and of the record schema.
TEST(PairMatrixFields, EveryNameWrittenIsInTheContractAndTheSchema) {
  nlohmann::json written = nlohmann::json::object();
  full_matrix().write(written);
  EXPECT_EQ(written.size(), kMatrixNames.size()) << "a field of the type not in kMatrixNames";
  testing::expect_contract_and_schema_metrics(written, kMetrics, "records/rdma_record.h");
}

} // namespace
} // namespace railgauge::rdma::record
