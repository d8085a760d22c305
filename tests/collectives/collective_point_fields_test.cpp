// The collectives figures written and read through their type (records/collective_point_fields.h):
// a round trip, a field of another type reading as absent, every committed collectives record and
// every nccl-tests log the repository holds rewritten as it was recorded or imported, and every
// name the type writes held to the contract and the schema. A name changed in write() but not in
// read() fails here.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include "analysis/import/nccl_tests_import.h"
#include "harness/record.h"
#include "records/collective_point_fields.h"
#include "records/collective_record.h"
#include "tests/support/contract_metrics.h"
#include "tests/support/corpus_records.h"
#include "tests/support/fixture_text.h"

namespace railgauge::collectives::record {
namespace {

using testing::corpus_records;
using testing::source_text;

// The times of 20 calls: 2e-5 s the fastest, 3e-5 s the median.
Summary times() {
  std::vector<double> calls_s(20, 3e-5);
  calls_s[0] = 2e-5;
  calls_s[19] = 4.5e-5;
  return summarize(calls_s);
}

// Every field set: a family point with its data check, and an import's CPU time beside it.
CollectiveFields full_fields() {
  CollectiveFields c = CollectiveFields::of(Kind::all_reduce, 1 << 20, 8, times(), 4e-5);
  c.wall_time_s = 4e-5;
  c.cpu_time_s = 3.5e-5;
  c.wrong_elements = WrongCount(std::uint64_t{0});
  c.verified = true;
  return c;
}

TEST(CollectivePointFields, RoundTrips) {
  nlohmann::json metrics = nlohmann::json::object();
  full_fields().write(metrics);
  const auto parsed = nlohmann::json::parse(metrics.dump()); // as a record file holds it
  EXPECT_EQ(CollectiveFields::read(parsed), full_fields());

  CollectiveFields imported; // nccl-tests' text row: its three figures and its #wrong column
  imported.wall_time_s = 2.3863e-6;
  imported.algbw_gbytes_per_s = 52.43;
  imported.busbw_gbytes_per_s = 91.75;
  imported.wrong_elements = WrongCount(3.0);
  nlohmann::json only = nlohmann::json::object();
  imported.write(only);
  EXPECT_EQ(only.size(), 4u);
  EXPECT_EQ(only.dump(), R"({"algbw_gbytes_per_s":52.43,"busbw_gbytes_per_s":91.75,)"
                         R"("wall_time_s":2.3863e-06,"wrong_elements":3.0})")
      << "the count as nccl-tests' imports write it";
  EXPECT_EQ(CollectiveFields::read(nlohmann::json::parse(only.dump())), imported);
  EXPECT_FALSE(CollectiveFields::read(nlohmann::json::object())) << "a waived point";
}

TEST(CollectivePointFields, AFieldOfAnotherTypeReadsAsAbsent) {
  const nlohmann::json metrics = {{kBusbwGbytesPerS, "fast"},
                                  {kAlgbwGbytesPerS, 12.5},
                                  {kWallTimeS, nullptr},
                                  {kWrongElements, -3},
                                  {kVerified, "yes"}};
  const auto read = CollectiveFields::read(metrics);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->algbw_gbytes_per_s, 12.5);
  EXPECT_EQ(read->busbw_gbytes_per_s, std::nullopt) << "a string";
  EXPECT_EQ(read->wall_time_s, std::nullopt) << "null";
  EXPECT_EQ(read->wrong_elements, std::nullopt) << "a negative count";
  EXPECT_EQ(read->verified, std::nullopt) << "a string";
  EXPECT_FALSE(CollectiveFields::read({{kBusbwGbytesPerS, "fast"}, {kVerified, 1}}))
      << "nothing of the right type";
}

// of() is bus_bandwidth.h's arithmetic, not a second copy of it.
TEST(CollectivePointFields, OfIsTheBusBandwidthSums) {
  const Summary t = times();
  const auto c = CollectiveFields::of(Kind::reduce_scatter, 1 << 20, 4, t, -1);
  const auto median = bandwidth(Kind::reduce_scatter, 1 << 20, 4, t.median);
  EXPECT_EQ(*c.algbw_gbytes_per_s, median.algbw_gbytes_per_s);
  EXPECT_EQ(*c.busbw_gbytes_per_s, median.busbw_gbytes_per_s);
  EXPECT_EQ(*c.busbw_max_gbytes_per_s,
            bandwidth(Kind::reduce_scatter, 1 << 20, 4, t.min).busbw_gbytes_per_s);
  EXPECT_EQ(*c.bus_factor, bus_factor(Kind::reduce_scatter, 4));
  EXPECT_EQ(c.wall_busbw_gbytes_per_s, std::nullopt) << "back-to-back calls not run";
  EXPECT_EQ(c.wall_time_s, std::nullopt) << "the lockstep core's to state";
  EXPECT_GT(*full_fields().wall_busbw_gbytes_per_s, 0);
}

// The names the type owns, in a record's metrics.
const std::vector<const char *> kFieldNames = {
    kAlgbwGbytesPerS, kBusbwGbytesPerS, kBusbwMaxGbytesPerS, kWallBusbwGbytesPerS,
    kBusFactor,       kWallTimeS,       kCpuTimeS,           kWrongElements,
    kVerified};

// Re-written through the type, `metrics` come out byte for byte as they were: with the names the
// type owns taken out and written back, the JSON is the same text.
void expect_rewritten_as_written(const nlohmann::json &metrics, const std::string &what) {
  nlohmann::json rewritten = metrics;
  for (const char *name : kFieldNames)
    rewritten.erase(name);
  if (const auto fields = CollectiveFields::read(metrics))
    fields->write(rewritten);
  EXPECT_EQ(rewritten.dump(), metrics.dump()) << what;
}

struct Seen {
  int records = 0, with_fields = 0, libraries = 0, group_types = 0;
  int wrong_whole = 0, wrong_number = 0; // the family's count, and an import's
};

// A record's metrics, and the parts that carry the same figures: a textbook point's library
// collective and a concurrent point's group types.
void rewrite_record(const nlohmann::json &metrics, const std::string &what, Seen &seen) {
  expect_rewritten_as_written(metrics, what);
  ++seen.records;
  const auto fields = CollectiveFields::read(metrics);
  seen.with_fields += fields.has_value();
  if (fields && fields->wrong_elements)
    ++(std::holds_alternative<std::uint64_t>(*fields->wrong_elements) ? seen.wrong_whole
                                                                      : seen.wrong_number);
  if (const auto *library = record_fields::field(metrics, kLibrary); library) {
    expect_rewritten_as_written(*library, what + " library");
    ++seen.libraries;
  }
  if (const auto *types = record_fields::field(metrics, kByGroupType); types && types->is_object())
    for (const auto &[type, figures] : types->items()) {
      expect_rewritten_as_written(figures, what + " " + type);
      ++seen.group_types;
    }
}

void rewrite_all(const std::vector<Record> &records, const std::string &what, Seen &seen) {
  for (const auto &r : records)
    if (r.key.starts_with(std::string(kFamily) + "."))
      rewrite_record(r.metrics, what + " " + r.key, seen);
}

// Every records.jsonl of results/reference, by its path from the root of the source tree.
std::vector<std::string> reference_record_files() {
  const std::filesystem::path root = RAILGAUGE_SOURCE_DIR;
  std::vector<std::string> files;
  for (const auto &entry :
       std::filesystem::recursive_directory_iterator(root / "results" / "reference"))
    if (entry.path().filename() == "records.jsonl")
      files.push_back(std::filesystem::relative(entry.path(), root).string());
  return files;
}

// A run's records.jsonl; a run that wrote no record leaves it empty.
std::vector<Record> jsonl_records(const std::string &relative_path) {
  std::ifstream in(std::string(RAILGAUGE_SOURCE_DIR) + "/" + relative_path);
  EXPECT_TRUE(in) << relative_path;
  std::vector<Record> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty())
      out.push_back(Record::from_json(nlohmann::json::parse(line)));
  return out;
}

