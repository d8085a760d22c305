// The families' record contracts (<family>/<family>_record.h) against everything else that names
// a record's fields: the record schema, the shipped rules and the registry. A metric renamed in a
// contract, or a rule or schema entry that names a metric no contract has, fails here.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/check/rules.h"
#include "cli/make_registry.h"
#include "harness/metric_names.h"
#include "railgauge/config.h"
#include "records/block_record.h"
#include "records/collective_record.h"
#include "records/gemm_record.h"
#include "records/memory_record.h"
#include "records/offload_record.h"
#include "records/peer_record.h"
#include "records/rdma_record.h"

namespace railgauge {
namespace {

const std::string kSource = RAILGAUGE_SOURCE_DIR;

// Every metric a contract or the measurement core names.
std::set<std::string> contract_metrics() {
  std::set<std::string> names(std::begin(metric::kCoreMetrics), std::end(metric::kCoreMetrics));
  for (const auto &list :
       {std::vector<const char *>(gemm::record::kMetrics.begin(), gemm::record::kMetrics.end()),
        std::vector<const char *>(memory::record::kMetrics.begin(), memory::record::kMetrics.end()),
        std::vector<const char *>(offload::record::kMetrics.begin(),
                                  offload::record::kMetrics.end()),
        std::vector<const char *>(rdma::record::kMetrics.begin(), rdma::record::kMetrics.end()),
        std::vector<const char *>(collectives::record::kMetrics.begin(),
                                  collectives::record::kMetrics.end()),
        std::vector<const char *>(block::record::kMetrics.begin(), block::record::kMetrics.end()),
        std::vector<const char *>(peer::record::kMetrics.begin(), peer::record::kMetrics.end())})
    names.insert(list.begin(), list.end());
  return names;
}

nlohmann::json schema_metrics() {
  std::ifstream in(kSource + "/results/schema/record.schema.json");
  return nlohmann::json::parse(in)["properties"]["metrics"]["properties"];
}

// What the measurement core writes beside the figures (Measurement::to_json): the schema
// describes them, no contract needs to.
const std::set<std::string> kCoreBookkeeping = {"batch", "timer",     "sampler",
                                                "stop",  "elapsed_s", "warmup_s"};

// The metrics a source text writes by a literal name (`metrics["name"]`) that no contract names:
// "file:line name" each.
std::vector<std::string> unnamed_metric_literals(const std::string &text, const std::string &file,
                                                 const std::set<std::string> &names) {
  static const std::regex literal(R"re(metrics\["([a-z0-9_]+)"\])re");
  std::vector<std::string> out;
  std::istringstream lines(text);
  int n = 0;
  for (std::string line; std::getline(lines, line);) {
    ++n;
    for (std::sregex_iterator m(line.begin(), line.end(), literal), end; m != end; ++m)
      if (!names.count((*m)[1].str()))
        out.push_back(file + ":" + std::to_string(n) + " " + (*m)[1].str());
  }
  return out;
}

// A family that writes a metric by its name renames it only together with its contract: a name
// written in a family's sources that no contract has fails here (and a contract's name that the
// schema lacks fails EveryContractMetricIsInTheSchema).
TEST(RecordContract, EveryMetricAFamilyWritesByNameIsInAContract) {
  const auto names = contract_metrics();
  std::vector<std::string> unnamed;
  int files = 0;
  for (const char *family : {"gemm", "memory", "offload", "rdma", "collectives", "block"})
    for (const auto &entry :
         std::filesystem::recursive_directory_iterator(kSource + "/" + family)) {
      const auto ext = entry.path().extension();
      if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".cu" && ext != ".h"))
        continue;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      ++files;
      for (auto &u : unnamed_metric_literals(text.str(), entry.path().string(), names))
        unnamed.push_back(std::move(u));
    }
  EXPECT_GT(files, 100);
  for (const auto &u : unnamed)
    ADD_FAILURE() << u << ": a metric no record contract names (add it to the family's "
                  << "<family>_record.h kMetrics and to results/schema/record.schema.json)";
  // The check itself: a renamed metric is caught, a contract's is not.
  EXPECT_EQ(unnamed_metric_literals("out.metrics[\"wrong_word\"] = 1;\n", "f.cpp", names),
            std::vector<std::string>{"f.cpp:1 wrong_word"});
  EXPECT_TRUE(unnamed_metric_literals("out.metrics[\"wrong_words\"] = 1;", "f.cpp", names).empty());
}

TEST(RecordContract, EveryContractMetricIsInTheSchema) {
  const auto schema = schema_metrics();
  for (const auto &name : contract_metrics())
    EXPECT_TRUE(schema.contains(name)) << name << " is named by a contract, not by the schema";
}

TEST(RecordContract, EverySchemaMetricIsNamedByAContract) {
  const auto names = contract_metrics();
  const auto schema = schema_metrics(); // items() refers to it: a temporary would dangle
  for (const auto &[name, _] : schema.items())
    EXPECT_TRUE(names.count(name) || kCoreBookkeeping.count(name))
        << name << " is in the schema, not in any family's record contract";
}

// "metrics.latency.p99_s" -> "latency"; "metrics.port_counter_deltas.*.link_downed" -> ...
std::string metric_of(const std::string &path) {
  const std::string prefix = "metrics.";
  if (path.rfind(prefix, 0) != 0)
    return "";
  const auto rest = path.substr(prefix.size());
  return rest.substr(0, rest.find('.'));
}

