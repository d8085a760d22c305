// The rdma figures written and read through their types (records/rdma_point_fields.h): a round
// trip, every committed rdma record and every perftest log the repository holds rewritten as it
// was recorded or imported, and every name the types write held to the contract and the schema.
// A name changed in write() but not in read() fails here.
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "analysis/import/perftest_import.h"
#include "harness/measure.h"
#include "harness/record.h"
#include "records/rdma_point_fields.h"
#include "records/rdma_record.h"
#include "tests/support/contract_metrics.h"
#include "tests/support/corpus_records.h"
#include "tests/support/fixture_text.h"

namespace railgauge::rdma::record {
namespace {

using testing::corpus_records;
using testing::source_text;

Summary times(double min_s, double median_s) {
  Summary s;
  s.n = 12;
  s.min = min_s;
  s.median = s.mean = s.p10 = s.p90 = s.p99 = median_s;
  s.max = 1.5 * median_s;
  return s;
}

LatencyFields full_latency() {
  LatencyFields l;
  l.n = 781;
  l.min_s = 5.9e-6;
  l.p50_s = 7.5e-6;
  l.p90_s = 8e-6;
  l.p99_s = 4.2e-4;
  l.p99_9_s = 3.9e-3;
  l.max_s = 5.9e-3;
  l.mean_s = 3.1e-5;
  l.stdev_s = 2.8e-4;
  return l;
}

// Every field set, as a bidirectional verbs point with perftest's peak beside it.
BandwidthFields full_bandwidth() {
  BandwidthFields b = BandwidthFields::of(4096 * 65536, 4096, times(0.010, 0.019));
  b.gbits_peak_per_s = 30.1;
  b.add_peer(26.4);
  return b;
}

TEST(RdmaPointFields, RoundTrips) {
  nlohmann::json metrics = nlohmann::json::object();
  full_latency().write(metrics, kLatency);
  full_latency().write(metrics, kLatencyIdle);
  full_bandwidth().write(metrics);
  const auto parsed = nlohmann::json::parse(metrics.dump()); // as a record file holds it
  EXPECT_EQ(LatencyFields::read(parsed, kLatency), full_latency());
  EXPECT_EQ(LatencyFields::read(parsed, kLatencyIdle), full_latency());
  EXPECT_EQ(BandwidthFields::read(parsed), full_bandwidth());

  LatencyFields perftest; // perftest's table: no n, no p90
  perftest.p50_s = 4.3e-5;
  perftest.max_s = 3.8e-2;
  nlohmann::json only = nlohmann::json::object();
  perftest.write(only, kLatency);
  EXPECT_EQ(only.at(kLatency).size(), 2u);
  EXPECT_EQ(LatencyFields::read(only, kLatency), perftest);
  EXPECT_FALSE(LatencyFields::read(nlohmann::json::object(), kLatency)) << "a bandwidth point";
  EXPECT_FALSE(BandwidthFields::read(only)) << "a latency point holds no bandwidth figure";
  EXPECT_FALSE(LatencyFields::read({{kLatency, 3.0}}, kLatency)) << "not an object";
  EXPECT_EQ(LatencyFields::read({{kLatency, {{kLatencyN, -4}}}}, kLatency)->n, std::nullopt)
      << "a negative count reads as absent";
}

TEST(RdmaPointFields, RatesAreTheCoresSums) {
  const Summary t = times(0.010, 0.019);
  const BandwidthFields b = BandwidthFields::of(268435456, 4096, t);
  EXPECT_DOUBLE_EQ(*b.gbits_per_s, 8.0 * 268435456 / 0.019 / 1e9);
  EXPECT_DOUBLE_EQ(*b.gbits_max_per_s, 8.0 * 268435456 / 0.010 / 1e9);
  EXPECT_DOUBLE_EQ(*b.message_rate_per_s, 4096 / 0.019);
  // The core's GB/s of the same call (harness/measure.cpp) are the very same numbers.
  Measurement m;
  m.time_s = t;
  const nlohmann::json core = m.bandwidth_metrics(268435456);
  EXPECT_EQ(core.at(metric::kBytesPerCall), *b.bytes_per_call);
  EXPECT_EQ(core.at(metric::kBandwidthGbytesPerS).get<double>(), *b.gbytes_per_s);
  EXPECT_EQ(core.at(metric::kBandwidthMaxGbytesPerS).get<double>(), *b.gbytes_max_per_s);
  EXPECT_EQ(*b.gbits_per_s, 8.0 * *b.gbytes_per_s);

  BandwidthFields bidir = b;
  bidir.add_peer(12.5);
  EXPECT_EQ(*bidir.bidirectional_gbits_per_s, *b.gbits_per_s + 12.5);
}

// The names the types own, in a record's metrics and in its latency summaries.
const std::vector<const char *> kMetricNames = {
    metric::kBytesPerCall,           kMessagesPerCall,    metric::kBandwidthGbytesPerS,
    metric::kBandwidthMaxGbytesPerS, kBandwidthGbitsPerS, kBandwidthMaxGbitsPerS,
    kBandwidthPeakGbitsPerS,         kMessageRatePerS,    kPeerBandwidthGbitsPerS,
    kBidirectionalGbitsPerS};
const std::vector<const char *> kSummaryNames = {kLatency, kLatencyIdle};
const std::vector<const char *> kSpreadNames = {kPerQpGbitsPerS, kPerFlowGbitsPerS, kLoadGbitsPerS};

// Re-written through the types, `r`'s metrics come out byte for byte as they were: with the
// names the types own taken out and written back, the record's JSON is the same text.
void expect_rewritten_as_written(const Record &r, const std::string &what) {
  nlohmann::json rewritten = r.metrics;
  const auto bandwidth = BandwidthFields::read(r.metrics);
  for (const char *name : kMetricNames)
    rewritten.erase(name);
  if (bandwidth)
    bandwidth->write(rewritten);
  for (const char *name : kSummaryNames)
    if (const auto latency = LatencyFields::read(r.metrics, name)) {
      rewritten.erase(name);
      latency->write(rewritten, name);
    }
  for (const char *name : kSpreadNames)
    if (const auto spread = FlowSpreadFields::read(r.metrics, name)) {
      rewritten.erase(name);
      spread->write(rewritten, name);
    }
  EXPECT_EQ(rewritten.dump(), r.metrics.dump()) << what;
}

struct Seen {
  int records = 0, latency = 0, bandwidth = 0, spreads = 0;
};

void rewrite_all(const std::vector<Record> &records, const std::string &what, Seen &seen) {
  for (const auto &r : records) {
    if (r.status != Status::ok || !r.key.starts_with(std::string(kFamily) + "."))
      continue;
    expect_rewritten_as_written(r, what + " " + r.key);
    ++seen.records;
    seen.latency += LatencyFields::read(r.metrics, kLatency).has_value();
    seen.bandwidth += BandwidthFields::read(r.metrics).has_value();
    for (const char *name : kSpreadNames)
      seen.spreads += FlowSpreadFields::read(r.metrics, name).has_value();
  }
}

// The perftest logs the repository holds: the Soft-RoCE fixtures and the H100 RoCE corpus.
const std::vector<std::string> kPerftestLogs = {
    "tests/fixtures/rdma/perftest/ib_read_bw_rxe_client.txt",
    "tests/fixtures/rdma/perftest/ib_read_lat_rxe_client.txt",
    "tests/fixtures/rdma/perftest/ib_send_bw_rxe_client.txt",
    "tests/fixtures/rdma/perftest/ib_send_bw_rxe_server.txt",
    "tests/fixtures/rdma/perftest/ib_send_lat_rxe_client.txt",
    "tests/fixtures/rdma/perftest/ib_write_bw_rxe_client.txt",
    "tests/fixtures/rdma/perftest/ib_write_bw_rxe_server.txt",
    "tests/fixtures/rdma/perftest/ib_write_lat_rxe_client.txt",
    "tests/fixtures/rdma/perftest/ib_write_lat_rxe_server_inf.txt",
    "tests/fixtures/verdicts/real/moc_bm_h100_roce_cx7_ib_write_bw_gpumem_2qp_gpu0-gpu0_client.log",
    "tests/fixtures/verdicts/real/"
    "moc_bm_h100_roce_cx7_ib_write_bw_gpumem_2qp_gpu2-gpu0_client_slow.log",
    "tests/fixtures/verdicts/real/moc_bm_roce_cx7_ib_write_bw_hostmem_16qp_client.log",
    "tests/fixtures/verdicts/real/moc_oc_h100_roce_ib_read_bw_8qp_mlx5_2_gpu0_client_healthy.log",
    "tests/fixtures/verdicts/real/moc_oc_h100_roce_ib_read_bw_8qp_mlx5_2_gpu2_client_slow.log",
    "tests/fixtures/verdicts/real/moc_oc_h100_roce_ib_read_lat_gpumem_client_healthy.log",
    "tests/fixtures/verdicts/real/moc_oc_roce_ib_read_lat_hostmem_client_latency_tail.log"};

TEST(RdmaPointFields, EveryCommittedRecordRewritesAsWritten) {
  Seen run;
  rewrite_all(corpus_records("tests/fuzz/corpus/analysis_runs/rdma_tcp_loopback.txt"),
              "rdma_tcp_loopback", run);
  rewrite_all(corpus_records("tests/fuzz/corpus/analysis_runs/import_perftest.txt"),
              "import_perftest", run);
  EXPECT_EQ(run.records, 3) << "the TCP run's tcp_lat and tcp_bw, and one imported write_lat";
  EXPECT_EQ(run.latency, 2);
  EXPECT_EQ(run.bandwidth, 1);

  Seen imported;
  for (const auto &log : kPerftestLogs)
    rewrite_all(importers::import_perftest(source_text(log), log), log, imported);
  EXPECT_EQ(imported.records, 169) << "the H100 logs sweep message sizes: one record a row";
  EXPECT_EQ(imported.latency, 49);
  EXPECT_EQ(imported.bandwidth, 120);
}

// The Soft-RoCE reference run (results/reference/softroce-2026-11-29): the verbs points, the
// pair matrix and the fabric under load of railgauge on rxe, with perftest's logs imported beside
// them, each rank's records.
TEST(RdmaPointFields, TheSoftRoceReferenceRecordsRewriteAsWritten) {
  Seen seen;
  for (const auto &entry : std::filesystem::recursive_directory_iterator(
           std::string(RAILGAUGE_SOURCE_DIR) + "/results/reference/softroce-2026-11-29")) {
    const auto name = entry.path().filename().string();
    if (name != "records.jsonl" && !(name.starts_with("perftest_") && name.ends_with(".jsonl")))
      continue;
    std::vector<Record> records;
    std::ifstream in(entry.path()); // a latency server's import is empty: perftest prints
                                    // its results on the client
    for (std::string line; std::getline(in, line);)
      if (!line.empty())
        records.push_back(Record::from_json(nlohmann::json::parse(line)));
    rewrite_all(records, entry.path().string(), seen);
  }
  // Every ok rdma record of the run's files, counted so that a file left out is seen.
  EXPECT_EQ(seen.records, 92);
  EXPECT_EQ(seen.latency, 24) << "ping-pongs and the probes under load";
  EXPECT_EQ(seen.bandwidth, 46);
  EXPECT_EQ(seen.spreads, 17) << "per-QP, per-flow and the loaders' spreads";
}

// The importer writes through the types what an earlier railgauge wrote without them: the
// committed import of ib_write_lat_rxe_client.txt has the same metrics, as text. (Its params
// predate params.memory, which the importer has added since.)
TEST(RdmaPointFields, ImportedPerftestRecordIsAsCommitted) {
  const std::string log = "tests/fixtures/rdma/perftest/ib_write_lat_rxe_client.txt";
  const auto committed = corpus_records("tests/fuzz/corpus/analysis_runs/import_perftest.txt");
  const auto now = importers::import_perftest(source_text(log), log);
  ASSERT_EQ(committed.size(), 1u);
  ASSERT_EQ(now.size(), 1u);
  EXPECT_EQ(now[0].metrics.dump(), committed[0].metrics.dump());
}

// Every name the types write is a rdma metric of the contract (or the core's) and a metric of
// the record schema; every figure of a latency summary is a property of the schema's summary.
TEST(RdmaPointFields, EveryNameWrittenIsInTheContractAndTheSchema) {
  nlohmann::json written = nlohmann::json::object();
  full_bandwidth().write(written);
  EXPECT_EQ(written.size(), kMetricNames.size())
      << "a field of BandwidthFields not in kMetricNames";
  for (const char *name : kSummaryNames)
    full_latency().write(written, name);
  testing::expect_contract_and_schema_metrics(written, kMetrics, "records/rdma_record.h");
  const auto schema = testing::schema_metric_properties();
  const std::set<std::string> summary_names = {kLatencyN, kMinS, kP50S,  kP90S,  kP99S,
                                               kP99_9S,   kMaxS, kMeanS, kStdevS};
  for (const char *name : kSummaryNames) {
    std::set<std::string> figures;
    for (const auto &[figure, _] : written.at(name).items())
      figures.insert(figure);
    EXPECT_EQ(figures, summary_names) << name;
    for (const auto &figure : figures)
      EXPECT_TRUE(schema.at(name).at("properties").contains(figure))
          << name << "." << figure << " is not in results/schema/record.schema.json";
  }
}

} // namespace
} // namespace railgauge::rdma::record