TEST(CollectivePointFields, EveryCommittedRecordRewritesAsWritten) {
  Seen reference;
  for (const auto &file : reference_record_files())
    rewrite_all(jsonl_records(file), file, reference);
  // The GPU runs' NCCL points and nccl-tests' imports, and the CPU reference's 2-rank MPI
  // collectives (results/reference/vm-cpu-2026-11-29), textbook ones with their library's figures
  EXPECT_EQ(reference.records, 4115);
  EXPECT_EQ(reference.with_fields, 3026) << "the rest waived or failed to run: no figures";
  EXPECT_EQ(reference.wrong_whole, 1086) << "the family's points that ran";
  EXPECT_EQ(reference.wrong_number, 1640) << "imports; 300 more had the data check off (N/A)";
  EXPECT_EQ(reference.libraries, 140);
  EXPECT_EQ(reference.group_types, 0);

  Seen corpus;
  for (const char *dir : {"analysis_runs", "calibrate_runs"}) {
    const std::string file = std::string("tests/fuzz/corpus/") + dir + "/import_nccl_tests.txt";
    rewrite_all(corpus_records(file), file, corpus);
  }
  EXPECT_EQ(corpus.records, 8) << "all_reduce_format_sample.txt, imported, in two corpora";
  EXPECT_EQ(corpus.wrong_number, 8);
}

