// The gemm.cublaslt* record fields written and read through their types
// (records/gemm_cublaslt_fields.h): a round trip, every point of the committed H200 sweeps
// rewritten as it was recorded, and every name the types write held to the contract and the
// schema. A name changed in write() but not in read() fails here.
#include <fstream>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "records/gemm_cublaslt_fields.h"
#include "records/gemm_record.h"

namespace railgauge::gemm::record {
namespace {

const std::string kSource = RAILGAUGE_SOURCE_DIR;

Summary times(double min, double median) {
  Summary s;
  s.n = 40;
  s.min = min;
  s.max = 1.2 * median;
  s.mean = s.median = median;
  s.p10 = s.p90 = s.p99 = median;
  s.stdev = 1e-6;
  return s;
}

// Every field set, as a verified point whose search found a faster pick writes them.
CublasLtFields full_fields() {
  CublasLtFields c;
  c.rates = GemmRates::of(1.8e12, 1.1e9, times(2.4e-3, 2.7e-3), 989.0);
  c.best = BestPick::of(1.8e12, times(2.5e-3, 2.6e-3), c.rates, false);
  c.heuristic_algos = nlohmann::json::array({{{kAlgoId, 66}, {kAlgoTileId, 209}}});
  c.best_algos = nlohmann::json::array({{{kAlgoId, 66}, {kAlgoTileId, 197}}});
  c.launched_kernels = {{kLaunchedHeuristic, {"a"}}, {kLaunchedBest, {"b"}}};
  c.candidates = nlohmann::json::array({{{kAlgoId, 66}}});
  c.refused_algos = nlohmann::json::array();
  c.lt_types = {{kLtTypeA, "CUDA_R_16BF"}};
  c.gemms = nlohmann::json::array({{{kM, 2048}}});
  c.verified = true;
  c.check = DataCheckFields{8192, 0, 0.28, {{kErrorBoundOfResult, 0.008}}};
  return c;
}

std::optional<CublasLtFields> round_trip(const CublasLtFields &fields) {
  nlohmann::json j = nlohmann::json::object();
  fields.write(j);
  return CublasLtFields::read(nlohmann::json::parse(j.dump())); // as a record file holds it
}

TEST(CublasLtRecordFields, RoundTrips) {
  const CublasLtFields full = full_fields();
  EXPECT_EQ(round_trip(full), full);
  EXPECT_DOUBLE_EQ(full.rates.tflops, 1.8e12 / 2.7e-3 / 1e12);
  EXPECT_DOUBLE_EQ(*full.best->vs_heuristic, full.best->tflops / full.rates.tflops);

  CublasLtFields nan_output = full; // a NaN output: its worst error is null, its count stands
  nan_output.check->worst_error_over_bound.reset();
  nan_output.check->wrong_elements = 3;
  nan_output.verified = false;
  EXPECT_EQ(round_trip(nan_output), nan_output);

  CublasLtFields no_peak; // a GPU without a peak in the table, top_k 1, verification off
  no_peak.rates = GemmRates::of(2e9, 3e6, times(1e-5, 2e-5), 0);
  no_peak.verified = false;
  EXPECT_FALSE(no_peak.rates.efficiency);
  EXPECT_EQ(round_trip(no_peak), no_peak);
  EXPECT_EQ(GemmRates::of(1, 1, Summary{}, 0).tflops, 0.0) << "nothing timed: no rate";
  EXPECT_FALSE(CublasLtFields::read(nlohmann::json::object())) << "a waived point's metrics";
}

// The names each type owns: what a committed record holds of them must come back.
const std::vector<const char *> kNames = {
    kFlopsPerCall,    kBytesPerCall,     kFlopsPerByte,   kTflops,
    kTflopsMax,       kPeakTflopsMetric, kEfficiency,     kBestTimeS,
    kBestTflops,      kBestTflopsMax,    kBestEfficiency, kBestVsHeuristic,
    kBestIsHeuristic, kHeuristicAlgos,   kBestAlgos,      kLaunchedKernels,
    kCandidates,      kRefusedAlgos,     kLtTypes,        kGemms,
    kVerified,        kVerifiedElements, kWrongElements,  kWorstErrorOverBound,
    kErrorBound};

// Re-written through its type, every ok point of `path` comes out as the run wrote it: each field
// the type writes holds the run's value, and none of its fields the run wrote is dropped.
int expect_every_point_rewritten(const std::string &path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  int points = 0;
  for (std::string line; std::getline(in, line);) {
    const auto r = nlohmann::json::parse(line);
    if (r.at("status") != "ok")
      continue;
    const auto &metrics = r.at("metrics");
    const std::string what =
        r.at("params").value(kOp, "") + " tp " + std::to_string(r.at("params").value(kTp, 0));
    const auto fields = CublasLtFields::read(metrics);
    if (!fields) {
      ADD_FAILURE() << what << " does not read";
      continue;
    }
    nlohmann::json rewritten = nlohmann::json::object();
    fields->write(rewritten);
    for (const auto &[name, value] : rewritten.items())
      EXPECT_EQ(value, metrics.value(name, nlohmann::json("absent"))) << what << ": " << name;
    for (const char *name : kNames)
      EXPECT_TRUE(!metrics.contains(name) || rewritten.contains(name))
          << what << ": " << name << " dropped";
    EXPECT_EQ(CublasLtFields::read(rewritten), fields) << what;
    ++points;
  }
  return points;
}

TEST(CublasLtRecordFields, EveryCommittedH200PointRewritesAsWritten) {
  EXPECT_EQ(expect_every_point_rewritten(kSource + "/results/reference/h200-gemm-tp-2026-11-28/"
                                                   "gemm-tp/runs/2026-11-28T21-19-52Z-vm-646/"
                                                   "records.jsonl"),
            32)
      << "the sweep's 32 ok points at t = 1 and 8";
  EXPECT_EQ(expect_every_point_rewritten(kSource + "/tests/fixtures/gemm-h200/records.jsonl"), 96)
      << "the trimmed fixture's 96 ok points";
}

// Every name the types write is a gemm metric of the contract (or the core's, which
// records/gemm_record.h names too) and a metric of the record schema.
TEST(CublasLtRecordFields, EveryNameWrittenIsInTheContractAndTheSchema) {
  std::set<std::string> contract(std::begin(metric::kCoreMetrics), std::end(metric::kCoreMetrics));
  for (const auto &field : kMetrics)
    contract.insert(field.name);
  std::ifstream in(kSource + "/results/schema/record.schema.json");
  const auto schema = nlohmann::json::parse(in).at("properties").at("metrics").at("properties");
  nlohmann::json written = nlohmann::json::object();
  full_fields().write(written);
  EXPECT_EQ(written.size(), kNames.size()) << "a field of the types missing from kNames";
  for (const auto &[name, _] : written.items()) {
    EXPECT_TRUE(contract.contains(name)) << name << " is not a metric of records/gemm_record.h";
    EXPECT_TRUE(schema.contains(name)) << name << " is not in results/schema/record.schema.json";
  }
}

} // namespace
} // namespace railgauge::gemm::record