TEST(RecordContract, EveryMetricARuleReadsIsNamedByAContract) {
  const auto names = contract_metrics();
  int judged = 0;
  for (const auto &file : std::filesystem::directory_iterator(kSource + "/results/rules")) {
    const auto rules = check::load_rules_file(file.path().string());
    for (const auto &rule : rules.rules)
      for (const auto &path : {rule.metric, rule.relative_to}) {
        if (path.empty())
          continue;
        ++judged;
        EXPECT_TRUE(names.count(metric_of(path)))
            << file.path().filename().string() << " rule " << rule.id << " reads " << path
            << ", which no record contract names";
      }
  }
  EXPECT_GT(judged, 20);
}

TEST(RecordContract, EveryContractKeyIsRegistered) {
  const Registry registry = make_registry();
  for (const char *key : {gemm::record::kCublasLt,
                          gemm::record::kCublasLtSize,
                          gemm::record::kBurn,
                          gemm::record::kCpuBlas,
                          gemm::record::kCpuBlasSize,
                          memory::record::kHbmCopy,
                          memory::record::kHbmRead,
                          memory::record::kHbmWrite,
                          memory::record::kHbmTriad,
                          memory::record::kHbmMemcpyD2d,
                          memory::record::kHbmBurn,
                          memory::record::kHostCopy,
                          memory::record::kHostRead,
                          memory::record::kHostWrite,
                          memory::record::kHostTriad,
                          offload::record::kH2d,
                          offload::record::kD2h,
                          offload::record::kBidir,
                          offload::record::kZeroCopyRead,
                          offload::record::kZeroCopyWrite,
                          offload::record::kAllGpusH2d,
                          offload::record::kAllGpusD2h,
                          offload::record::kWithGemm,
                          rdma::record::kWriteBw,
                          rdma::record::kReadBw,
                          rdma::record::kSendBw,
                          rdma::record::kWriteLat,
                          rdma::record::kReadLat,
                          rdma::record::kSendLat,
                          rdma::record::kPairMatrix,
                          rdma::record::kTcpBw,
                          rdma::record::kTcpLat,
                          rdma::record::kTcpPairMatrix,
                          rdma::record::kQpScaling,
                          rdma::record::kIncast,
                          rdma::record::kLatencyUnderLoad,
                          collectives::record::kNcclAllReduceWithGemm,
                          collectives::record::kMpiAllReduceWithGemm,
                          block::record::kTransformerTp,
                          block::record::kTransformerTpGpu})
    EXPECT_NE(registry.find(key), nullptr) << key << " is in a contract but not registered";
  // Every collective kind has its row of keys, and each of them is registered.
  for (const auto kind : collectives::all_kinds()) {
    const auto &keys = collectives::record::keys_of(kind);
    EXPECT_EQ(keys.kind, kind) << collectives::to_string(kind) << " has no row in kKindKeys";
    for (const char *key : {keys.mpi, keys.nccl, keys.mpi_textbook, keys.nccl_textbook}) {
      if (key) { // braced: EXPECT_NE expands to an if/else of its own
        EXPECT_NE(registry.find(key), nullptr) << key << " is in a contract but not registered";
      }
    }
  }
}

TEST(RecordContract, EveryRegisteredKeyIsInItsFamilysContract) {
  // A benchmark added without its key in the contract would be invisible to analysis by name.
  std::set<std::string> keys{gemm::record::kCublasLt,
                             gemm::record::kCublasLtSize,
                             gemm::record::kBurn,
                             gemm::record::kCpuBlas,
                             gemm::record::kCpuBlasSize,
                             collectives::record::kNcclAllReduceWithGemm,
                             collectives::record::kMpiAllReduceWithGemm,
                             block::record::kTransformerTp,
                             block::record::kTransformerTpGpu};
  for (const char *key : {memory::record::kHbmCopy,       memory::record::kHbmRead,
                          memory::record::kHbmWrite,      memory::record::kHbmTriad,
                          memory::record::kHbmMemcpyD2d,  memory::record::kHostCopy,
                          memory::record::kHostRead,      memory::record::kHostWrite,
                          memory::record::kHostTriad,     offload::record::kH2d,
                          offload::record::kD2h,          offload::record::kBidir,
                          offload::record::kZeroCopyRead, offload::record::kZeroCopyWrite,
                          offload::record::kAllGpusH2d,   offload::record::kAllGpusD2h,
                          offload::record::kWithGemm,     rdma::record::kWriteBw,
                          rdma::record::kReadBw,          rdma::record::kSendBw,
                          rdma::record::kWriteLat,        rdma::record::kReadLat,
                          rdma::record::kSendLat,         rdma::record::kPairMatrix,
                          rdma::record::kTcpBw,           rdma::record::kTcpLat,
                          rdma::record::kTcpPairMatrix,   rdma::record::kQpScaling,
                          rdma::record::kIncast,          rdma::record::kLatencyUnderLoad,
                          memory::record::kHbmBurn})
    keys.insert(key);
  for (const auto &row : collectives::record::kKindKeys)
    for (const char *key : {row.mpi, row.nccl, row.mpi_textbook, row.nccl_textbook})
      if (key)
        keys.insert(key);
  const auto registry = make_registry(); // all() refers to it: a temporary would dangle
  for (const Benchmark *b : registry.all())
    EXPECT_TRUE(keys.count(std::string(b->key()))) << b->key() << " is in no record contract";
}

} // namespace
} // namespace railgauge