// The nccl-tests logs the repository holds, text and -J JSON: the fixtures and the real logs of
// tests/fixtures/verdicts/real (healthy, slow, wrong, aborted), each with its collective where
// the log does not name it (an extract, or a capture that starts after the header).
struct NcclTestsLog {
  std::string path;
  std::optional<Kind> kind;
};
const std::vector<NcclTestsLog> kNcclTestsLogs = {
    {"tests/fixtures/nccl-tests/all_reduce_format_sample.txt", {}},
    {"tests/fixtures/nccl-tests/all_reduce_format_sample.json", {}},
    {"tests/fixtures/nccl-tests/all_reduce_no_cuda_driver.txt", {}},
    {"tests/fixtures/nccl-tests/all_reduce_no_cuda_driver.json", {}},
    {"tests/fixtures/nccl-tests/h200/all_reduce.txt", {}},
    {"tests/fixtures/nccl-tests/h200/all_reduce.json", {}},
    {"tests/fixtures/nccl-tests/h200/sendrecv.txt", {}},
    {"tests/fixtures/nccl-tests/h200/sendrecv.json", {}},
    {"tests/fixtures/verdicts/real/thomaslie_a100pcie_2node_hdr_ib_all_reduce_gdr_on.txt", {}},
    {"tests/fixtures/verdicts/real/thomaslie_a100pcie_2node_hdr_ib_all_reduce_gdr_off_slow.txt",
     {}},
    {"tests/fixtures/verdicts/real/xxrjun_cluster00_h100_2node_8gpu_alltoall_sendrecv_healthy.log",
     {}},
    {"tests/fixtures/verdicts/real/xxrjun_cluster01_h100_2node_8gpu_alltoall_sendrecv_healthy.log",
     {}},
    {"tests/fixtures/verdicts/real/xxrjun_cluster00_h100x8_1node_cnode2-001_5coll_healthy.log", {}},
    {"tests/fixtures/verdicts/real/xxrjun_cluster00_h100_2node_8gpu_alltoall_erratic_collapse.log",
     {}},
    {"tests/fixtures/verdicts/real/xxrjun_h100x8_1node_cnode3-007_5coll_healthy.log", {}},
    {"tests/fixtures/verdicts/real/xxrjun_h100x8_1node_cnode3-002_5coll.log", {}},
    {"tests/fixtures/verdicts/real/xxrjun_h100_2node_4gpu_alltoall_abort_sendrecv_degrading.log",
     {}},
    {"tests/fixtures/verdicts/real/xxrjun_cluster01_h100_10node_8gpu_5coll_healthy.log", {}},
    {"tests/fixtures/verdicts/real/issue369_gh200_2node_slingshot_all_reduce_wrong_EXTRACT.txt",
     {}},
    {"tests/fixtures/verdicts/real/issue256_h200_2node_roce_baremetal_all_reduce_EXTRACT.txt",
     Kind::all_reduce},
    {"tests/fixtures/verdicts/real/issue256_h200_2node_roce_vm_all_reduce_slow_EXTRACT.txt",
     Kind::all_reduce},
    {"tests/fixtures/verdicts/real/issue264_h100x8_all_reduce_cuda_init_abort_EXTRACT.txt",
     Kind::all_reduce},
    {"tests/fixtures/verdicts/real/gcp_a3mega_h100_2node_tcpxo_all_reduce_EXTRACT.txt",
     Kind::all_reduce},
    {"tests/fixtures/verdicts/real/keitaw_aws_p5_h100_2node_efa_all_reduce_tagged.log",
     Kind::all_reduce},
    {"tests/fixtures/verdicts/real/moc_h100_2node_1gpu_roce_all_reduce_gdr0_15GBps.log",
     Kind::all_reduce},
    {"tests/fixtures/verdicts/real/moc_h100_2node_1gpu_roce_sendrecv_gdr0_14GBps.log",
     Kind::sendrecv},
    {"tests/fixtures/verdicts/real/moc_h100_2node_4gpu_roce_sendrecv_slow.log", Kind::sendrecv}};

// The nccl-tests output committed beside the reference runs that imported it: each peer run's
// text and -J JSON (peers/nccl-tests-output/<kind>.txt, .json) and each compare round's JSON
// (rounds/<kind>-<n>/<kind>.json).
std::vector<std::string> reference_nccl_tests_logs() {
  const std::filesystem::path root = RAILGAUGE_SOURCE_DIR;
  std::vector<std::string> logs;
  for (const auto &entry :
       std::filesystem::recursive_directory_iterator(root / "results" / "reference")) {
    const auto &path = entry.path();
    const bool peer_output = path.parent_path().filename() == "nccl-tests-output" &&
                             (path.extension() == ".txt" || path.extension() == ".json");
    const bool round =
        path.parent_path().parent_path().filename() == "rounds" && path.extension() == ".json";
    if (peer_output || round)
      logs.push_back(std::filesystem::relative(path, root).string());
  }
  return logs;
}

TEST(CollectivePointFields, EveryImportedLogRewritesAsImported) {
  Seen imported;
  for (const auto &log : kNcclTestsLogs) {
    const auto import =
        importers::import_nccl_tests(source_text(log.path), log.path, log.kind, "run", "host");
    rewrite_all(import.records, log.path, imported);
  }
  EXPECT_EQ(imported.records, 948) << "one record a half row";
  EXPECT_EQ(imported.with_fields, 948);
  EXPECT_EQ(imported.wrong_whole, 0);
  EXPECT_EQ(imported.wrong_number, 770);

  Seen reference;
  const auto logs = reference_nccl_tests_logs();
  for (const auto &log : logs)
    rewrite_all(
        importers::import_nccl_tests(source_text(log), log, std::nullopt, "run", "host").records,
        log, reference);
  EXPECT_EQ(logs.size(), 77u) << "4 reference runs' 7 kinds in both forms, and 21 rounds";
  EXPECT_EQ(reference.records, 2072);
  EXPECT_EQ(reference.wrong_number, 1776);
}

// The importer writes through the type what an earlier railgauge wrote without it: the committed
// import of all_reduce_format_sample.txt has the same metrics, as text; but for the rates printed
// under 1 GB/s, now taken from the row's time, which round to what the earlier import kept.
TEST(CollectivePointFields, ImportedNcclTestsRecordsAreAsCommitted) {
  const std::string log = "tests/fixtures/nccl-tests/all_reduce_format_sample.txt";
  const auto committed = corpus_records("tests/fuzz/corpus/analysis_runs/import_nccl_tests.txt");
  const auto now = importers::import_nccl_tests(source_text(log), log, std::nullopt, "run", "host");
  ASSERT_EQ(now.records.size(), committed.size());
  for (std::size_t i = 0; i < committed.size(); ++i) {
    auto metrics = now.records[i].metrics;
    for (const char *rate : {"algbw_gbytes_per_s", "busbw_gbytes_per_s"})
      if (committed[i].metrics.at(rate).get<double>() < 1.0) {
        EXPECT_NEAR(metrics.at(rate).get<double>(), committed[i].metrics.at(rate).get<double>(),
                    0.005)
            << i << ' ' << rate;
        metrics[rate] = committed[i].metrics.at(rate);
      }
    EXPECT_EQ(metrics.dump(), committed[i].metrics.dump()) << i;
  }
}

// Every name the type writes is a collectives metric of the contract (or the core's) and a metric
// of the record schema.
TEST(CollectivePointFields, EveryNameWrittenIsInTheContractAndTheSchema) {
  nlohmann::json written = nlohmann::json::object();
  full_fields().write(written);
  EXPECT_EQ(written.size(), kFieldNames.size()) << "a field of CollectiveFields not in kFieldNames";
  testing::expect_contract_and_schema_metrics(written, kMetrics, "records/collective_record.h");
}

} // namespace
} // namespace railgauge::collectives::record
